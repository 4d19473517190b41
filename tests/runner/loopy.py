"""A suite answered from a responses file in which one output makes extraction loop.

`looping_extractor()` stands in for a reader that never returns on some malformed
output: on an output containing `LOOP` it spins (bounded, so that a test of code that
cannot stop it fails instead of hanging), and it says when it started.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolgrade.extract import extract_calls

LOOP = "LOOP"
SPIN_LIMIT = 20.0
"""Seconds the fake runaway spins at most (the tests expect far less)."""


def spin(stopped: threading.Event, seconds: float = SPIN_LIMIT) -> str:
    """Loop in Python for `seconds` (a runaway); set `stopped` if something stops it."""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            pass
    except BaseException:
        stopped.set()
        raise
    return "finished"


def write_suite(folder: Path, *, n: int = 4) -> Path:
    """A suite of `n` cases `T-0`... that each expect `read_file(path="<i>.txt")`."""
    data = {
        "schema_version": 1,
        "name": "loopy",
        "version": "1",
        "tools": [{"name": "read_file", "parameters": {"type": "object"}}],
        "cases": [
            {
                "id": f"T-{i}",
                "prompt": f"read file {i}",
                "expected": {"name": "read_file", "arguments": {"path": f"{i}.txt"}},
            }
            for i in range(n)
        ],
    }
    path = folder / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def answer(i: int) -> str:
    """A correct Hermes-style answer to case `T-<i>`."""
    call = {"name": "read_file", "arguments": {"path": f"{i}.txt"}}
    return f"<tool_call>{json.dumps(call)}</tool_call>"


def write_responses(folder: Path, *, n: int = 4, looping: tuple[int, ...] = (2,)) -> Path:
    """Responses to `T-0`..`T-<n-1>`: correct, except `looping` ones, which make it loop."""
    lines = [
        json.dumps({"case_id": f"T-{i}", "output": LOOP if i in looping else answer(i)})
        for i in range(n)
    ]
    path = folder / "responses.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class Spinner:
    """A replacement for `extract_calls` that spins on `LOOP` outputs."""

    def __init__(self, marker: Path | None = None) -> None:
        self.marker = marker
        self.started = threading.Event()
        self.stopped = threading.Event()
        """Set when a spin ended early (the runaway thread was stopped)."""

    def __call__(self, raw: Any, **kwargs: Any) -> Any:
        if LOOP in str(raw):
            self.started.set()
            if self.marker is not None:
                self.marker.write_text("spinning", encoding="utf-8")
            spin(self.stopped)
        return extract_calls(raw, **kwargs)


def patch_extractor(patch: Callable[[Any, str, Any], None], spinner: Spinner) -> None:
    """Make the runner (and rescoring) extract with `spinner` (`patch` is setattr-like)."""
    import toolgrade.runner._reading as reading

    patch(reading, "extract_calls", spinner)
