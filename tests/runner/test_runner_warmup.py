"""Before the cases: the warm-up request, the concurrency cap; and what a reply carries."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest

import toolgrade
from runner.fakeserver import FakeServer, Step
from toolgrade.backends import Backend, ChatReply, ChatRequest, ServerInfo
from toolgrade.runner import make_progress, timeout_warning
from toolgrade.runner._warmup import WARMUP_PROMPT

N_CASES = 6


def _suite() -> toolgrade.Suite:
    return toolgrade.Suite.model_validate(
        {
            "name": "warm",
            "defaults": {"system": "You are a file assistant."},
            "tools": [
                {"name": "read_file", "parameters": {"type": "object"}},
                {"name": "uber.ride", "parameters": {"type": "object"}},
            ],
            "cases": [
                {
                    "id": f"W-{i}",
                    "prompt": f"read file {i}",
                    "expected": {"name": "read_file", "arguments": {"path": f"{i}.txt"}},
                }
                for i in range(N_CASES)
            ],
        }
    )


def _script(delay: float = 0.0) -> dict[str, list[Step]]:
    return {
        f"read file {i}": [
            Step(delay=delay, calls=[{"name": "read_file", "arguments": {"path": f"{i}.txt"}}])
        ]
        for i in range(N_CASES)
    }


def _options(url: str, **changes: Any) -> toolgrade.RunOptions:
    base: dict[str, Any] = {"base_url": url, "timeout": 1.0, "concurrency": 2}
    base.update(changes)
    return toolgrade.RunOptions(**base)


class _Adjusted:
    """A real backend, with what the server says about itself or its replies adjusted."""

    def __init__(
        self,
        inner: Backend,
        *,
        parallel: int | None = None,
        reply: dict[str, Any] | None = None,
        warmup_unreachable: bool = False,
    ) -> None:
        self.inner = inner
        self.provider, self.model, self.safe_names = inner.provider, inner.model, inner.safe_names
        self.parallel = parallel
        self.reply = reply or {}
        self.warmup_unreachable = warmup_unreachable

    async def server_info(self) -> ServerInfo:
        info = await self.inner.server_info()
        return dataclasses.replace(info, parallel=self.parallel)

    async def complete(self, request: ChatRequest) -> ChatReply:
        if self.warmup_unreachable and request.case_id == "warm-up":
            raise toolgrade.BackendUnreachable("cannot connect to the model server")
        return dataclasses.replace(await self.inner.complete(request), **self.reply)

    def settings(self) -> dict[str, Any]:
        return dict(self.inner.settings())

    async def aclose(self) -> None:
        await self.inner.aclose()


def _adjusted(url: str, **changes: Any) -> _Adjusted:
    settings = toolgrade.BackendSettings(base_url=url, timeout=30.0, max_retries=0)
    return _Adjusted(toolgrade.create_backend("openai/m", settings), **changes)


def _log_events(home: Path, run_id: str) -> list[dict[str, Any]]:
    text = (home / "runs" / run_id / "log.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.slow
def test_warmup_sent_once_untimed_so_a_cold_start_fails_no_case(toolgrade_home: Path) -> None:
    with FakeServer(_script(), cold_start=1.5) as server:
        run = toolgrade.run_suite(
            _suite(), "openai/m", options=_options(server.openai_url), handle_signals=False
        )
        prompts = server.prompts()
        first = server.requests[0]
    assert prompts[0] == WARMUP_PROMPT and prompts.count(WARMUP_PROMPT) == 1
    assert len(prompts) == N_CASES + 1
    # The suite's system prompt and tools, so that the server caches that prefix.
    assert first["messages"][0] == {"role": "system", "content": "You are a file assistant."}
    assert [t["function"]["name"] for t in first["tools"]] == ["read_file", "uber_ride"]
    assert [r.status for r in run.results] == [toolgrade.Status.CORRECT] * N_CASES
    warmup = run.server["warmup"]
    assert isinstance(warmup, dict) and warmup["error"] is None
    assert isinstance(warmup["latency_ms"], float) and warmup["latency_ms"] >= 1500
    assert toolgrade.load_run_folder(run.run_id).server["warmup"] == warmup
    events = [e["event"] for e in _log_events(toolgrade_home, run.run_id)]
    assert events[:2] == ["run_start", "warmup"]


@pytest.mark.slow
def test_no_warmup_sends_none_and_the_cold_start_times_out_case_one() -> None:
    with FakeServer(_script(), cold_start=1.5) as server:
        run = toolgrade.run_suite(
            _suite(),
            "openai/m",
            options=_options(server.openai_url, warmup=False, concurrency=1, max_retries=0),
            handle_signals=False,
        )
        prompts = server.prompts()
    assert WARMUP_PROMPT not in prompts
    assert "warmup" not in run.server
    assert run.results[0].status == toolgrade.Status.TIMEOUT
    assert all(r.status == toolgrade.Status.CORRECT for r in run.results[1:])


def test_warmup_skipped_for_replay_and_python_backends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"case_id": "W-0", "output": "no"}\n', encoding="utf-8")
    replayed = toolgrade.run_suite(_suite(), f"replay/{answers}", handle_signals=False)
    assert "warmup" not in replayed.server
    assert len(replayed.results) == N_CASES
    (tmp_path / "warm_agent_mod.py").write_text(
        "SEEN = []\ndef agent(messages, tools):\n    SEEN.append(messages[-1]['content'])\n"
        "    return 'no'\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    run = toolgrade.run_suite(_suite(), "python/warm_agent_mod:agent", handle_signals=False)
    import warm_agent_mod  # type: ignore[import-not-found]

    seen = list(warm_agent_mod.SEEN)
    assert WARMUP_PROMPT not in seen and len(seen) == N_CASES
    assert "warmup" not in run.server


def test_warmup_stopped_by_ctrl_c_ends_the_run_interrupted_and_resumable() -> None:
    with FakeServer(_script(), cold_start=20.0) as server:
        port = int(server.url.rsplit(":", 1)[1])

        async def go() -> toolgrade.RunResult:
            stop = asyncio.Event()
            asyncio.get_running_loop().call_later(0.3, stop.set)
            return await toolgrade.arun_suite(
                _suite(), "openai/m", options=_options(server.openai_url), stop=stop
            )

        started = time.monotonic()
        run = asyncio.run(go())
        assert time.monotonic() - started < 10
    assert run.status == "interrupted" and run.results == ()
    assert toolgrade.load_run_folder(run.run_id).status == "interrupted"
    with FakeServer(_script(), port=port):
        resumed = toolgrade.resume_run(run.run_id, suite=_suite(), handle_signals=False)
    assert resumed.status == "complete" and len(resumed.results) == N_CASES


def test_warmup_server_unreachable_raises_before_creating_a_folder(toolgrade_home: Path) -> None:
    with FakeServer(_script()) as server:
        backend = _adjusted(server.openai_url, warmup_unreachable=True)
        with pytest.raises(toolgrade.BackendUnreachable, match="cannot connect"):
            toolgrade.run_suite(
                _suite(), backend, options=_options(server.openai_url), handle_signals=False
            )
    assert not (toolgrade_home / "runs").exists()


def test_warmup_failure_is_recorded_and_the_run_goes_on() -> None:
    script = {**_script(), WARMUP_PROMPT: [Step(status=400)]}
    with FakeServer(script) as server:
        run = toolgrade.run_suite(
            _suite(), "openai/m", options=_options(server.openai_url), handle_signals=False
        )
    warmup = run.server["warmup"]
    assert isinstance(warmup, dict) and "400" in str(warmup["error"])
    assert len(run.results) == N_CASES


def test_concurrency_capped_to_the_servers_slots(toolgrade_home: Path) -> None:
    shown = io.StringIO()
    with FakeServer(_script(delay=0.1)) as server:
        run = toolgrade.run_suite(
            _suite(),
            _adjusted(server.openai_url, parallel=1),
            options=_options(server.openai_url, concurrency=4),
            progress=make_progress("plain", stream=shown),
            handle_signals=False,
        )
        assert server.max_in_flight == 1
    assert run.backend["concurrency"] == 1
    assert run.server["parallel"] == 1
    assert "concurrency lowered from 4 to 1" in shown.getvalue()
    manifest = json.loads((toolgrade_home / "runs" / run.run_id / "run.json").read_text("utf-8"))
    assert manifest["options"]["concurrency"] == 4  # what was asked; a resume asks again
    events = {e["event"]: e for e in _log_events(toolgrade_home, run.run_id)}
    assert events["concurrency_capped"]["requested"] == 4


def test_concurrency_kept_when_the_server_has_enough_slots_or_does_not_say() -> None:
    with FakeServer(_script(delay=0.15)) as server:
        for parallel in (None, 8):
            run = toolgrade.run_suite(
                _suite(),
                _adjusted(server.openai_url, parallel=parallel),
                options=_options(server.openai_url, concurrency=3, persist=False),
                handle_signals=False,
            )
            assert run.backend["concurrency"] == 3
        assert server.max_in_flight == 3


def test_reply_ttft_and_finish_reason_copied_into_results_and_kept_by_rescore() -> None:
    with FakeServer(_script()) as server:
        backend = _adjusted(server.openai_url, reply={"ttft_ms": 12.5, "finish_reason": "length"})
        run = toolgrade.run_suite(
            _suite(), backend, options=_options(server.openai_url), handle_signals=False
        )
    assert {(r.ttft_ms, r.finish_reason) for r in run.results} == {(12.5, "length")}
    again = toolgrade.rescore_run(run, _suite(), profile="bfcl")
    assert {(r.ttft_ms, r.finish_reason) for r in again.results} == {(12.5, "length")}


def test_too_many_timeouts_warn_during_the_run(toolgrade_home: Path) -> None:
    script = _script()
    for i in range(3):
        script[f"read file {i}"] = [Step(delay=1.0, content="late")]
    shown = io.StringIO()
    with FakeServer(script) as server:
        run = toolgrade.run_suite(
            _suite(),
            "openai/m",
            options=_options(server.openai_url, timeout=0.3, max_retries=0),
            progress=make_progress("plain", stream=shown),
            handle_signals=False,
        )
    assert sum(r.status == toolgrade.Status.TIMEOUT for r in run.results) == 3
    warnings = [line for line in shown.getvalue().splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1  # once, not once per timeout
    assert "3 of " in warnings[0] and "--timeout 0.3" in warnings[0]
    assert "--max-tokens" in warnings[0]
    events = [e for e in _log_events(toolgrade_home, run.run_id) if e["event"] == "many_timeouts"]
    assert len(events) == 1 and events[0]["level"] == "warning"
    assert timeout_warning(run) is not None


def test_two_timeouts_or_a_small_share_do_not_warn() -> None:
    from toolgrade._health import too_many_timeouts

    assert not too_many_timeouts(2, 2)
    assert not too_many_timeouts(3, 31)
    assert too_many_timeouts(3, 30)
    assert too_many_timeouts(4, 8)
