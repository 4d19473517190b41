"""A case is never charged for the time another case's work held a worker thread.

One slow judgement (a large `$unordered`, a looping reader) holds a worker of the
bounded pool; the case whose work was submitted beside it must get a worker of its own
(or wait for one with its clock stopped), never be given up on with the slow one.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable
from pathlib import Path

import pytest

import toolgrade
import toolgrade._core.threads as threads_module
from runner import loopy
from toolgrade._core.threads import BoundedPool


async def _timed(work: Awaitable[str]) -> tuple[str, float]:
    value = await work
    return value, time.monotonic()


def test_pool_second_call_gets_its_own_worker_beside_an_idle_one() -> None:
    # One idle worker, two calls submitted at once: the second must not wait behind
    # the first (it once did, and was given up on with it).
    pool = BoundedPool(max_workers=4)
    stopped = threading.Event()

    async def go() -> tuple[str, float, BaseException | str]:
        assert await pool.call(lambda: "warm", timeout=5.0) == "warm"
        await asyncio.sleep(0.05)  # the worker is back, idle
        started = time.monotonic()
        slow, quick = await asyncio.gather(
            pool.call(lambda: loopy.spin(stopped), timeout=1.0),
            _timed(pool.call(lambda: "quick", timeout=1.0)),
            return_exceptions=True,
        )
        assert isinstance(quick, tuple), quick
        return quick[0], quick[1] - started, slow

    quick, took, slow = asyncio.run(go())
    assert quick == "quick"
    assert took < 0.5
    assert isinstance(slow, TimeoutError)
    assert stopped.wait(2.0)


def test_pool_queued_call_is_timed_from_when_it_starts() -> None:
    # One worker: the quick call waits while the slow one holds it, and its own clock
    # starts only when a worker takes it.
    pool = BoundedPool(max_workers=1)
    stopped = threading.Event()

    async def go() -> tuple[str, BaseException | None]:
        slow = asyncio.ensure_future(pool.call(lambda: loopy.spin(stopped), timeout=0.6))
        await asyncio.sleep(0)
        quick = await pool.call(lambda: "quick", timeout=0.3)
        try:
            await slow
        except TimeoutError as exc:
            return quick, exc
        return quick, None

    quick, slow = asyncio.run(go())
    assert quick == "quick"
    assert isinstance(slow, TimeoutError)
    assert stopped.wait(2.0)


def test_pool_call_sync_queued_call_is_timed_from_when_it_starts() -> None:
    pool = BoundedPool(max_workers=1)
    stopped = threading.Event()
    outcome: list[object] = []

    def hold() -> None:
        try:
            pool.call_sync(lambda: loopy.spin(stopped), timeout=0.6)
        except TimeoutError as exc:
            outcome.append(exc)

    holder = threading.Thread(target=hold)
    holder.start()
    time.sleep(0.1)
    assert pool.call_sync(lambda: "quick", timeout=0.3) == "quick"
    holder.join(5.0)
    assert outcome and isinstance(outcome[0], TimeoutError)
    assert stopped.wait(2.0)


def test_case_queued_behind_a_slow_judgement_is_not_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # T-2's judgement loops and holds the only worker; T-3, judged beside it, must be
    # judged once a worker is free, not reported as a looping reader.
    monkeypatch.setattr(threads_module, "_default", BoundedPool(max_workers=1))
    spinner = loopy.Spinner()
    loopy.patch_extractor(monkeypatch.setattr, spinner)
    suite = toolgrade.load_suite(str(loopy.write_suite(tmp_path)))
    responses = loopy.write_responses(tmp_path, looping=(2,))
    options = toolgrade.RunOptions(timeout=1.0, concurrency=2, persist=False)
    started = time.monotonic()
    run = toolgrade.run_suite(suite, f"replay/{responses}", options=options, handle_signals=False)
    assert time.monotonic() - started < 5.0
    by_id = {r.case_id: r for r in run.results}
    assert by_id["T-2"].status == "error"
    assert [by_id[f"T-{i}"].status for i in (0, 1, 3)] == ["correct"] * 3, by_id["T-3"].error
    assert spinner.stopped.wait(2.0)
