"""Bounded-pool scenarios for a child process, with a tracer in every thread.

`python traced_pool.py SCENARIO [--settrace | --monitoring]` runs one scenario of
`BoundedPool` giving up on a call and prints what it measured as one JSON object. Run it
under `coverage run`, with `--settrace` (a trace function of its own in every thread) or
with `--monitoring` (a `sys.monitoring` tool, Python 3.12+) to check that a stopped worker
makes no traced thread spin, the event loop included: on CPython 3.11 a pending or stale
stop order did, for ever (see toolgrade._core.threads). The parent bounds the whole
child with a hard timeout.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from loopy import spin  # this folder: the script runs as a file

from toolgrade._core.threads import BoundedPool


def spinner(stopped: threading.Event) -> Callable[[], str]:
    """A call that loops in Python until it is stopped."""
    return lambda: spin(stopped)


def sleeper(stopped: threading.Event, seconds: float) -> Callable[[], str]:
    """A call blocked in C (`time.sleep`) for `seconds`, then looping until it is stopped."""

    def call() -> str:
        try:
            time.sleep(seconds)
        except BaseException:
            stopped.set()
            raise
        return spin(stopped)

    return call


def _calls(n: int) -> int:
    """Many Python function calls: where a traced thread looped at function entry."""
    return sum(abs(i) for i in range(n))


async def _next_call(pool: BoundedPool) -> float:
    """Seconds the next call takes, after Python calls where a traced thread would loop."""
    _calls(10_000)
    began = time.monotonic()
    assert await pool.call(lambda: 6 * 7, timeout=5.0) == 42
    return time.monotonic() - began


async def _overrun(pool: BoundedPool, fn: Callable[[], str]) -> dict[str, float]:
    began = time.monotonic()
    try:
        await pool.call(fn, timeout=0.2)
    except TimeoutError:
        pass
    else:
        raise AssertionError("no TimeoutError")
    return {"raised_s": time.monotonic() - began, "next_call_s": await _next_call(pool)}


async def _cancelled(pool: BoundedPool, fn: Callable[[], str]) -> dict[str, float]:
    task = asyncio.ensure_future(pool.call(fn, timeout=60))
    await asyncio.sleep(0.2)
    began = time.monotonic()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("not cancelled")
    return {"raised_s": time.monotonic() - began, "next_call_s": await _next_call(pool)}


def _sync(pool: BoundedPool, fn: Callable[[], str]) -> dict[str, float]:
    began = time.monotonic()
    try:
        pool.call_sync(fn, timeout=0.2)
    except TimeoutError:
        pass
    else:
        raise AssertionError("no TimeoutError")
    raised = time.monotonic() - began
    _calls(10_000)  # Python calls, where a traced thread would loop
    began = time.monotonic()
    assert pool.call_sync(lambda: 6 * 7, timeout=5.0) == 42
    return {"raised_s": raised, "next_call_s": time.monotonic() - began}


def run(scenario: str) -> dict[str, Any]:
    """Run one scenario; what it measured, in seconds."""
    pool = BoundedPool(max_workers=2)
    stopped = threading.Event()
    if scenario == "overrun":
        measured = asyncio.run(_overrun(pool, spinner(stopped)))
    elif scenario == "blocked":
        measured = asyncio.run(_overrun(pool, sleeper(stopped, 1.2)))
    elif scenario == "cancelled":
        measured = asyncio.run(_cancelled(pool, spinner(stopped)))
    elif scenario == "sync":
        measured = _sync(pool, spinner(stopped))
    else:
        raise SystemExit(f"unknown scenario {scenario!r}")
    began = time.monotonic()
    measured["stopped"] = stopped.wait(8.0)
    measured["stopped_s"] = time.monotonic() - began
    # Long after the stop: nothing may be left that makes a traced thread loop.
    began = time.monotonic()
    _calls(100_000)
    assert asyncio.run(pool.call(lambda: "ok", timeout=5.0)) == "ok"
    measured["after_s"] = time.monotonic() - began
    measured["traced"] = sys.gettrace() is not None or _monitored()
    return measured


def _trace(frame: object, event: str, arg: object) -> Callable[..., object]:
    return _trace


_TOOL = 5
"""The `sys.monitoring` tool id used by `--monitoring` (one of the free ones)."""


def _monitor() -> None:
    """Have a `sys.monitoring` tool see every function start and line, in every thread."""
    monitoring = sys.monitoring
    monitoring.use_tool_id(_TOOL, "traced_pool")
    events = monitoring.events.PY_START | monitoring.events.LINE
    for event in (monitoring.events.PY_START, monitoring.events.LINE):
        monitoring.register_callback(_TOOL, event, lambda *args: None)
    monitoring.set_events(_TOOL, events)


def _monitored() -> bool:
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and monitoring.get_tool(_TOOL) is not None


if __name__ == "__main__":
    if "--settrace" in sys.argv:
        threading.settrace(_trace)
        sys.settrace(_trace)
    if "--monitoring" in sys.argv:
        _monitor()
    print(json.dumps({"scenario": sys.argv[1], **run(sys.argv[1])}), flush=True)
