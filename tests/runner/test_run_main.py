"""run_main: asyncio.run with the result handed back outside the main task."""

from __future__ import annotations

import asyncio
import signal
import threading

import pytest

from toolgrade.runner._signals import run_main, stop_on_signals


class _Big:
    """A result that counts the times it is formatted (it stands for a large run)."""

    formatted = 0

    def __repr__(self) -> str:
        _Big.formatted += 1
        return "_Big()"


main_thread_only = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(), reason="signals need the main thread"
)


@main_thread_only
def test_the_result_is_returned_without_being_formatted() -> None:
    big = _Big()
    _Big.formatted = 0

    async def work() -> _Big:
        with stop_on_signals(asyncio.Event()):  # as run_suite does
            await asyncio.sleep(0)
        return big

    before = signal.getsignal(signal.SIGINT)
    assert run_main(work()) is big
    assert _Big.formatted == 0
    assert signal.getsignal(signal.SIGINT) is before


def test_asyncio_run_alone_would_format_it() -> None:
    """The reason for run_main: without it, asyncio.run formats the main task's result."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals need the main thread")

    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("asyncio.run installs its handler only over the default one")
    _Big.formatted = 0

    async def work() -> _Big:
        return _Big()

    asyncio.run(work())
    assert _Big.formatted >= 1


def test_errors_propagate() -> None:
    async def work() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_main(work())
