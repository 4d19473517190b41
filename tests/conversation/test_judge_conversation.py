"""Judging whole conversations: turn verdicts, every failure cause, score and progress."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import Exchange, ExchangeOutcome, Step
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import PairResult, Status, ToolCall
from toolgrade.environments._types import TurnRun
from toolgrade.errors import ConfigError, SuiteError
from toolgrade.judging import register_profile
from toolgrade.judging._conversation import conversation_result, judge_conversation
from toolgrade.judging._profiles import ProfileRegistry
from toolgrade.results import CaseResult
from toolgrade.suite import Case, Conversation, Suite, ToolSpec


def _schema(**props: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {"type": v} for k, v in props.items()},
        "required": list(props),
    }


READ = ToolSpec(name="read_file", parameters=_schema(path="string"))
WRITE = ToolSpec(name="write_file", parameters=_schema(path="string", content="string"))
DELETE = ToolSpec(name="delete_file", parameters=_schema(path="string"))
SUITE = Suite(schema_version=2, name="s", tools=[READ, WRITE, DELETE])


def _call(name: str, **arguments: JsonValue) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


def _step(
    *calls: ToolCall,
    outcome: ExchangeOutcome = "ok",
    errors: tuple[str, ...] = (),
    latency: float | None = None,
    error: str | None = None,
) -> Step:
    exchanges = tuple(
        Exchange(id=f"call_{k}", call=c, result="ok", outcome=outcome) for k, c in enumerate(calls)
    )
    return Step(
        calls=calls,
        exchanges=exchanges,
        extraction_format="hermes" if calls else "none",
        extraction_errors=errors,
        latency_ms=latency,
        error=error,
    )


def _run(index: int, *steps: Step, reply: str | None = "done", **flags: Any) -> TurnRun:
    """A turn: the given steps with calls, then a final reply step (unless it ended)."""
    ended = flags.get("error") is not None or flags.get("step_limit", False)
    closing = () if ended or reply is None else (_step(),)
    return TurnRun(
        index=index,
        user=f"user {index}",
        steps=(*steps, *closing),
        reply=None if ended else reply,
        **flags,
    )


READ_A = _call("read_file", path="a.md")


def _conversation(**fields: Any) -> Conversation:
    fields.setdefault(
        "turns",
        [
            {"user": "user 0", "expected": {"name": "read_file", "arguments": {"path": "a.md"}}},
            {"user": "user 1", "reply": {"$contains": "done"}},
        ],
    )
    return Conversation.model_validate({"id": "conv-1", **fields})


def _judge(
    conversation: Conversation,
    runs: list[TurnRun],
    *,
    initial: JsonValue = None,
    final: JsonValue = None,
    **options: Any,
) -> Verdict:
    return judge_conversation(
        SUITE,
        conversation,
        runs,
        initial_state={} if initial is None else initial,
        final_state={} if final is None else final,
        **options,
    )


def test_judge_all_turns_pass_correct() -> None:
    verdict = _judge(_conversation(), [_run(0, _step(READ_A)), _run(1, reply="all done")])
    assert verdict.status == Status.CORRECT
    assert verdict.score == 1.0
    record = verdict.record
    assert record.passed
    assert record.progress == 1.0
    assert record.first_failure is None
    assert [c.name for c in record.checks] == ["turns"]
    assert record.turns[0].pairs[0].verdict == "correct"
    assert record.turns[1].checked
    assert record.total_turns == 2
    assert record.mode == "on_policy"


FAILURES: list[tuple[str, list[TurnRun], str, str]] = [
    ("wrong_tool", [_run(0, _step(_call("write_file", path="a.md", content="")))], "wrong_tool",
     "expected read_file, got write_file"),
    ("wrong_args", [_run(0, _step(_call("read_file", path="b.md")))], "wrong_args",
     'read_file: $.path: expected "a.md", got "b.md"'),
    ("missed", [_run(0)], "missed_call", "read_file not called"),
    ("extra", [_run(0, _step(READ_A), _step(READ_A))], "unexpected_call",
     'extra call read_file({"path": "a.md"})'),
    ("parse", [_run(0, _step(errors=("parse_error: bad JSON",)))], "parse_error",
     "malformed call: parse_error: bad JSON"),
    ("uncovered", [_run(0, _step(_call("read_file", path="b.md"), outcome="uncovered"))],
     "uncovered_call", 'call read_file({"path": "b.md"}) is covered by no rule'),
    ("step_limit", [_run(0, _step(READ_A), _step(READ_A), step_limit=True)], "step_limit",
     "2 steps, the limit, and still calling tools"),
    ("timeout", [_run(0, _step(READ_A), error="timed out after 5 s", timeout=True)], "timeout",
     "timed out after 5 s"),
    ("error", [_run(0, error="HTTP 500")], "error", "HTTP 500"),
    ("reply", [_run(0, _step(READ_A)), _run(1, reply="no idea")], "reply_mismatch",
     "the reply \"no idea\" does not contain 'done' (any case)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("runs", "cause", "message"),
    [f[1:] for f in FAILURES],
    ids=[f[0] for f in FAILURES],
)
def test_judge_turn_failure_cause(runs: list[TurnRun], cause: str, message: str) -> None:
    verdict = _judge(_conversation(), runs)
    first = verdict.record.first_failure
    assert first is not None
    assert (first.cause, first.message) == (cause, message)
    assert first.turn == runs[-1].index
    assert verdict.status == Status(cause)
    assert not verdict.record.passed
    failed = verdict.record.turns[-1]
    assert (failed.passed, failed.cause) == (False, cause)


def test_judge_unexpected_call_when_none_allowed() -> None:
    conversation = _conversation(turns=[{"user": "hi", "expected": [], "reply": "hello"}])
    verdict = _judge(conversation, [_run(0, _step(READ_A), reply="hello")])
    assert verdict.record.first_failure is not None
    assert verdict.record.first_failure.cause == "unexpected_call"
    assert (
        verdict.record.first_failure.message == 'no call expected, got read_file({"path": "a.md"})'
    )


def test_judge_blames_step_of_failing_call() -> None:
    runs = [_run(0, _step(READ_A), _step(_call("delete_file", path="x")))]
    verdict = _judge(_conversation(), runs)
    first = verdict.record.first_failure
    assert first is not None
    assert (first.cause, first.turn, first.step, first.check) == ("unexpected_call", 0, 1, "turns")


def test_judge_timeout_unscored_and_later_turns_unreached() -> None:
    verdict = _judge(_conversation(), [_run(0, error="timed out", timeout=True)])
    assert verdict.status == Status.TIMEOUT
    assert verdict.score == 0.0
    assert verdict.record.progress == 0.0
    assert len(verdict.record.turns) == 1
    turns_check = verdict.record.checks[0]
    assert turns_check.message == "turn 1: timeout: timed out (and 1 more failing turns)"


def test_judge_error_in_unstated_turn_still_fails() -> None:
    conversation = _conversation(turns=["hi", "bye"])
    verdict = _judge(conversation, [_run(0), _run(1, error="connection dropped")])
    assert verdict.status == Status.ERROR
    assert not verdict.record.passed
    assert verdict.record.progress == 0.5


def test_judge_uncovered_call_that_passes_is_not_a_failure() -> None:
    runs = [_run(0, _step(READ_A, outcome="uncovered")), _run(1)]
    assert _judge(_conversation(), runs).status == Status.CORRECT


def test_judge_forbidden_call_in_failing_turn_is_its_cause() -> None:
    conversation = _conversation(checks={"forbidden": [{"tool": "delete_file"}]})
    runs = [_run(0, _step(_call("delete_file", path="a.md")))]
    first = _judge(conversation, runs).record.first_failure
    assert first is not None
    assert (first.cause, first.turn, first.step) == ("forbidden_call", 0, 0)


def test_judge_forbidden_call_in_passing_turn_fails_end_check() -> None:
    conversation = _conversation(
        checks={"forbidden": [{"tool": "delete_file", "arguments": {"path": {"$not": "tmp"}}}]}
    )
    runs = [_run(0, _step(READ_A)), _run(1, _step(_call("delete_file", path="src")))]
    verdict = _judge(conversation, runs)
    first = verdict.record.first_failure
    assert first is not None
    assert (first.cause, first.check, first.turn, first.step) == (
        "forbidden_call",
        "forbidden",
        1,
        0,
    )
    assert first.message == 'forbidden call delete_file({"path": "src"}) in turn 2, step 1'
    assert verdict.record.progress == 1.0
    assert verdict.score == pytest.approx(2 / 3)  # two turns held, forbidden failed


def test_judge_forbidden_not_deciding_is_no_cause() -> None:
    conversation = _conversation(
        checks={"forbidden": [{"tool": "delete_file"}], "success": ["turns"]}
    )
    runs = [_run(0, _step(READ_A)), _run(1, _step(_call("delete_file", path="x")))]
    verdict = _judge(conversation, runs)
    assert verdict.status == Status.CORRECT
    forbidden = verdict.record.checks[-1]
    assert (forbidden.name, forbidden.passed, forbidden.deciding) == ("forbidden", False, False)


def _stateful(**checks: Any) -> Conversation:
    return _conversation(turns=["do it"], checks=checks)


def test_judge_final_state_mismatch_and_match() -> None:
    conversation = _stateful(final_state={"state": {"files": {"a.md": {"$contains": "new"}}}})
    good = _judge(conversation, [_run(0)], final={"files": {"a.md": "NEW text"}})
    assert good.status == Status.CORRECT
    bad = _judge(conversation, [_run(0)], final={"files": {"a.md": "old"}})
    assert bad.status == Status.STATE_MISMATCH
    first = bad.record.first_failure
    assert first is not None
    assert (first.check, first.turn) == ("final_state", None)
    assert bad.record.checks[1].details[0].path == '$.files["a.md"]'
    assert bad.record.final_state == {"files": {"a.md": "old"}}


def test_judge_unchanged_mismatch() -> None:
    conversation = _stateful(unchanged=["/files/keep.md"])
    verdict = _judge(
        conversation, [_run(0)], initial={"files": {"keep.md": "x"}}, final={"files": {}}
    )
    assert verdict.status == Status.STATE_MISMATCH
    assert verdict.record.initial_state == {"files": {"keep.md": "x"}}


@pytest.mark.parametrize(
    ("calls", "cause"),
    [
        ([_call("read_file", path="b.md")], "wrong_args"),
        ([], "missed_call"),
        ([READ_A, READ_A], "unexpected_call"),
    ],
)
def test_judge_trajectory_causes(calls: list[ToolCall], cause: str) -> None:
    conversation = _stateful(trajectory={"calls": [READ_A.to_dict()], "mode": "exact"})
    verdict = _judge(conversation, [_run(0, *(_step(c) for c in calls))])
    assert verdict.status == Status(cause)
    first = verdict.record.first_failure
    assert first is not None
    assert first.check == "trajectory"


def test_judge_max_calls_is_unexpected_call() -> None:
    conversation = _stateful(max_calls=1)
    assert _judge(conversation, [_run(0, _step(READ_A))]).status == Status.CORRECT
    verdict = _judge(conversation, [_run(0, _step(READ_A, READ_A))])
    assert verdict.status == Status.UNEXPECTED_CALL
    assert verdict.record.first_failure is not None
    assert verdict.record.first_failure.message == "2 calls, more than the 1 allowed"


def test_judge_checks_in_order_with_deciding_flags() -> None:
    conversation = _conversation(
        checks={
            "max_calls": 5,
            "forbidden": [{"tool": "delete_file"}],
            "final_state": {"state": {}},
            "unchanged": ["/a"],
            "trajectory": {"calls": [READ_A.to_dict()]},
            "success": ["final_state", "max_calls"],
        }
    )
    verdict = _judge(conversation, [_run(0, _step(READ_A)), _run(1)])
    names = [(c.name, c.deciding) for c in verdict.record.checks]
    assert names == [
        ("turns", False),
        ("final_state", True),
        ("unchanged", False),
        ("trajectory", False),
        ("forbidden", False),
        ("max_calls", True),
    ]


def test_judge_success_subset_ignores_failing_turns_for_pass() -> None:
    conversation = _conversation(
        checks={"final_state": {"state": {"done": True}}, "success": ["final_state"]}
    )
    runs = [_run(0, _step(_call("read_file", path="zzz"))), _run(1, reply="nope")]
    verdict = _judge(conversation, runs, final={"done": True})
    assert verdict.status == Status.CORRECT
    assert verdict.score == 1.0
    assert verdict.record.progress == 0.0  # progress still counts every turn
    turns_check = verdict.record.checks[0]
    assert (turns_check.passed, turns_check.deciding) == (False, False)


def test_judge_failing_turn_gives_cause_even_when_not_deciding() -> None:
    conversation = _conversation(
        checks={"final_state": {"state": {"done": True}}, "success": ["final_state"]}
    )
    runs = [_run(0, _step(_call("read_file", path="zzz"))), _run(1)]
    verdict = _judge(conversation, runs, final={"done": False})
    first = verdict.record.first_failure
    assert first is not None
    assert (first.cause, first.turn, first.check) == ("wrong_args", 0, None)


def test_judge_score_partial_counts_each_stated_turn() -> None:
    conversation = _conversation(
        turns=[
            {"user": "a", "expected": READ_A.to_dict()},
            {"user": "b", "reply": "ok"},
            {"user": "c", "reply": "ok"},
            "d",
        ],
        checks={"max_calls": 0},
    )
    runs = [_run(0, _step(READ_A)), _run(1, reply="ok"), _run(2, reply="bad"), _run(3)]
    verdict = _judge(conversation, runs)
    # Deciding units: three stated turns (two held) and max_calls (failed): 2 / 4.
    assert verdict.score == pytest.approx(0.5)
    assert verdict.record.progress == pytest.approx(3 / 4)
    binary = _judge(conversation, runs, rubric="binary")
    assert binary.score == 0.0
    assert binary.rubric == "binary"


def test_judge_score_binary_from_conversation_rubric() -> None:
    conversation = _conversation(rubric="binary")
    verdict = _judge(conversation, [_run(0, _step(READ_A)), _run(1, reply="nope")])
    assert verdict.score == 0.0
    assert verdict.rubric == "binary"


def test_judge_step_limit_in_unstated_turn_costs_a_unit() -> None:
    conversation = _conversation(turns=[{"user": "a", "reply": "ok"}, "b"])
    runs = [_run(0, reply="ok"), _run(1, _step(READ_A), step_limit=True)]
    verdict = _judge(conversation, runs)
    assert verdict.status == Status.STEP_LIMIT
    assert verdict.score == pytest.approx(0.5)


def test_judge_teacher_forced_recorded() -> None:
    runs = [
        TurnRun(index=0, user="u0", steps=(_step(READ_A), _step()), reply="done", forced=True),
        TurnRun(index=1, user="u1", steps=(_step(),), reply="done", forced=True),
    ]
    verdict = _judge(_conversation(), runs, mode="teacher_forced")
    assert verdict.record.mode == "teacher_forced"
    assert all(t.forced for t in verdict.record.turns)
    assert verdict.status == Status.CORRECT


def test_judge_alternatives_and_tools_offered_per_turn() -> None:
    conversation = _conversation(
        tools=["read_file"],
        turns=[
            {
                "user": "a",
                "expected": {"name": "read_file", "arguments": {"path": "x"}},
                "alternatives": [{"name": "write_file", "arguments": {"path": "x"}}],
                "add_tools": ["write_file"],
            }
        ],
    )
    verdict = _judge(conversation, [_run(0, _step(_call("write_file", path="x", content="")))])
    assert verdict.status == Status.CORRECT
    assert verdict.record.turns[0].expected[0].name == "write_file"


def test_judge_prf_against_reference() -> None:
    conversation = _conversation(
        reference=[{"calls": [READ_A.to_dict()], "reply": "done"}, {"calls": [], "reply": "done"}]
    )
    runs = [_run(0, _step(READ_A), _step(_call("read_file", path="b"))), _run(1)]
    record = _judge(conversation, runs).record
    assert (record.precision, record.recall) == (0.5, 1.0)
    assert record.f1 == pytest.approx(2 / 3)
    assert _judge(_conversation(), runs).record.precision is None


def test_judge_malformed_matcher_is_suite_error() -> None:
    conversation = _stateful(final_state={"state": {"a": {"$regex": "("}}})
    with pytest.raises(SuiteError) as info:
        _judge(conversation, [_run(0)], final={"a": "x"})
    assert info.value.case_id == "conv-1"


def test_conversation_result_fields() -> None:
    conversation = _conversation(
        category="edit",
        tags=("t1",),
        difficulty="hard",
        reference=[{"calls": [READ_A.to_dict()]}, {"calls": []}],
    )
    runs = [_run(0, _step(READ_A, latency=10.0), _step(latency=5.0)), _run(1, reply="done")]
    runs[0] = TurnRun(index=0, user="user 0", steps=runs[0].steps[:2], reply="done")
    verdict = _judge(conversation, runs)
    result = conversation_result(conversation, verdict)
    assert result.case_id == "conv-1"
    assert result.status == Status.CORRECT
    assert result.rubric == "partial"
    assert result.expected == (READ_A,)
    assert result.actual == (READ_A,)
    assert result.primary_tools == ("read_file",)
    assert (result.category, result.difficulty, result.tags) == ("edit", "hard", ("t1",))
    assert result.prompt == [
        {"role": "user", "content": "user 0"},
        {"role": "user", "content": "user 1"},
    ]
    assert result.conversation == verdict.record
    assert result.latency_ms == 15.0
    assert result.extraction_format == "hermes"
    assert result.raw_response is None
    assert result.error is None
    assert "conversation" in result.model_dump(mode="json")


def test_conversation_result_error_and_primary_tools_without_reference() -> None:
    conversation = _conversation()
    verdict = _judge(conversation, [_run(0, error="HTTP 500")])
    result = conversation_result(conversation, verdict, repeat=2, rubric="binary")
    assert result.status == Status.ERROR
    assert result.error == "HTTP 500"
    assert result.primary_tools == ("read_file",)
    assert result.expected == ()
    assert (result.repeat, result.rubric) == (2, "binary")


def _fresh_profiles(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty judge-profile registry for the test's duration."""
    monkeypatch.setattr(sys.modules["toolgrade.judging._profiles"], "PROFILES", ProfileRegistry())


def test_turn_under_a_plugin_profile_is_judged_as_a_validated_case(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fresh_profiles(monkeypatch)
    seen: list[Case] = []

    def wrong_tool(case, actual, *, tools, rubric=None, strict=False):  # type: ignore[no-untyped-def]
        seen.append(case)
        pair = PairResult(expected_index=0, actual_index=0, verdict="wrong_tool", credit=0.0)
        return Verdict(Status.WRONG_TOOL, 0.0, pairs=(pair,))

    register_profile("spy", wrong_tool)
    verdict = _judge(
        _conversation(), [_run(0, _step(READ_A)), _run(1, reply="done")], profile="spy"
    )
    (case,) = seen
    assert type(case) is Case and case.id == "conv-1" and case.prompt == "user 0"
    assert case.expected == (READ_A,) and case.single
    assert Case.model_validate(case.model_dump()) == case
    turn = verdict.record.turns[0]  # type: ignore[union-attr]
    assert turn.cause is Status.WRONG_TOOL and turn.message == "expected read_file, got read_file"
    assert [(p.verdict, p.credit) for p in turn.pairs] == [("wrong_tool", None)]
    assert turn.expected == (READ_A,)


@pytest.mark.parametrize(
    ("status", "pairs", "message"),
    [
        (Status.WRONG_TOOL, (), "a call of the wrong tool"),
        (Status.EXTRA_CALLS, (), "extra call made"),
        (Status.UNEXPECTED_CALL, (), 'no call expected, got read_file({"path": "a.md"})'),
        (Status.MISSED_CALL, ((7, None, "missed"),), "an expected call not called"),
        (Status.WRONG_TOOL, ((5, 9, "wrong_tool"),), "expected ?, got ?"),
    ],
)
def test_turn_under_a_plugin_profile_with_a_bare_verdict_never_fails(
    monkeypatch: pytest.MonkeyPatch,
    status: Status,
    pairs: tuple[tuple[int | None, int | None, str], ...],
    message: str,
) -> None:
    _fresh_profiles(monkeypatch)
    told = tuple(
        PairResult(expected_index=e, actual_index=a, verdict=v, credit=0.0)  # type: ignore[arg-type]
        for e, a, v in pairs
    )

    def bare(case, actual, *, tools, rubric=None, strict=False):  # type: ignore[no-untyped-def]
        return Verdict(status, 0.0, pairs=told)

    register_profile("bare", bare)
    verdict = _judge(
        _conversation(), [_run(0, _step(READ_A)), _run(1, reply="done")], profile="bare"
    )
    turn = verdict.record.turns[0]  # type: ignore[union-attr]
    assert not turn.passed and turn.message == message


def test_turn_under_a_profile_giving_its_own_result(monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_profiles(monkeypatch)

    def missed(case, actual, *, tools, rubric=None, strict=False):  # type: ignore[no-untyped-def]
        pair = PairResult(expected_index=0, actual_index=None, verdict="missed", credit=0.0)
        return CaseResult(
            case_id=case.id,
            status=Status.MISSED_CALL,
            score=0.0,
            expected=case.expected,
            pairs=(pair,),
        )

    register_profile("own", missed)
    verdict = _judge(_conversation(), [_run(0), _run(1, reply="done")], profile="own")
    turn = verdict.record.turns[0]  # type: ignore[union-attr]
    assert turn.cause is Status.MISSED_CALL and turn.message == "read_file not called"
    assert [(p.verdict, p.credit) for p in turn.pairs] == [("missed", None)]


@pytest.mark.parametrize(
    ("decided", "first"),
    [
        (
            Verdict(Status.REPLY_MISMATCH, 0.0, message="no done"),
            (Status.REPLY_MISMATCH, "no done", None),
        ),
        (Verdict(Status.EXTRA_CALLS, 0.0), (Status.ERROR, "said failed", None)),
    ],
)
def test_conversation_profile_verdict_decides(
    monkeypatch: pytest.MonkeyPatch, decided: Verdict, first: tuple[Status, str, None]
) -> None:
    _fresh_profiles(monkeypatch)

    def never(case, actual, *, tools, rubric=None, strict=False):  # type: ignore[no-untyped-def]
        raise AssertionError("a conversation its conversation judge decides is not judged again")

    def said(suite, conversation, runs, *, prompt_mode):  # type: ignore[no-untyped-def]
        return decided

    register_profile("said", never, conversation=said)
    verdict = _judge(_conversation(), [_run(0, _step(READ_A)), _run(1)], profile="said")
    assert (verdict.status, verdict.score, verdict.rubric) == (first[0], 0.0, "binary")
    record = verdict.record
    assert record is not None and record.first_failure is not None
    failure = record.first_failure
    assert (failure.cause, failure.message, failure.turn, failure.check) == (*first[:3], "said")
    checks = {c.name: c for c in record.checks}
    assert checks["said"].deciding and not checks["turns"].deciding


def test_conversation_not_of_the_profiles_kind_is_judged_turn_by_turn_by_its_reply_judge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fresh_profiles(monkeypatch)
    asked: list[str] = []

    def wrong_tool(case, actual, *, tools, rubric=None, strict=False):  # type: ignore[no-untyped-def]
        asked.append("reply")
        pair = PairResult(expected_index=0, actual_index=0, verdict="wrong_tool", credit=0.0)
        return Verdict(Status.WRONG_TOOL, 0.0, pairs=(pair,))

    def not_mine(suite, conversation, runs, *, prompt_mode):  # type: ignore[no-untyped-def]
        asked.append("conversation")
        return None

    register_profile("mine", wrong_tool, conversation=not_mine)
    verdict = _judge(_conversation(), [_run(0, _step(READ_A)), _run(1)], profile="mine")
    assert asked == ["conversation", "reply"]
    assert verdict.status is Status.WRONG_TOOL
    assert [c.name for c in verdict.record.checks] == ["turns"]  # type: ignore[union-attr]


def test_unknown_profile_on_a_conversation_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown judge profile 'nope'"):
        _judge(_conversation(), [_run(0, _step(READ_A)), _run(1)], profile="nope")
