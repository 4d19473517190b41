"""A `toolgrade run` in a child process, watched until it has written enough results."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path


def wait_for_results(home: Path, *, minimum: int, child: subprocess.Popen[bytes]) -> Path:
    """The run's `results.jsonl` once it holds `minimum` lines (the child still running)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = list((home / "runs").glob("*/results.jsonl"))
        if found and len(found[0].read_bytes().splitlines()) >= minimum:
            return found[0]
        if child.poll() is not None:
            raise AssertionError(f"child exited early: {child.stderr.read()!r}")  # type: ignore[union-attr]
        time.sleep(0.02)
    raise AssertionError("the child run produced no results in time")


def killed_run(command: Sequence[str], home: Path, *, minimum: int) -> Path:
    """Run `command` in a child, SIGKILL it once it has `minimum` results; its results file."""
    child = subprocess.Popen(list(command), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        results = wait_for_results(home, minimum=minimum, child=child)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
        child.stderr.close()  # type: ignore[union-attr]
    return results
