"""Shared pieces of the sweep tests: small suites, an instrumented server, TOML files.

`SweepServer` is the runner tests' fake server (tests/runner/fakeserver.py) that
answers by model and prompt and logs when each request arrived and for which model,
so that a test can tell whether two runs overlapped in time.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.fakeserver import FakeServer, Step, _last_user_text

TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    }
]


def write_suite(path: Path, name: str, count: int) -> Path:
    """A suite of `count` cases: `read <name><i>.txt` expects read_file(path=...)."""
    cases = [
        {
            "id": f"{name}-{i}",
            "prompt": f"read {name}{i}.txt",
            "expected": {"name": "read_file", "arguments": {"path": f"{name}{i}.txt"}},
        }
        for i in range(1, count + 1)
    ]
    suite = {"schema_version": 1, "name": name, "version": "1", "tools": TOOLS, "cases": cases}
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class SweepServer(FakeServer):
    """Answers every `read X` prompt with read_file(path=X), unless (model, prompt) is wrong."""

    delay: float = 0.0
    wrong: frozenset[tuple[str, str]] = frozenset()
    log: list[tuple[float, str, str]] = field(default_factory=list)
    """(arrival time, model, prompt) of every chat request."""
    on_request: Callable[[int], None] | None = None
    """Called with the number of chat requests so far, as each arrives."""

    def next_step(self, body: Mapping[str, Any]) -> Step:
        super().next_step(body)
        prompt, model = _last_user_text(body), str(body.get("model", ""))
        with self._lock:
            self.log.append((time.monotonic(), model, prompt))
            count = len(self.log)
        if self.on_request is not None:
            self.on_request(count)
        if (model, prompt) in self.wrong:
            return Step(content="I would rather not.", delay=self.delay)
        path = prompt.split()[-1]
        return Step(calls=[{"name": "read_file", "arguments": {"path": path}}], delay=self.delay)

    def span(self, model: str) -> tuple[float, float]:
        """When the first request for `model` arrived, and the last one ended (about)."""
        times = [t for t, m, _ in self.log if m == model]
        return min(times), max(times) + self.delay

    def asked(self, model: str | None = None) -> list[str]:
        """The prompts asked (of `model`), in order."""
        return [p for _, m, p in self.log if model is None or m == model]


def toml_value(value: object) -> str:
    """A TOML literal for the simple values the tests use."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)


def write_sweep(
    path: Path,
    *,
    models: Sequence[Mapping[str, object]],
    suites: Sequence[Mapping[str, object]],
    name: str = "t",
    **top: object,
) -> Path:
    """A sweep file: top-level keys, then one [[models]] / [[suites]] table each."""
    lines = [f"name = {toml_value(name)}"]
    lines += [f"{k} = {toml_value(v)}" for k, v in top.items()]
    for table, rows in (("models", models), ("suites", suites)):
        for row in rows:
            lines += ["", f"[[{table}]]", *(f"{k} = {toml_value(v)}" for k, v in row.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class Stopper:
    """Sets an asyncio event from a server thread once `after` requests have arrived."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.loop: Any = None
        self.event: Any = None
        self.lock = threading.Lock()

    def __call__(self, count: int) -> None:
        if count == self.after and self.loop is not None:
            self.loop.call_soon_threadsafe(self.event.set)
