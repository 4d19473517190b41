"""Run `extract_calls` in a child process with a deadline, so a hang fails a test.

A reader stuck in a loop cannot be stopped inside its own process (and may eat memory
at megabytes a second), so every check runs in a worker process that the test kills
when it does not answer in time. The worker also reports the CPU time the extraction
took (which a loaded machine does not inflate) and any warning the extractors logged
(a reader that raised, caught by `extract_calls`' safety net).
"""

from __future__ import annotations

import logging
import multiprocessing
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

CPU_LIMIT = 0.5
"""CPU seconds one extraction may take (a hang or a superlinear path exceeds it)."""
WALL_LIMIT = 5.0
"""Wall seconds to wait for an answer before the worker is killed as hung."""

_START_LIMIT = 120.0
"""Wall seconds a new worker may take to import toolgrade (slow on a loaded machine)."""

Job = tuple[object, str, list[str] | None]
"""The output, the format (`auto` or a name) and the tools."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one extraction did in the worker."""

    cpu: float
    """CPU seconds the extraction took."""
    problem: str = ""
    """A traceback or a logged warning; empty when the extraction was clean."""


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _serve(conn: Connection) -> None:
    from toolgrade import Extraction, extract_calls

    handler = _Warnings()
    logging.getLogger("toolgrade.extract").addHandler(handler)
    extract_calls("warm up")
    conn.send("ready")  # the deadline starts with the first job, not with the imports
    while True:
        try:
            output, fmt, tools = conn.recv()
        except EOFError:
            return
        handler.messages.clear()
        start = time.thread_time()
        try:
            found = extract_calls(output, format=fmt, tools=tools)
            problem = "" if isinstance(found, Extraction) else f"returned {found!r}"
        except Exception:
            problem = traceback.format_exc()
        cpu = time.thread_time() - start
        if handler.messages and not problem:
            problem = "logged: " + "; ".join(handler.messages)
        conn.send(Outcome(cpu, problem))


class Worker:
    """A child process running extractions; restarted after it is killed."""

    def __init__(self) -> None:
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: Any = None
        self._conn: Connection | None = None

    def _start(self) -> Connection:
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_serve, args=(child,), daemon=True)
        self._proc.start()
        child.close()
        if not parent.poll(_START_LIMIT) or parent.recv() != "ready":
            raise RuntimeError("the extraction worker did not start")
        self._conn = parent
        return parent

    def run(self, output: object, fmt: str = "auto", tools: list[str] | None = None) -> str:
        """Extract in the worker; return "" when it was quick and clean, else the problem."""
        conn = self._conn or self._start()
        conn.send((output, fmt, tools))
        if not conn.poll(WALL_LIMIT):
            self.close()
            return f"no answer within {WALL_LIMIT} s (hang): format={fmt} output={output!r:.300}"
        outcome: Outcome = conn.recv()
        if outcome.problem:
            return f"format={fmt} output={output!r:.300}: {outcome.problem}"
        if outcome.cpu > CPU_LIMIT:
            return f"took {outcome.cpu:.2f} CPU s: format={fmt} output={output!r:.300}"
        return ""

    def close(self) -> None:
        """Stop the worker (killed: it may be stuck)."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.join()
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None
