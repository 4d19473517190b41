"""The run loop: steps, turns, faults, limits, timeouts, modes, teacher forcing, single cases."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from runner.convscript import (
    HANG,
    REFERENCE,
    ScriptedModel,
    call,
    conversation,
    good_script,
    suite,
    text,
)
from toolgrade.backends._wire import openai_messages
from toolgrade.results import CaseResult, Status
from toolgrade.runner._loop import Runner
from toolgrade.runner._verdicts import CaseOutcome
from toolgrade.suite import Case, Suite


def _run(
    s: Suite,
    model: ScriptedModel,
    *,
    forced: bool = False,
    timeout: float = 5.0,
    repeat: int = 0,
    case: Case | None = None,
) -> CaseOutcome:
    runner = Runner(
        suite=s,
        backend=model,
        timeout=timeout,
        rubric=None,
        profile="default",
        teacher_forcing=forced,
    )
    return asyncio.run(runner.run(case or s.conversations[0], repeat))


def _record(result: CaseResult) -> Any:
    assert result.conversation is not None
    return result.conversation


def test_loop_multi_step_turn_and_follow_up_pass() -> None:
    model = ScriptedModel(good_script())
    result = _run(suite(), model).result
    record = _record(result)
    assert result.status is Status.CORRECT, record.first_failure
    assert [len(t.steps) for t in record.turns] == [2, 2]
    assert [t.reply for t in record.turns] == ["It says A.", "Copied."]
    first = record.turns[0].steps[0].exchanges[0]
    assert (first.id, first.result, first.outcome) == ("call_0_0_0", {"text": "A"}, "ok")
    assert record.final_state == {"files": {"a.txt": "A", "b.txt": "written"}}
    assert result.latency_ms == pytest.approx(40.0)
    # The follow-up turn sees the whole history, the call and its result by id.
    sent = model.at("c1", 1, 0).messages
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "assistant", "user"]
    assert sent[1]["tool_calls"] == [
        {"id": "call_0_0_0", "name": "read_file", "arguments": {"path": "a.txt"}}
    ]
    assert sent[2] == {
        "role": "tool",
        "tool_call_id": "call_0_0_0",
        "name": "read_file",
        "content": '{"text": "A"}',
    }
    assert model.at("c1", 1, 0).turn == 1 and model.at("c1", 0, 1).step == 1


def test_loop_wrong_follow_up_fails_with_progress() -> None:
    script = good_script() | {("c1", 1, 0): call("write_file", path="c.txt", text="A")}
    result = _run(suite(), ScriptedModel(script)).result
    record = _record(result)
    assert result.status is not Status.CORRECT
    assert [t.passed for t in record.turns] == [True, False]
    assert record.progress == pytest.approx(0.5)
    assert record.first_failure.turn == 1


def test_loop_injected_failure_then_retry_recovers() -> None:
    script = good_script() | {
        ("c1", 0, 1): call("read_file", path="a.txt"),
        ("c1", 0, 2): text("It says A."),
    }
    s = suite(
        conversation(
            fail=[{"tool": "read_file", "nth": 1}],
            turns=[
                {"user": "c1: read a.txt"},
                {
                    "user": "c1: copy it to b.txt",
                    "expected": [
                        {"name": "write_file", "arguments": {"path": "b.txt", "text": "A"}}
                    ],
                },
            ],
            reference=None,
        )
    )
    script[("c1", 1, 0)] = call("write_file", path="b.txt", text="A")
    script[("c1", 1, 1)] = text("Copied.")
    result = _run(s, ScriptedModel(script)).result
    steps = _record(result).turns[0].steps
    assert steps[0].exchanges[0].outcome == "injected"
    assert steps[0].exchanges[0].result == {"error": "503 Service Unavailable"}
    assert steps[1].exchanges[0].outcome == "ok"
    assert result.status is Status.CORRECT


def test_loop_step_limit_fails_the_turn() -> None:
    turns = [{"user": "c1: read a.txt", "max_steps": 2}, {"user": "c1: copy"}]
    s = suite(conversation(turns=turns, reference=None, checks={}))
    script = {("c1", 0, k): call("read_file", path="a.txt") for k in range(5)}
    result = _run(s, ScriptedModel(script)).result
    record = _record(result)
    assert result.status is Status.STEP_LIMIT
    assert len(record.turns[0].steps) == 2
    assert record.first_failure.cause == "step_limit"


def test_loop_request_timeout_mid_conversation_ends_it() -> None:
    script = good_script() | {("c1", 1, 0): HANG}
    model = ScriptedModel(script)
    result = _run(suite(), model, timeout=0.3).result
    record = _record(result)
    assert result.status is Status.TIMEOUT
    assert len(record.turns) == 2 and record.turns[1].steps[-1].error is not None
    assert "no answer within 0.3 s" in (result.error or "")
    assert not any(r.turn == 1 and r.step == 1 for r in model.requests)


def test_loop_unknown_tool_call_is_an_error_exchange_not_a_crash() -> None:
    script = good_script() | {("c1", 0, 0): call("rm_rf", path="/")}
    result = _run(suite(), ScriptedModel(script)).result
    exchange = _record(result).turns[0].steps[0].exchanges[0]
    assert exchange.outcome != "ok"
    assert result.status is not Status.CORRECT


def test_loop_prompt_mode_reads_text_calls_and_sends_neutral_messages() -> None:
    script = good_script() | {
        (
            "c1",
            0,
            0,
        ): '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>'
    }
    model = ScriptedModel(script)
    result = _run(suite(), model).result
    assert result.status is Status.CORRECT
    sent = model.at("c1", 0, 1).messages
    # The calls are written again from the calls, not as the text that held them.
    assert sent[1]["content"] is None and sent[1]["tool_calls"][0]["name"] == "read_file"
    wire = openai_messages(sent, tools=model.at("c1", 0, 1).tools, prompt_mode=True)
    assert wire[2]["content"].count("<tool_call>") == 1
    assert wire[3] == {
        "role": "user",
        "content": '<tool_response>\n{"text": "A"}\n</tool_response>',
    }


@pytest.mark.parametrize(
    ("family", "call_text", "result_text"),
    [
        (
            "hermes",
            '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>',
            '<tool_response>\n{"text": "A"}\n</tool_response>',
        ),
        (
            "llama3",
            '{"name": "read_file", "parameters": {"path": "a.txt"}}',
            '{"text": "A"}',
        ),
        (
            "mistral",
            '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a.txt"}, "id": "call_0_0_0"}]',
            '[TOOL_RESULTS]{"content": {"text": "A"}, "call_id": "call_0_0_0"}[/TOOL_RESULTS]',
        ),
    ],
)
def test_loop_history_renders_in_each_family(family: str, call_text: str, result_text: str) -> None:
    model = ScriptedModel(good_script())
    _run(suite(), model)
    request = model.at("c1", 1, 0)
    wire = openai_messages(request.messages, tools=request.tools, prompt_mode=True, family=family)
    assert [m["role"] for m in wire] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert wire[2]["content"] == call_text
    assert wire[3]["content"] == result_text
    native = openai_messages(request.messages, tools=request.tools, prompt_mode=False)
    assert native[1]["tool_calls"][0]["id"] == native[2]["tool_call_id"] == "call_0_0_0"


def test_loop_teacher_forcing_starts_each_turn_from_the_reference() -> None:
    # The model reads the wrong file in turn 0; forced, turn 1 still starts from the
    # reference's history (its call and result) and passes.
    script = good_script() | {("c1", 0, 0): call("read_file", path="z.txt")}
    model = ScriptedModel(script)
    result = _run(suite(), model, forced=True).result
    record = _record(result)
    assert record.mode == "teacher_forced"
    assert all(t.forced for t in record.turns)
    assert [t.passed for t in record.turns] == [False, True]
    sent = model.at("c1", 1, 0).messages
    assert sent[1]["tool_calls"][0]["arguments"] == {"path": "a.txt"}
    assert json.loads(sent[2]["content"]) == {"text": "A"}
    assert sent[3] == {"role": "assistant", "content": "It says A."}
    again = ScriptedModel(script)
    on_policy = _record(_run(suite(), again).result)
    assert on_policy.mode == "on_policy" and not on_policy.turns[1].forced
    assert again.at("c1", 1, 0).messages[1]["tool_calls"][0]["arguments"] == {"path": "z.txt"}


def test_loop_teacher_forcing_state_comes_from_the_reference() -> None:
    # The check reads state that only the reference's turn 0 sets.
    rule = {
        "when": {"tool": "read_file", "arguments": {"path": "a.txt"}},
        "result": {"text": "A"},
        "update": {"seen": True},
    }
    turns = [{"user": "c1: read a.txt"}, {"user": "c1: say done", "reply": "done"}]
    reference = [REFERENCE[0], {"calls": [], "reply": "done"}]
    checks = {"final_state": {"state": {"seen": True}}}
    data = suite().model_dump(mode="json", by_alias=True, exclude_none=True)
    data["environments"] = {"files": {"kind": "scripted", "rules": [rule]}}
    data["cases"] = [conversation(turns=turns, reference=reference, checks=checks)]
    s = Suite.model_validate(data)
    script = {("c1", 0, 0): text("no"), ("c1", 1, 0): text("done")}
    forced = _record(_run(s, ScriptedModel(script), forced=True).result)
    assert forced.passed, forced.first_failure
    assert forced.final_state == {"files": {"a.txt": "A"}, "seen": True}
    on_policy = _record(_run(s, ScriptedModel(script)).result)
    assert not on_policy.passed and on_policy.first_failure.cause == "state_mismatch"


def test_loop_teacher_forcing_without_reference_runs_on_policy(
    caplog: pytest.LogCaptureFixture,
) -> None:
    s = suite(conversation(reference=None))
    result = _run(s, ScriptedModel(good_script()), forced=True).result
    assert _record(result).mode == "on_policy"
    assert "no reference" in caplog.text


def test_loop_agent_trajectory_takes_the_turn_from_messages() -> None:
    turn0 = [
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "x",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "x", "content": '{"text": "A"}'},
        {"role": "assistant", "content": "It says A."},
    ]
    s = suite(conversation(checks={}))
    script = {("c1", 0, 0): turn0, ("c1", 1, 0): text("no")}
    record = _record(_run(s, ScriptedModel(script)).result)
    assert record.turns[0].passed and record.turns[0].reply == "It says A."
    assert [c.name for c in record.turns[0].calls] == ["read_file"]
    assert not record.turns[1].passed


def _single_case_suite() -> Suite:
    read = {"name": "read_file", "arguments": {"path": "a.txt"}}
    single = {"id": "s1", "prompt": "s1: read a.txt", "expected": read, "system": "Be brief."}
    return suite(conversation(), single)


def test_loop_single_case_is_one_turn_of_one_reply() -> None:
    s = _single_case_suite()
    case = next(c for c in s.cases if c.single)
    # A reply with a call: nothing executes it, the turn (and the case) ends there.
    model = ScriptedModel({("s1", 0, 0): call("read_file", path="a.txt")})
    outcome = _run(s, model, case=case, repeat=2)
    result = outcome.result
    assert result.status is Status.CORRECT and result.conversation is None
    assert [(r.turn, r.step, r.repeat) for r in model.requests] == [(0, 0, 2)]
    assert [m["role"] for m in model.requests[0].messages] == ["system", "user"]
    assert result.raw_response == call("read_file", path="a.txt")
    assert result.latency_ms == pytest.approx(10.0) and result.repeat == 2
    assert outcome.reply is not None and not outcome.unreachable


def test_loop_single_case_failed_request_is_unscored() -> None:
    s = _single_case_suite()
    case = next(c for c in s.cases if c.single)
    timed_out = _run(s, ScriptedModel({("s1", 0, 0): HANG}), case=case, timeout=0.2).result
    assert timed_out.status is Status.TIMEOUT and timed_out.raw_response is None
    assert "no answer within 0.2 s" in (timed_out.error or "")
    errored = _run(s, ScriptedModel({}), case=case).result  # a reply that is an error
    assert errored.status is Status.ERROR and errored.error == "no script"
    assert errored.latency_ms is not None  # no latency told: the runner's own clock
