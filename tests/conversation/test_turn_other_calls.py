"""A turn that allows other calls: only its expected calls decide (`allow_other_calls`).

The rule (docs/conversations.md, "Other calls"): calls the turn does not expect (a read,
a search, a listing) fail nothing; every expected call must still be made, with the right
arguments, and succeed; under `strict` order the expected calls come in order among the
others. Each row is one turn as it ran and its verdict and message without the flag and
with it, so every row also shows what the flag changes (or that it changes nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import PairResult, Status
from toolgrade.judging._conversation import judge_conversation
from toolgrade.judging._other_calls import others_allowed
from toolgrade.suite import Conversation, Turn

from .test_turn_failed_calls import EDIT_ANY, NOT_FOUND, SUITE, Made, _run, edit, failed, read

INVENTED = {"name": "rename_everywhere", "arguments": {"old": "x"}}
"""A call of a tool no turn offers."""


def edit_of(path: str, old: str = "x") -> dict[str, Any]:
    return {"name": "edit_file", "arguments": {"path": path, "old": old, "new": "y"}}


def edit_at(path: str) -> dict[str, Any]:
    """An edit of `path`, its texts unchecked (as the built-in suite's refactors expect)."""
    return {
        "name": "edit_file",
        "arguments": {"path": path, "old": {"$present": True}, "new": {"$present": True}},
    }


Verdicts = tuple[str, str | None]
"""The conversation's status and the turn's message."""

CORRECT: Verdicts = ("correct", None)


@dataclass(frozen=True)
class Row:
    name: str
    turn: dict[str, Any]
    made: tuple[Made, ...]
    without: Verdicts
    with_flag: Verdicts
    blamed_step: int | None = None  # the step the first failure names, with the flag


ROWS = [
    Row("read-then-edit", {"expected": EDIT_ANY}, (Made(read()), Made(edit())),
        ("unexpected_call", 'extra call read_file({"path": "a.md"})'), CORRECT),
    Row("list-search-read-then-edit", {"expected": EDIT_ANY},
        (Made(read("docs")), Made(read("b.md")), Made(read()), Made(edit())),
        ("unexpected_call", 'extra call read_file({"path": "docs"})'), CORRECT),
    Row("only-the-edit", {"expected": EDIT_ANY}, (Made(edit()),), CORRECT, CORRECT),
    Row("others-but-no-edit", {"expected": EDIT_ANY}, (Made(read()), Made(read("b.md"))),
        ("wrong_tool", "expected edit_file, got read_file"),
        ("missed_call", "edit_file not called")),
    Row("nothing-made", {"expected": EDIT_ANY}, (),
        ("missed_call", "edit_file not called"), ("missed_call", "edit_file not called")),
    Row("read-then-failed-edit", {"expected": EDIT_ANY}, (Made(read()), failed(edit())),
        ("wrong_tool", "expected edit_file, got read_file"),
        ("missed_call", f"edit_file was called but failed: {NOT_FOUND}"), blamed_step=1),
    Row("failed-edit-then-good-edit", {"expected": EDIT_ANY},
        (Made(read()), failed(edit("z")), Made(edit())),
        ("unexpected_call", 'extra call read_file({"path": "a.md"})'), CORRECT),
    Row("failed-edit-then-others", {"expected": EDIT_ANY},
        (failed(edit("z")), Made(read()), Made(read("b.md"))),
        ("wrong_tool", "expected edit_file, got read_file"),
        ("missed_call", f"edit_file was called but failed: {NOT_FOUND}"), blamed_step=0),
    Row("edit-of-the-wrong-file", {"expected": edit_at("a.md")},
        (Made(read()), Made(edit_of("b.md"))),
        ("wrong_args", 'edit_file: $.path: expected "a.md", got "b.md"'),
        ("wrong_args", 'edit_file: $.path: expected "a.md", got "b.md"'), blamed_step=1),
    # Pairing prefers the call that matches: the edit of b.md is an other call.
    Row("edit-of-the-wrong-file-beside-the-right-one", {"expected": edit_at("a.md")},
        (Made(edit_of("b.md")), Made(edit_of("a.md"))),
        ("unexpected_call", 'extra call edit_file({"new": "y", "old": "x", "path": "b.md"})'),
        CORRECT),
    Row("two-files-three-edits", {"expected": [edit_at("a.md"), edit_at("b.md")]},
        (Made(edit_of("a.md")), Made(edit_of("a.md", "q")), Made(read("b.md")),
         Made(edit_of("b.md"))),
        ("unexpected_call", 'extra call edit_file({"new": "y", "old": "q", "path": "a.md"})'),
        CORRECT),
    Row("two-files-one-edited-twice", {"expected": [edit_at("a.md"), edit_at("b.md")]},
        (Made(read()), Made(edit_of("a.md")), Made(edit_of("a.md", "q"))),
        ("wrong_args", 'edit_file: $.path: expected "b.md", got "a.md"'),
        ("wrong_args", 'edit_file: $.path: expected "b.md", got "a.md"'), blamed_step=2),
    Row("two-files-the-second-edit-failed", {"expected": [edit_at("a.md"), edit_at("b.md")]},
        (Made(edit_of("a.md")), failed(edit_of("b.md"), "no such text in b.md"), Made(read())),
        ("wrong_tool", "expected edit_file, got read_file"),
        ("missed_call", "edit_file called 2 of 2 times, but 1 failed: no such text in b.md"),
        blamed_step=1),
    Row("strict-in-order-among-others", {"expected": [read(), EDIT_ANY], "order": "strict"},
        (Made(read("b.md")), Made(read()), Made(read("c.md")), Made(edit())),
        ("unexpected_call", 'extra call read_file({"path": "b.md"})'), CORRECT),
    Row("strict-out-of-order", {"expected": [read(), EDIT_ANY], "order": "strict"},
        (Made(edit()), Made(read())),
        ("wrong_tool", "expected edit_file, got edit_file"),
        ("missed_call", "the expected calls were made, but not in order: read_file, then "
         "edit_file"), blamed_step=0),
    Row("any-order-out-of-order", {"expected": [read(), EDIT_ANY]},
        (Made(edit()), Made(read("b.md")), Made(read())),
        ("unexpected_call", 'extra call read_file({"path": "b.md"})'), CORRECT),
    # A call of a tool the turn does not offer is never an other call: it is a wrong
    # tool where an expected call is missing, an extra call where none is.
    Row("invented-tool-instead-of-the-edit", {"expected": EDIT_ANY},
        (Made(read()), Made(INVENTED, "rejected", {"error": "no such tool"})),
        ("wrong_tool", "expected edit_file, got read_file"),
        ("wrong_tool", "expected edit_file, got rename_everywhere, which failed: no such tool"),
        blamed_step=1),
    Row("invented-tool-beside-the-edit", {"expected": EDIT_ANY},
        (Made(read()), Made(INVENTED, "rejected", {"error": "no such tool"}), Made(edit())),
        ("unexpected_call", 'extra call read_file({"path": "a.md"})'),
        ("unexpected_call", 'extra call rename_everywhere({"old": "x"}), which failed: no such tool'),
        blamed_step=1),
    # An other call that no scripted rule covers is not the turn's failure.
    Row("uncovered-other-call", {"expected": EDIT_ANY},
        (Made(read(), "uncovered", {"error": "no result for this call"}),),
        ("uncovered_call", 'call read_file({"path": "a.md"}) is covered by no rule'),
        ("missed_call", "edit_file not called")),
    # The score of an expectation counts its own calls only: three reads do not make
    # the alternative of three reads (of another file) closer than the edit that was made.
    Row("alternative-not-preferred-for-pairing-more-calls",
        {"expected": edit_of("a.md"), "alternatives": [[read("q.md")] * 3]},
        (Made(read()), Made(read("b.md")), Made(read("c.md")), Made(edit_of("a.md"))),
        ("wrong_args", 'read_file: $.path: expected "q.md", got "a.md" (and 2 more)'), CORRECT),
    Row("an-alternative-met-among-others",
        {"expected": edit_at("a.md"),
         "alternatives": [{"name": "delete_file", "arguments": {"path": "a.md"}}]},
        (Made(read()), Made({"name": "delete_file", "arguments": {"path": "a.md"}})),
        ("unexpected_call", 'extra call read_file({"path": "a.md"})'), CORRECT),
]  # fmt: skip


def _judged(turn: dict[str, Any], made: tuple[Made, ...], *, flag: bool) -> Verdict:
    written = {"user": "do it", **turn, **({"allow_other_calls": True} if flag else {})}
    conversation = Conversation.model_validate({"id": "conv", "turns": [written]})
    return judge_conversation(SUITE, conversation, [_run(made)], initial_state={}, final_state={})


@pytest.mark.parametrize("flag", [False, True], ids=["without", "with"])
@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_turn_allowing_other_calls_verdict_and_message(row: Row, flag: bool) -> None:
    verdict = _judged(row.turn, row.made, flag=flag)
    record = verdict.record
    assert record is not None
    turn = record.turns[0]
    status, message = row.with_flag if flag else row.without
    assert (verdict.status.value, turn.message) == (status, message)
    assert turn.passed is (status == "correct")
    # Other calls are not penalised: a turn that holds counts whole.
    assert (record.progress, verdict.score) == ((1.0, 1.0) if turn.passed else (0.0, 0.0))
    # Every call of the turn is in one pair, and a failed call never in a correct one.
    assert sorted(p.actual_index for p in turn.pairs if p.actual_index is not None) == list(
        range(len(row.made))
    )
    for pair in turn.pairs:
        if pair.verdict == "correct" and pair.actual_index is not None:
            assert row.made[pair.actual_index].outcome not in ("error", "rejected")
    if flag and not turn.passed:
        first = record.first_failure
        assert first is not None and first.step == row.blamed_step


def test_turn_allowing_other_calls_reports_the_expectation_it_met() -> None:
    row = next(r for r in ROWS if r.name == "an-alternative-met-among-others")
    verdict = _judged(row.turn, row.made, flag=True)
    assert verdict.record is not None
    [turn] = verdict.record.turns
    assert [c.name for c in turn.expected] == ["delete_file"]
    pairs = [(p.expected_index, p.actual_index, p.verdict) for p in turn.pairs]
    assert pairs == [(0, 1, "correct"), (None, 0, "extra")]


@pytest.mark.parametrize("edited", [True, False], ids=["turn-held", "turn-failed"])
def test_turn_allowing_other_calls_still_fails_on_a_forbidden_call(edited: bool) -> None:
    # A forbidden call is no other call: the conversation fails on it, and a turn that
    # fails besides names it as its cause.
    conversation = Conversation.model_validate(
        {
            "id": "conv",
            "turns": [{"user": "fix a.md", "expected": EDIT_ANY, "allow_other_calls": True}],
            "checks": {"forbidden": [{"tool": "delete_file"}]},
        }
    )
    made = (Made({"name": "delete_file", "arguments": {"path": "b.md"}}),)
    made += (Made(edit()),) if edited else ()
    verdict = judge_conversation(
        SUITE, conversation, [_run(made)], initial_state={}, final_state={}
    )
    assert verdict.record is not None
    [turn] = verdict.record.turns
    forbidden = next(c for c in verdict.record.checks if c.name == "forbidden")
    assert (verdict.status, forbidden.passed, turn.passed) == (
        Status.FORBIDDEN_CALL,
        False,
        edited,
    )
    if not edited:
        assert turn.message == "a forbidden call was made in this turn"


def test_turn_allowing_other_calls_counts_in_progress_and_score() -> None:
    # Two turns: the first reads before its edit, the second edits only. With the flag
    # both hold (progress and score 1); without it the first fails on its read.
    turns = [{"user": "fix a.md", "expected": EDIT_ANY}, {"user": "again", "expected": EDIT_ANY}]
    runs = [_run((Made(read()), Made(edit()))), _run((Made(edit()),))]
    runs[1] = type(runs[1])(index=1, user="again", steps=runs[1].steps, reply="done")
    seen = {}
    for flag in (False, True):
        written = [{**t, "allow_other_calls": flag} for t in turns]
        conversation = Conversation.model_validate({"id": "conv", "turns": written})
        verdict = judge_conversation(SUITE, conversation, runs, initial_state={}, final_state={})
        assert verdict.record is not None
        seen[flag] = ([t.passed for t in verdict.record.turns], verdict.record.progress)
        seen[flag] += (verdict.score,)
    assert seen == {False: ([False, True], 0.5, 0.5), True: ([True, True], 1.0, 1.0)}


def _pair(i: int | None, j: int | None, kind: str) -> PairResult:
    return PairResult.model_validate({"expected_index": i, "actual_index": j, "verdict": kind})


# One expectation's verdict (status, pairs) -> with other calls allowed (status, score).
SCORES = [
    ("extra-calls-not-a-penalty", Status.EXTRA_CALLS,
     [_pair(0, 2, "correct"), _pair(None, 0, "extra"), _pair(None, 1, "extra")],
     "correct", 1.0),
    ("other-arguments-count-half", Status.WRONG_ARGS,
     [_pair(0, 0, "correct"), _pair(1, 3, "wrong_args"), _pair(None, 1, "extra")],
     "wrong_args", 0.75),
    ("leftovers-are-a-missed-call-and-an-other-call", Status.WRONG_TOOL,
     [_pair(0, 1, "correct"), _pair(1, 0, "wrong_tool")], "missed_call", 0.5),
    ("a-malformed-call-stays-a-parse-error", Status.PARSE_ERROR,
     [_pair(0, 0, "wrong_tool")], "parse_error", 0.0),
    ("no-pairs-extra-calls-are-correct", Status.EXTRA_CALLS, [], "correct", 1.0),
    ("no-pairs-other-status-kept", Status.WRONG_ARGS, [], "wrong_args", 0.25),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "status", "pairs", "now", "score"), SCORES, ids=[s[0] for s in SCORES]
)
def test_others_allowed_scores_the_expected_calls_alone(
    name: str, status: Status, pairs: list[PairResult], now: str, score: float
) -> None:
    verdict = others_allowed(Verdict(status, 0.25, pairs=tuple(pairs)))
    assert (verdict.status.value, verdict.score) == (now, score)
    assert not [p for p in verdict.pairs if p.verdict == "wrong_tool"]
    calls_before = sorted(p.actual_index for p in pairs if p.actual_index is not None)
    calls_after = sorted(p.actual_index for p in verdict.pairs if p.actual_index is not None)
    assert calls_after == calls_before


def test_allow_other_calls_is_written_only_when_set() -> None:
    conversation = Conversation.model_validate(
        {
            "id": "conv",
            "turns": [
                {"user": "fix it", "expected": EDIT_ANY, "allow_other_calls": True},
                {"user": "again", "expected": EDIT_ANY},
            ],
        }
    )
    written = conversation.model_dump(mode="json", exclude_none=True)
    assert written["turns"][0]["allow_other_calls"] is True
    assert "allow_other_calls" not in written["turns"][1]
    assert Conversation.model_validate(written) == conversation


def test_allow_other_calls_with_any_call_is_refused() -> None:
    with pytest.raises(ValueError, match="any_call accepts every call already"):
        Turn(user="anything", any_call=True, allow_other_calls=True)
