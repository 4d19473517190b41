"""Nothing makes a run ignore its timeout or a stop: extraction and judging are bounded."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest

import toolgrade
from runner import loopy
from runner.fakeserver import FakeServer, Step
from toolgrade._core.threads import BoundedPool
from toolgrade.store._folder import RunFolder


def test_pool_overrun_raises_timeout_and_stops_the_thread() -> None:
    pool = BoundedPool(max_workers=1)
    stopped = threading.Event()

    async def go() -> None:
        with pytest.raises(TimeoutError):
            await pool.call(lambda: loopy.spin(stopped), timeout=0.2)
        # The replacement worker serves the next call at once.
        assert await pool.call(lambda: 6 * 7, timeout=1.0) == 42

    started = time.monotonic()
    asyncio.run(go())
    assert time.monotonic() - started < 2.0
    assert stopped.wait(2.0), "the runaway thread kept running"
    assert pool.abandoned == 1


def test_pool_cancelled_caller_stops_the_thread() -> None:
    pool = BoundedPool()
    stopped = threading.Event()

    async def go() -> None:
        task = asyncio.ensure_future(pool.call(lambda: loopy.spin(stopped), timeout=60))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert stopped.wait(2.0)


def test_pool_passes_errors_and_values_through() -> None:
    pool = BoundedPool()

    def boom() -> None:
        raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        pool.call_sync(boom, timeout=1.0)
    assert pool.call_sync(lambda: "ok", timeout=1.0) == "ok"
    with pytest.raises(TimeoutError):
        pool.call_sync(lambda: loopy.spin(threading.Event()), timeout=0.2)


def _replay_run(tmp_path: Path, *, timeout: float, looping: tuple[int, ...] = (2,)) -> tuple:
    suite = toolgrade.load_suite(str(loopy.write_suite(tmp_path)))
    responses = loopy.write_responses(tmp_path, looping=looping)
    # One at a time: beside a spinning thread (until it is stopped), another judging gets
    # only part of the interpreter, and a loaded test machine could push it past `timeout`.
    options = toolgrade.RunOptions(timeout=timeout, concurrency=1, suite_source=None)
    started = time.monotonic()
    run = toolgrade.run_suite(suite, f"replay/{responses}", options=options, handle_signals=False)
    return run, time.monotonic() - started


def test_looping_extraction_becomes_an_error_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spinner = loopy.Spinner()
    loopy.patch_extractor(monkeypatch.setattr, spinner)
    run, elapsed = _replay_run(tmp_path, timeout=0.5)
    assert elapsed < 5.0
    assert run.status == "complete"
    by_id = {r.case_id: r for r in run.results}
    assert by_id["T-2"].status == "error"
    assert "extraction and judging took longer than 0.5 s" in (by_id["T-2"].error or "")
    assert by_id["T-2"].raw_response == loopy.LOOP  # kept, to report the reader's bug
    assert [by_id[f"T-{i}"].status for i in (0, 1, 3)] == ["correct"] * 3
    assert spinner.stopped.wait(2.0), "the runaway thread kept burning CPU"


def test_looping_judge_becomes_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import toolgrade.runner._verdicts as verdicts

    real = verdicts.judge
    stopped = threading.Event()

    def judge(case, extraction, **kwargs):  # type: ignore[no-untyped-def]
        if case.id == "T-1":
            loopy.spin(stopped)
        return real(case, extraction, **kwargs)

    monkeypatch.setattr(verdicts, "judge", judge)
    run, elapsed = _replay_run(tmp_path, timeout=0.4, looping=())
    assert elapsed < 5.0
    assert [r.status for r in run.results] == ["correct", "error", "correct", "correct"]
    assert stopped.wait(2.0)


def test_malformed_gemma_output_never_hangs_a_run(tmp_path: Path) -> None:
    # This 36-character output once made the Gemma reader loop for ever; whether the
    # reader is fixed or not, the run must finish within its timeout.
    suite = toolgrade.load_suite(str(loopy.write_suite(tmp_path, n=1)))
    responses = tmp_path / "gemma.jsonl"
    output = "<|tool_call>call:n{s:[}}<tool_call|>"
    responses.write_text(json.dumps({"case_id": "T-0", "output": output}) + "\n", "utf-8")
    options = toolgrade.RunOptions(timeout=1.0, suite_source=None, persist=False)
    started = time.monotonic()
    run = toolgrade.run_suite(suite, f"replay/{responses}", options=options, handle_signals=False)
    assert time.monotonic() - started < 5.0
    assert run.status == "complete" and len(run.results) == 1


def test_stop_during_a_looping_extraction_keeps_finished_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spinner = loopy.Spinner()
    loopy.patch_extractor(monkeypatch.setattr, spinner)
    suite = toolgrade.load_suite(str(loopy.write_suite(tmp_path)))
    responses = loopy.write_responses(tmp_path)
    options = toolgrade.RunOptions(timeout=60, concurrency=1, suite_source=None)

    async def go() -> tuple[toolgrade.RunResult, float]:
        stop = asyncio.Event()
        task = asyncio.ensure_future(
            toolgrade.arun_suite(suite, f"replay/{responses}", options=options, stop=stop)
        )
        while not spinner.started.is_set():
            await asyncio.sleep(0.01)
        stop.set()
        asked = time.monotonic()
        run = await task
        return run, time.monotonic() - asked

    run, elapsed = asyncio.run(go())
    assert elapsed < 1.0
    assert run.status == "interrupted"
    assert [r.case_id for r in run.results] == ["T-0", "T-1"]
    assert spinner.stopped.wait(2.0)


def test_rescore_bounds_a_looping_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = toolgrade.load_suite(str(loopy.write_suite(tmp_path)))
    run, _ = _replay_run(tmp_path, timeout=5.0, looping=())
    assert all(r.status == "correct" for r in run.results)
    looping = run.model_copy(
        update={
            "results": tuple(
                r.model_copy(update={"raw_response": loopy.LOOP}) if r.case_id == "T-3" else r
                for r in run.results
            )
        }
    )
    spinner = loopy.Spinner()
    loopy.patch_extractor(monkeypatch.setattr, spinner)
    started = time.monotonic()
    again = toolgrade.rescore_run(looping, suite, timeout=0.3)
    assert time.monotonic() - started < 3.0
    assert [r.status for r in again.results] == ["correct"] * 3 + ["error"]
    assert "took longer than 0.3 s" in (again.results[3].error or "")
    assert spinner.stopped.wait(2.0)


def test_dropped_connections_until_the_timeout_say_what_happened(tmp_path: Path) -> None:
    suite = toolgrade.load_suite(str(loopy.write_suite(tmp_path, n=1)))
    with FakeServer({"read file 0": [Step(drop=True)]}) as server:
        options = toolgrade.RunOptions(
            timeout=1.0,
            base_url=server.openai_url,
            retry_base_delay=0.4,
            max_retries=5,
            warmup=False,
            suite_source=None,
        )
        run = toolgrade.run_suite(suite, "openai/m", options=options, handle_signals=False)
    result = run.results[0]
    assert result.status == "error", result
    error = result.error or ""
    assert "connection dropped: the server closed it" in error
    assert "attempts, no answer within 1 s" in error
    events = [
        json.loads(line)
        for line in RunFolder.open(run.run_id).log_path.read_text("utf-8").splitlines()
    ]
    retries = [e for e in events if e["event"] == "retry"]
    assert retries and [e["attempt"] for e in retries] == list(range(1, len(retries) + 1))
    assert all(e["case_id"] == "T-0" and e["delay_s"] > 0 for e in retries)
    assert "closed it" in retries[0]["reason"]


def test_dropped_connections_until_retries_run_out_count_attempts(tmp_path: Path) -> None:
    suite = toolgrade.load_suite(str(loopy.write_suite(tmp_path, n=1)))
    with FakeServer({"read file 0": [Step(drop=True)]}) as server:
        options = toolgrade.RunOptions(
            timeout=5.0,
            base_url=server.openai_url,
            retry_base_delay=0.01,
            max_retries=2,
            warmup=False,
            suite_source=None,
            persist=False,
        )
        run = toolgrade.run_suite(suite, "openai/m", options=options, handle_signals=False)
    assert run.results[0].status == "error"
    assert "; 3 attempts" in (run.results[0].error or "")


SPINNING_AGENT = """
import threading, time

stopped = threading.Event()

def answer(messages, tools):
    if messages[-1]["content"].endswith("1"):
        deadline = time.monotonic() + 20
        try:
            while time.monotonic() < deadline:
                pass
        except BaseException:
            stopped.set()
            raise
    return [{"name": "read_file", "arguments": {"path": messages[-1]["content"][-1] + ".txt"}}]
"""


def test_looping_sync_agent_times_out_and_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    (tmp_path / "tg_spinning_agent.py").write_text(SPINNING_AGENT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tg_spinning_agent", raising=False)
    suite = toolgrade.load_suite(str(loopy.write_suite(tmp_path, n=3)))
    options = toolgrade.RunOptions(timeout=0.5, concurrency=1, suite_source=None, persist=False)
    started = time.monotonic()
    run = toolgrade.run_suite(
        suite, "python/tg_spinning_agent:answer", options=options, handle_signals=False
    )
    assert time.monotonic() - started < 5.0
    assert [r.status for r in run.results] == ["correct", "timeout", "correct"]
    assert sys.modules["tg_spinning_agent"].stopped.wait(2.0), "the agent's thread kept spinning"
