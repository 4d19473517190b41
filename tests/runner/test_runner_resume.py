"""Stopping, resuming, killing: finished work is never lost and a resumed run ends the same."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolgrade
from runner.children import killed_run
from runner.fakeserver import FakeServer, Step
from toolgrade.cli import app
from toolgrade.runner._warmup import WARMUP_PROMPT

N_CASES = 30


def _suite() -> toolgrade.Suite:
    return toolgrade.Suite.model_validate(
        {
            "name": "resumable",
            "tools": [{"name": "read_file", "parameters": {"type": "object"}}],
            "cases": [
                {
                    "id": f"K-{i:02d}",
                    "prompt": f"read file {i}",
                    "expected": {"name": "read_file", "arguments": {"path": f"{i}.txt"}},
                }
                for i in range(N_CASES)
            ],
        }
    )


def _script(delay: float = 0.0) -> dict[str, list[Step]]:
    # Every third case answers with a wrong path, so that statuses differ between cases.
    return {
        f"read file {i}": [
            Step(
                delay=delay,
                calls=[{"name": "read_file", "arguments": {"path": f"{i if i % 3 else 99}.txt"}}],
            )
        ]
        for i in range(N_CASES)
    }


def _comparable(run: toolgrade.RunResult) -> list[tuple[Any, ...]]:
    return [
        (r.case_id, r.repeat, r.status, r.score, r.actual, r.raw_response, r.extraction_format)
        for r in run.results
    ]


def _options(url: str, **changes: Any) -> toolgrade.RunOptions:
    return toolgrade.RunOptions(base_url=url, concurrency=2, timeout=5.0, **changes)


class _StopAfter:
    """A progress sink that asks the run to stop after `n` results."""

    def __init__(self, stop: asyncio.Event, n: int) -> None:
        self.stop, self.n, self.seen = stop, n, 0

    def start(self, *, total: int, done: tuple[toolgrade.CaseResult, ...]) -> None:
        pass

    def update(self, result: toolgrade.CaseResult) -> None:
        self.seen += 1
        if self.seen >= self.n:
            self.stop.set()

    def close(self) -> None:
        pass


def test_runner_stop_keeps_results_and_resume_completes() -> None:
    suite = _suite()
    with FakeServer(_script(delay=0.01)) as server:
        reference = toolgrade.run_suite(
            suite, "openai/m", options=_options(server.openai_url, persist=False)
        )

        async def stopped() -> toolgrade.RunResult:
            stop = asyncio.Event()
            return await toolgrade.arun_suite(
                suite,
                "openai/m",
                options=_options(server.openai_url),
                stop=stop,
                progress=_StopAfter(stop, 5),
            )

        partial = asyncio.run(stopped())
        assert partial.status == "interrupted"
        assert 5 <= len(partial.results) < N_CASES
        assert toolgrade.load_run_folder(partial.run_id).status == "interrupted"
        resumed = toolgrade.resume_run(partial.run_id, suite=suite, handle_signals=False)
    assert resumed.status == "complete"
    assert resumed.finished_at is not None
    assert _comparable(resumed) == _comparable(reference)


def test_runner_resume_reruns_torn_last_line(toolgrade_home: Path) -> None:
    suite = _suite()
    with FakeServer(_script()) as server:
        full = toolgrade.run_suite(suite, "openai/m", options=_options(server.openai_url))
        results = toolgrade_home / "runs" / full.run_id / "results.jsonl"
        lines = results.read_bytes().splitlines(keepends=True)
        # Keep 10 results, then half of the 11th: a write torn by a crash.
        results.write_bytes(b"".join(lines[:10]) + lines[10][: len(lines[10]) // 2])
        hits_before = len(server.prompts())
        resumed = toolgrade.resume_run(full.run_id, suite=suite, handle_signals=False)
        rerun = server.prompts()[hits_before:]
    assert rerun[0] == WARMUP_PROMPT  # a resume warms the server up again
    assert len(rerun) - 1 == N_CASES - 10
    assert _comparable(resumed) == _comparable(full)
    assert len(results.read_bytes().splitlines()) == N_CASES


def test_runner_resume_refuses_a_changed_suite() -> None:
    suite = _suite()
    with FakeServer(_script()) as server:
        run = toolgrade.run_suite(suite, "openai/m", options=_options(server.openai_url))
    changed = suite.model_copy(update={"version": "2"})
    with pytest.raises(toolgrade.ConfigError, match="suite changed"):
        toolgrade.resume_run(run.run_id, suite=changed, handle_signals=False)


def test_runner_resume_without_recorded_suite_asks_for_it() -> None:
    with FakeServer(_script()) as server:
        run = toolgrade.run_suite(_suite(), "openai/m", options=_options(server.openai_url))
    with pytest.raises(toolgrade.ConfigError, match="pass the suite"):
        toolgrade.resume_run(run.run_id, handle_signals=False)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_runner_sigint_stops_cleanly() -> None:
    suite = _suite()
    with FakeServer(_script(delay=0.05)) as server:
        timer = threading.Timer(0.5, os.kill, args=(os.getpid(), signal.SIGINT))
        timer.start()
        try:
            run = toolgrade.run_suite(suite, "openai/m", options=_options(server.openai_url))
        finally:
            timer.cancel()
    assert run.status == "interrupted"
    assert 0 < len(run.results) < N_CASES
    assert len(toolgrade.load_run_folder(run.run_id).results) == len(run.results)


def _write_suite(path: Path) -> Path:
    path.write_text(_suite().model_dump_json(exclude_none=True), encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX-only")
def test_runner_sigkill_then_resume_matches_uninterrupted_run(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    suite_file = _write_suite(tmp_path / "suite.json")
    with FakeServer(_script(delay=0.05)) as server:
        reference = toolgrade.run_suite(
            _suite(), "openai/m", options=_options(server.openai_url, persist=False)
        )
        command = [
            sys.executable, "-m", "toolgrade", "run", "--suite", str(suite_file),
            "--model", "openai/m", "--base-url", server.openai_url,
            "--concurrency", "2", "--quiet",
        ]  # fmt: skip
        results = killed_run(command, toolgrade_home, minimum=8)
        kept = len(results.read_bytes().splitlines())
        assert kept < N_CASES
        run_id = results.parent.name
        outcome = CliRunner().invoke(app, ["run", "--resume", run_id, "--quiet"])
        assert outcome.exit_code == 0, outcome.output
    resumed = toolgrade.load_run_folder(run_id)
    assert resumed.status == "complete"
    assert _comparable(resumed) == _comparable(reference)


def test_stop_on_signals_falls_back_without_add_signal_handler(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolgrade.runner._signals import stop_on_signals

    before = signal.getsignal(signal.SIGINT)

    async def go() -> bool:
        loop = asyncio.get_running_loop()

        def unsupported(*args: object) -> None:
            raise NotImplementedError  # what Windows event loops do

        monkeypatch.setattr(loop, "add_signal_handler", unsupported)
        stop = asyncio.Event()
        with stop_on_signals(stop):
            handler = signal.getsignal(signal.SIGINT)
            assert callable(handler) and handler is not before
            handler(signal.SIGINT, None)  # type: ignore[operator]
            await asyncio.wait_for(stop.wait(), 1)
        return stop.is_set()

    assert asyncio.run(go())
    assert signal.getsignal(signal.SIGINT) is before


def test_resume_replay_run_from_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = _suite()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    answers = tmp_path / "a" / "answers.jsonl"
    answers.write_text(
        "\n".join(f'{{"case_id": "K-{i:02d}", "output": "no"}}' for i in range(N_CASES)),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path / "a")

    async def stopped() -> toolgrade.RunResult:
        stop = asyncio.Event()
        return await toolgrade.arun_suite(
            suite, "replay/answers.jsonl", stop=stop, progress=_StopAfter(stop, 3)
        )

    partial = asyncio.run(stopped())
    monkeypatch.chdir(tmp_path / "b")
    resumed = toolgrade.resume_run(partial.run_id, suite=suite, handle_signals=False)
    assert len(resumed.results) == N_CASES
    assert {r.status for r in resumed.results} == {toolgrade.Status.MISSED_CALL}


class _KillServerAfter(_StopAfter):
    """Takes the server down after `n` results (from inside the run)."""

    def __init__(self, server: FakeServer, n: int) -> None:
        self.server, self.n, self.seen = server, n, 0

    def update(self, result: toolgrade.CaseResult) -> None:
        self.seen += 1
        if self.seen == self.n:
            self.server.stop()


@pytest.mark.slow
def test_runner_server_lost_mid_run_stops_and_resumes(toolgrade_home: Path) -> None:
    suite = _suite()
    with FakeServer(_script()) as server:
        reference = toolgrade.run_suite(
            suite, "openai/m", options=_options(server.openai_url, persist=False)
        )
    first = FakeServer(_script(delay=0.01)).__enter__()
    port = int(first.url.rsplit(":", 1)[1])
    options = _options(first.openai_url, max_retries=1, retry_base_delay=0.01)
    with pytest.raises(toolgrade.BackendUnreachable, match="stopped answering") as info:
        toolgrade.run_suite(suite, "openai/m", options=options, progress=_KillServerAfter(first, 5))
    first.stop()
    run_id = next((toolgrade_home / "runs").iterdir()).name
    assert f"--resume {run_id}" in str(info.value)
    kept = toolgrade.load_run_folder(run_id)
    assert kept.status == "interrupted"
    assert 5 <= len(kept.results) < N_CASES
    assert all(r.status != "error" for r in kept.results)  # nobody recorded "cannot connect"
    with FakeServer(_script(), port=port):
        resumed = toolgrade.resume_run(run_id, suite=suite, handle_signals=False)
    assert _comparable(resumed) == _comparable(reference)
