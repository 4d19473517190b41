"""Conversations in whole runs: stop half-way and resume, rescore a stored run, options."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import toolgrade
from runner.convscript import HANG, ScriptedModel, conversation, good_script, suite
from toolgrade.results import RunResult
from toolgrade.runner import RunOptions, aresume_run, arun_suite, rescore_run
from toolgrade.store._folder import RunFolder


def _script() -> dict[Any, Any]:
    return good_script("c1") | good_script("c2") | good_script("c3")


def _suite() -> toolgrade.Suite:
    return suite(conversation("c1"), conversation("c2"), conversation("c3"))


def _same(result: toolgrade.CaseResult) -> Any:
    """What must not depend on being resumed: the verdicts and the record."""
    record = result.conversation
    assert record is not None
    steps = [[(s.raw_response, s.calls) for s in t.steps] for t in record.turns]
    return (result.case_id, result.status, result.score, record.passed, steps, record.final_state)


async def _interrupted(options: RunOptions) -> RunResult:
    stop = asyncio.Event()
    script = _script() | {("c2", 1, 0): HANG}
    model = ScriptedModel(script, reached=asyncio.Event())

    async def stop_when_reached() -> None:
        assert model.reached is not None
        await model.reached.wait()
        stop.set()

    watcher = asyncio.ensure_future(stop_when_reached())
    run = await arun_suite(_suite(), model, options=options, stop=stop)
    await watcher
    return run


def test_resume_never_records_a_half_finished_conversation() -> None:
    options = RunOptions(concurrency=1, warmup=False, timeout=30.0)
    stopped = asyncio.run(_interrupted(options))
    assert stopped.status == "interrupted"
    # c2 was stopped in its second turn: nothing of it was written.
    written = list(RunFolder.open(stopped.run_id).read_results())
    assert [r.case_id for r in written] == ["c1"]
    resumed = asyncio.run(
        aresume_run(stopped.run_id, suite=_suite(), backend=ScriptedModel(_script()))
    )
    whole = asyncio.run(
        arun_suite(_suite(), ScriptedModel(_script()), options=RunOptions(persist=False))
    )
    assert resumed.status == "complete"
    assert [_same(r) for r in resumed.results] == [_same(r) for r in whole.results]
    assert all(r.status == "correct" for r in resumed.results)


def test_rescore_rejudges_a_stored_conversation_from_its_recorded_steps() -> None:
    script = _script() | {("c3", 1, 0): {"role": "assistant", "content": "no"}}
    run = asyncio.run(
        arun_suite(_suite(), ScriptedModel(script), options=RunOptions(persist=False))
    )
    again = rescore_run(run, _suite())
    assert [_same(r) for r in again.results] == [_same(r) for r in run.results]
    assert [r.status for r in again.results] == ["correct", "correct", "missed_call"]
    # A suite whose check now wants another state: the same steps fail it.
    data = _suite().model_dump(mode="json", by_alias=True, exclude_none=True)
    data["cases"][0]["checks"] = {"final_state": {"state": {"files": {"b.txt": "other"}}}}
    changed = rescore_run(run, toolgrade.Suite.model_validate(data))
    assert changed.results[0].status == "state_mismatch"
    assert changed.results[0].latency_ms == run.results[0].latency_ms


def test_rescore_keeps_the_teacher_forced_mode() -> None:
    script = _script() | {("c1", 0, 0): {"role": "assistant", "content": "no"}}
    options = RunOptions(persist=False, teacher_forcing=True)
    run = asyncio.run(arun_suite(_suite(), ScriptedModel(script), options=options))
    again = rescore_run(run, _suite())
    record = again.results[0].conversation
    assert record is not None and record.mode == "teacher_forced"
    assert [t.passed for t in record.turns] == [False, True]


def test_run_options_record_teacher_forcing_and_prompt_format() -> None:
    options = RunOptions(teacher_forcing=True, prompt_format="mistral", mode="prompt")
    recorded = options.to_dict()
    assert recorded["teacher_forcing"] is True and recorded["prompt_format"] == "mistral"
    back = RunOptions.from_dict(json.loads(json.dumps(recorded)))
    assert back.teacher_forcing and back.prompt_format == "mistral"
    assert "teacher_forcing" not in RunOptions().to_dict()
    assert "prompt_format" not in RunOptions().backend_settings().to_dict()
