"""Ctrl-C and SIGTERM set a stop event, portably; and running a coroutine from sync code.

`loop.add_signal_handler` is the clean way on POSIX; Windows event loops lack it (and
it only works in the main thread), so we fall back to `signal.signal`, which forwards
to the loop thread-safely.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

__all__ = ["run_main", "stop_on_signals"]

T = TypeVar("T")


def run_main(work: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(work)`, with the result handed back outside the main task.

    On its way out `asyncio.run` reads the SIGINT handler back with `signal.getsignal`,
    which formats the handler it finds with repr: its own handler holds the main task,
    and a finished task's repr holds its result. A 2,000-conversation run's result took
    most of a second to format, for nothing.
    """
    box: list[T] = []

    async def main() -> None:
        box.append(await work)

    asyncio.run(main())
    return box[0]


def _signals() -> list[signal.Signals]:
    found = [signal.SIGINT]
    if hasattr(signal, "SIGTERM"):
        found.append(signal.SIGTERM)
    return found


@contextmanager
def stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    """Within the block, SIGINT/SIGTERM set `stop` instead of killing the process.

    Must be entered from a coroutine (it needs the running loop). Outside the main
    thread nothing is installed: signals go to the main thread anyway.
    """
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    previous: dict[signal.Signals, object] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in _signals():
            before = signal.getsignal(sig)
            try:
                loop.add_signal_handler(sig, stop.set)
                previous[sig] = before
                installed.append(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                # Windows event loops have no add_signal_handler (NotImplementedError),
                # and it only works in the main thread: fall back to signal.signal.

                def forward(signum: int, frame: FrameType | None) -> None:
                    loop.call_soon_threadsafe(stop.set)

                previous[sig] = signal.signal(sig, forward)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        for sig, handler in previous.items():
            if handler is not None:
                signal.signal(sig, handler)  # type: ignore[arg-type]
