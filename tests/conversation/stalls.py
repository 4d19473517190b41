"""A conversation suite whose Python environment loops: it once held `suite check` for ever.

`write_looping_suite(folder)` writes a conversation suite whose Python environment's
`read_file` method spins for ever (and, with `swallow`, catches even Ctrl-C) (it writes a `looping` marker file first, so that a
test knows the loop started); its reference calls `read_file`, so `suite check`, `run`
and `evaluate` all reach the loop.
"""

from __future__ import annotations

import json
from pathlib import Path

ENVIRONMENT = """
import time
from pathlib import Path


class Env:
    def __init__(self, **state):
        self.files = dict(state.get("files", {}))

    def read_file(self, path: str) -> str:
        Path(__file__).with_name("looping").write_text("yes", encoding="utf-8")
        while True:
            if SWALLOW:
                try:
                    time.sleep(0.01)
                except BaseException:  # a careless environment: Ctrl-C is swallowed too
                    pass

    def state(self):
        return {"files": self.files}
"""

READ = {"name": "read_file", "arguments": {"path": "a.txt"}}


def write_looping_suite(folder: Path, *, swallow: bool = False) -> Path:
    """The suite file (its environment module beside it); the marker is `folder/looping`.

    With `swallow` the loop catches every exception, Ctrl-C's `KeyboardInterrupt`
    included (and the `Runaway` that stops a worker thread: use it in a subprocess only).
    """
    source = f"SWALLOW = {swallow!r}\n" + ENVIRONMENT
    (folder / "loopingenv.py").write_text(source, encoding="utf-8")
    data = {
        "schema_version": 2,
        "name": "looping",
        "tools": [
            {
                "name": "read_file",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            }
        ],
        "environments": {"ws": {"kind": "python", "class": "loopingenv:Env"}},
        "cases": [
            {
                "id": "C-1",
                "environment": "ws",
                "initial_state": {"files": {"a.txt": "hi"}},
                "turns": [{"user": "Read a.txt", "expected": [READ]}],
                "reference": [{"calls": [READ], "reply": "hi"}],
            }
        ],
    }
    path = folder / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_looping_responses(folder: Path) -> Path:
    """Recorded answers for `evaluate`: the model calls `read_file` (the loop)."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps(READ["arguments"])},
            }
        ],
    }
    line = {"case_id": "C-1", "turn": 0, "step": 0, "message": message}
    path = folder / "responses.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path
