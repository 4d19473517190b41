"""A turn's verdict says what happened: failed calls make no expected call, counts are told.

The rule (docs/conversations.md, "Judging"): an expected call counts as made only when its
tool result is not an error (outcome `error` or `rejected`), unless the turn sets
`expect_error`; a call failed on purpose (`injected`) or covered by no rule (`uncovered`)
counts. Each row is one turn as it ran, what it expects, and the verdict and message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import Exchange, ExchangeOutcome, Step
from toolgrade._core.vocab import Status, ToolCall
from toolgrade.environments._types import TurnRun
from toolgrade.judging._conversation import judge_conversation
from toolgrade.suite import Conversation, Suite, ToolSpec


def _tool(name: str, *params: str) -> ToolSpec:
    properties = {p: {"type": "string"} for p in params}
    schema = {"type": "object", "properties": properties, "required": list(params)}
    return ToolSpec(name=name, parameters=schema)


SUITE = Suite(
    schema_version=2,
    name="failed-calls",
    tools=[
        _tool("read_file", "path"),
        _tool("edit_file", "path", "old", "new"),
        _tool("delete_file", "path"),
    ],
)

NOT_FOUND = "ValueError: the text to replace was not found in a.md"


def read(path: str = "a.md") -> dict[str, Any]:
    return {"name": "read_file", "arguments": {"path": path}}


def edit(old: str = "x", new: str = "y") -> dict[str, Any]:
    return {"name": "edit_file", "arguments": {"path": "a.md", "old": old, "new": new}}


EDIT_ANY = {
    "name": "edit_file",
    "arguments": {"path": "a.md", "old": {"$present": True}, "new": {"$present": True}},
}


@dataclass(frozen=True)
class Made:
    """One call of the turn and what became of it (one step each)."""

    call: dict[str, Any]
    outcome: ExchangeOutcome = "ok"
    result: JsonValue = "ok"


def failed(call: dict[str, Any], why: str = NOT_FOUND) -> Made:
    return Made(call, "error", {"error": why})


@dataclass(frozen=True)
class Row:
    name: str
    turn: dict[str, Any]
    made: tuple[Made, ...]
    status: str
    message: str | None
    progress: float = field(default=0.0)


ROWS = [
    Row("edit-that-failed-is-not-made", {"expected": EDIT_ANY}, (failed(edit()),),
        "missed_call", f"edit_file was called but failed: {NOT_FOUND}"),
    Row("edit-that-failed-counts-with-expect-error",
        {"expected": EDIT_ANY, "expect_error": True}, (failed(edit()),), "correct", None, 1.0),
    Row("edit-that-worked-is-made", {"expected": EDIT_ANY}, (Made(edit()),), "correct", None,
        1.0),
    Row("rejected-call-is-not-made", {"expected": read()},
        (Made(read(), "rejected", {"error": "invalid arguments: 'path' is required"}),),
        "missed_call", "read_file was called but failed: invalid arguments: 'path' is required"),
    Row("failure-without-error-text-told-by-its-outcome", {"expected": read()},
        (Made(read(), "error", None),), "missed_call",
        "read_file was called but failed: the call was error"),
    Row("injected-failure-counts-as-made", {"expected": [read(), read()]},
        (Made(read(), "injected", {"error": "503 Service Unavailable"}),), "missed_call",
        "read_file called 1 of 2 times"),
    Row("injected-failure-then-retry-is-correct", {"expected": [read(), read()]},
        (Made(read(), "injected", {"error": "503"}), Made(read())), "correct", None, 1.0),
    Row("uncovered-call-counts-as-made", {"expected": read()},
        (Made(read(), "uncovered", {"error": "no result for this call"}),), "correct", None,
        1.0),
    Row("read-then-failed-edit-misses-the-edit",
        {"expected": EDIT_ANY, "alternatives": [[read(), EDIT_ANY]]},
        (Made(read()), failed(edit())), "missed_call",
        f"edit_file was called but failed: {NOT_FOUND}"),
    Row("failed-edit-then-good-edit-is-an-extra-call", {"expected": EDIT_ANY},
        (failed(edit("z")), Made(edit())), "unexpected_call",
        'extra call edit_file({"new": "y", "old": "z", "path": "a.md"}), which failed: '
        + NOT_FOUND),
    Row("failed-call-when-none-expected", {"expected": []},
        (failed({"name": "delete_file", "arguments": {"path": "a.md"}}, "no such file"),),
        "unexpected_call", 'no call expected, got delete_file({"path": "a.md"})'),
    Row("failed-call-of-another-tool-is-a-wrong-tool", {"expected": EDIT_ANY},
        (failed(read(), "no such file"),), "wrong_tool",
        "expected edit_file, got read_file, which failed: no such file"),
    Row("failed-call-with-other-arguments", {"expected": read("b.md")},
        (failed(read(), "FileNotFoundError: a.md"),), "wrong_args",
        'read_file: $.path: expected "b.md", got "a.md", which failed: FileNotFoundError: a.md'),
    Row("called-once-of-twice", {"expected": [read("a.md"), read("b.md")]}, (Made(read()),),
        "missed_call", "read_file called 1 of 2 times"),
    Row("called-twice-one-failed", {"expected": [read("a.md"), read("b.md")]},
        (Made(read()), failed(read("b.md"), "FileNotFoundError: b.md")), "missed_call",
        "read_file called 2 of 2 times, but 1 failed: FileNotFoundError: b.md"),
    Row("called-with-other-arguments-among-several",
        {"expected": [read("a.md"), read("b.md"), read("c.md")]},
        (Made(read()), Made(read("z.md"))), "missed_call",
        'read_file called 2 of 3 times, but 1 with other arguments: $.path: expected "b.md", '
        'got "z.md"'),
    Row("not-called-expected-twice", {"expected": [read(), read()]}, (), "missed_call",
        "read_file not called (expected 2 times)"),
    Row("not-called-two-tools", {"expected": [read(), EDIT_ANY]}, (), "missed_call",
        "read_file, edit_file not called"),
    Row("not-called-one-tool-twice-another-once", {"expected": [read(), EDIT_ANY, read()]},
        (), "missed_call", "edit_file not called; read_file not called (expected 2 times)"),
    Row("other-arguments-told-by-the-judge", {"expected": read("b.md")}, (Made(read()),),
        "wrong_args", 'read_file: $.path: expected "b.md", got "a.md"'),
]  # fmt: skip


def _run(made: tuple[Made, ...]) -> TurnRun:
    steps = []
    for k, m in enumerate(made):
        call = ToolCall.model_validate(m.call)
        exchange = Exchange(id=f"call_0_{k}_0", call=call, result=m.result, outcome=m.outcome)
        steps.append(Step(calls=(call,), exchanges=(exchange,), extraction_format="hermes"))
    steps.append(Step(extraction_format="none"))
    return TurnRun(index=0, user="do it", steps=tuple(steps), reply="done")


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_turn_verdict_and_message(row: Row) -> None:
    conversation = Conversation.model_validate(
        {"id": "conv", "turns": [{"user": "do it", **row.turn}]}
    )
    verdict = judge_conversation(
        SUITE, conversation, [_run(row.made)], initial_state={}, final_state={}
    )
    record = verdict.record
    assert record is not None
    turn = record.turns[0]
    assert (verdict.status.value, turn.message) == (row.status, row.message)
    assert turn.passed is (row.status == "correct")
    assert record.progress == row.progress
    # Every call of the turn is in one pair, and a failed call never in a correct one.
    assert sorted(p.actual_index for p in turn.pairs if p.actual_index is not None) == list(
        range(len(row.made))
    )
    for pair in turn.pairs:
        j = pair.actual_index
        if pair.verdict == "correct" and j is not None and not row.turn.get("expect_error"):
            assert row.made[j].outcome not in ("error", "rejected")


def test_progress_counts_only_turns_whose_expected_calls_succeeded() -> None:
    conversation = Conversation.model_validate(
        {
            "id": "conv",
            "turns": [
                {"user": "fix a.md", "expected": EDIT_ANY},
                {"user": "fix b.md", "expected": EDIT_ANY},
                {"user": "thanks", "reply": {"$contains": "welcome"}},
            ],
        }
    )

    def turn(index: int, *made: Made, reply: str = "done") -> TurnRun:
        run = _run(made)
        return TurnRun(index=index, user=f"user {index}", steps=run.steps, reply=reply)

    runs = [turn(0, failed(edit())), turn(1, Made(edit())), turn(2, reply="welcome")]
    verdict = judge_conversation(SUITE, conversation, runs, initial_state={}, final_state={})
    record = verdict.record
    assert record is not None
    assert [t.passed for t in record.turns] == [False, True, True]
    assert record.progress == pytest.approx(2 / 3)
    assert verdict.status == Status.MISSED_CALL
    first = record.first_failure
    assert first is not None and (first.turn, first.step) == (0, 0)
    assert first.message == f"edit_file was called but failed: {NOT_FOUND}"


def test_expect_error_is_written_only_when_set() -> None:
    conversation = Conversation.model_validate(
        {
            "id": "conv",
            "turns": [
                {"user": "delete it", "expected": read(), "expect_error": True},
                {"user": "again", "expected": read()},
            ],
        }
    )
    written = conversation.model_dump(mode="json", exclude_none=True)
    assert written["turns"][0]["expect_error"] is True
    assert "expect_error" not in written["turns"][1]
    assert Conversation.model_validate(written) == conversation
