"""Judging one turn of a conversation: its calls, its reply, its step limit.

A turn that states calls is judged as a single case is, by the judge's core
(`toolgrade.judging._judge.judge_calls`, under the partial rubric), with the tools
offered in that turn; its calls are those of all its steps, in order. An expected call
counts as made only when its result is not an error (`toolgrade.judging._failed_calls`),
unless the turn says a failing call is the point (`expect_error`). A turn that allows
other calls (`allow_other_calls`) is judged on its expected calls alone
(`toolgrade.judging._other_calls`). A turn fails on a failed request, on reaching its
step limit, or on what it stated; its cause is the first that applies of:
`timeout`/`error`, `parse_error`, `uncovered_call` (a failing call no scripted rule
covers), `forbidden_call`, `step_limit`, the judge's status (`extra_calls` read as
`unexpected_call`), and `reply_mismatch`; its message says what happened
(`toolgrade.judging._turn_message`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import Exchange, FailureCause, TurnResult
from toolgrade._core.trusted import construct_trusted
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import PairResult, Status, ToolCall
from toolgrade.environments import TurnRun
from toolgrade.extract import Extraction, ExtractionProblem
from toolgrade.judging._failed_calls import failed_calls, only_made_calls_count
from toolgrade.judging._judge import judge_calls
from toolgrade.judging._other_calls import judge_allowing_others, unordered
from toolgrade.judging._trajectory import describe_call
from toolgrade.judging._turn_message import calls_message
from toolgrade.match import MatchOptions, compare_values
from toolgrade.results import CaseResult
from toolgrade.suite import Case, Suite, SuiteDefaults, Turn

__all__ = ["judge_turn", "reply_problem"]


def judge_turn(
    suite: Suite,
    conversation: Case,
    run: TurnRun,
    *,
    forbidden: bool = False,
    profile: str = "default",
) -> TurnResult:
    """Judge one turn as it ran.

    Args:
        suite: the suite (tools, defaults).
        conversation: the conversation the turn belongs to.
        run: the turn as it ran.
        forbidden: a deciding forbidden call was made in this turn (the turn's cause
            when it fails for another reason than a failed request or a malformed call).
        profile: the matching profile for the turn's calls.

    Returns:
        The turn's result: passed or not, its cause and message, and the pairing.
    """
    turn = conversation.turns[run.index]
    calls = tuple(c for s in run.steps for c in s.calls)
    problems = tuple(e for s in run.steps for e in s.extraction_errors)
    failed = failed_calls(run.steps, expect_error=turn.expect_error) if turn.states_calls else {}
    judged = None
    out_of_order = None
    if turn.states_calls:
        judge = partial(_judge_calls, suite, conversation, run, problems=problems, profile=profile)
        offered = frozenset(t.name for t in suite.tools_for_turn(conversation, run.index))
        judged = _judged(turn, calls, failed, judge, offered)
        if turn.allow_other_calls and not judged.passed and _strict(turn, suite):
            out_of_order = _made_out_of_order(turn, calls, failed, judge, offered)
    problem = reply_problem(turn, run.reply, suite.defaults) if turn.reply is not None else None
    expected = () if judged is None else _expected(judged, turn)
    others = turn.allow_other_calls
    judgement = _Judgement(calls, expected, problems, judged, failed, others, out_of_order)
    cause, message = _cause(run, judgement, problem, forbidden=forbidden)
    return TurnResult(
        index=run.index,
        user=run.user,
        steps=run.steps,
        reply=run.reply,
        passed=cause is None,
        checked=turn.states_anything,
        cause=cause,
        message=message,
        expected=expected,
        pairs=() if judged is None else tuple(_without_credit(p) for p in judged.pairs),
        forced=run.forced,
        expect=turn.expect,
    )


_Judge = Callable[[Turn, tuple[ToolCall, ...]], Verdict]
"""Judges calls against a turn's expectation (the turn, or one expectation of it)."""


def _judged(
    turn: Turn,
    calls: tuple[ToolCall, ...],
    failed: dict[int, str],
    judge: _Judge,
    offered: frozenset[str],
) -> Verdict:
    """The turn's calls judged, under the rule of failed calls and its `allow_other_calls`.

    `offered`: the names of the tools the turn offers.
    """
    others = turn.allow_other_calls
    judge_all = judge_allowing_others(turn, judge, offered) if others else partial(judge, turn)
    expected = turn.expected or ()
    return only_made_calls_count(
        judge_all(calls),
        calls,
        failed,
        judge_again=judge_all,
        expected=expected,
        others_allowed=others,
    )


def _strict(turn: Turn, suite: Suite) -> bool:
    """Whether the turn's calls must come in order."""
    return (turn.order or suite.defaults.order) == "strict"


def _made_out_of_order(
    turn: Turn,
    calls: tuple[ToolCall, ...],
    failed: dict[int, str],
    judge: _Judge,
    offered: frozenset[str],
) -> tuple[ToolCall, ...] | None:
    """The expectation a turn allowing other calls met only out of order, if it did."""
    anyhow = _judged(unordered(turn), calls, failed, judge, offered)
    return _expected(anyhow, turn) if anyhow.passed else None


def _judge_calls(
    suite: Suite,
    conversation: Case,
    run: TurnRun,
    turn: Turn,
    calls: tuple[ToolCall, ...],
    *,
    problems: tuple[ExtractionProblem, ...],
    profile: str,
) -> Verdict:
    """Calls judged against what a turn states (under the partial rubric).

    `turn` is the turn as it runs, or one expectation of it (`_other_calls.expectations`).
    """
    actual: Extraction | tuple[ToolCall, ...] = calls
    if problems:
        fmt = next((s.extraction_format for s in run.steps if s.extraction_format), None)
        actual = Extraction(calls=calls, format=fmt or "none", errors=problems)
    decided = judge_calls(
        turn,
        actual,
        case_id=conversation.id,
        tools=suite.tools_for_turn(conversation, run.index),
        rubric="partial",
        profile=profile,
        defaults=suite.defaults,
        as_case=partial(_turn_case, conversation, turn),
    )
    return decided if isinstance(decided, Verdict) else _verdict_of(decided)


def _expected(verdict: Verdict, turn: Turn) -> tuple[ToolCall, ...]:
    """The expectation the turn was judged against (the best alternative)."""
    return (turn.expected or ()) if verdict.expected is None else verdict.expected


def _turn_case(conversation: Case, turn: Turn) -> Case:
    """A turn as the case a judge profile judges (profiles judge cases)."""
    return Case(
        id=conversation.id,
        prompt=turn.user,
        expected=turn.expected or (),
        alternatives=turn.alternatives,
        order=turn.order,
        category=conversation.category,
        difficulty=conversation.difficulty,
        tags=conversation.tags,
    )


def _verdict_of(result: CaseResult) -> Verdict:
    """The verdict a profile's own `CaseResult` holds."""
    return Verdict(
        result.status,
        result.score,
        pairs=result.pairs,
        details=result.details,
        expected=result.expected,
        alternative=result.alternative,
    )


def _without_credit(pair: PairResult) -> PairResult:
    """A turn's pair: a turn records no credit (it passes or fails)."""
    if pair.credit is None:
        return pair
    return construct_trusted(PairResult, {**pair.__dict__, "credit": None})


def reply_problem(turn: Turn, text: str | None, defaults: SuiteDefaults | None) -> str | None:
    """Why a turn's final text does not meet its `reply`, or None when it does.

    A string must equal the text up to surrounding whitespace; anything else is an
    expected value compared with the text (`{"$contains": "3 files"}`).

    Raises:
        MatcherError: the turn's `reply` is a malformed matcher.

    Examples:
        >>> turn = Turn(user="How many?", reply={"$contains": "3 files"})
        >>> reply_problem(turn, "There are 3 FILES.", None) is None
        True
        >>> print(reply_problem(turn, "Two.", None))
        the reply "Two." does not contain '3 files' (any case)
    """
    expected = turn.reply
    if text is None:
        return "the turn ended without a reply"
    if isinstance(expected, str):
        if expected.strip() == text.strip():
            return None
        return f"the reply {_quoted(text)} is not {_quoted(expected)}"
    trim = defaults.trim_strings if defaults else True
    options = MatchOptions(semantic=True, matchers=True, trim=trim)
    found = compare_values(expected, text, options=options)
    if not found:
        return None
    first = found[0]
    why = first.message or f"is not {_quoted(expected)}"
    return f"the reply {_quoted(text)} {why}"


def _quoted(value: JsonValue) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:76] + '..."'


@dataclass(frozen=True, slots=True)
class _Judgement:
    """The turn's calls as judged: what the failure cause and message are read from."""

    calls: tuple[ToolCall, ...]
    expected: tuple[ToolCall, ...]
    problems: tuple[ExtractionProblem, ...]
    verdict: Verdict | None
    failed: dict[int, str]
    others_allowed: bool = False
    """The turn allows other calls (`Turn.allow_other_calls`)."""
    out_of_order: tuple[ToolCall, ...] | None = None
    """A turn allowing other calls: the expectation it met, but not in order."""


def _cause(
    run: TurnRun, judged: _Judgement, reply: str | None, *, forbidden: bool
) -> tuple[FailureCause | None, str | None]:
    """The turn's failure cause and message, in the documented order; None: it held."""
    if run.error is not None:
        return (Status.TIMEOUT if run.timeout else Status.ERROR), run.error
    verdict = judged.verdict
    calls_failed = verdict is not None and verdict.status != Status.CORRECT
    if not (calls_failed or run.step_limit or reply is not None):
        return None, None
    if verdict is not None and verdict.status == Status.PARSE_ERROR:
        # A problem whose reason was not recorded is a malformed call (`parse_error`).
        first = judged.problems[0] if judged.problems else None
        return Status.PARSE_ERROR, "malformed call" + (
            f": {first.reason or 'parse_error'}: {first.message}" if first is not None else ""
        )
    uncovered = _uncovered(run, judged, verdict) if calls_failed and verdict else None
    if uncovered is not None:
        note = f" ({uncovered.note})" if uncovered.note else ""
        what = f"call {describe_call(uncovered.call)} is covered by no rule"
        return Status.UNCOVERED_CALL, what + note
    if forbidden:
        return Status.FORBIDDEN_CALL, "a forbidden call was made in this turn"
    if run.step_limit:
        n = len(run.steps)
        limit = f"{n} step{'s' if n != 1 else ''}, the limit, and still calling tools"
        return Status.STEP_LIMIT, limit
    if calls_failed and verdict is not None:
        status = verdict.status
        cause = Status.UNEXPECTED_CALL if status == Status.EXTRA_CALLS else status
        if judged.out_of_order is not None:
            told = ", then ".join(c.name for c in judged.out_of_order)
            return cause, f"the expected calls were made, but not in order: {told}"
        return cause, calls_message(verdict, judged.calls, judged.expected, judged.failed)
    return Status.REPLY_MISMATCH, reply


def _uncovered(run: TurnRun, judgement: _Judgement, judged: Verdict) -> Exchange | None:
    """The first failing call of the turn that no scripted rule covered, if any.

    In a turn that allows other calls, an other call (an extra pair) fails nothing.
    """
    calls = judgement.calls
    others = judgement.others_allowed
    exchanges = [x for s in run.steps for x in s.exchanges]
    failing = sorted(
        j
        for p in judged.pairs
        if p.verdict != "correct"
        and not (others and p.verdict == "extra")
        and (j := p.actual_index) is not None
        and 0 <= j < len(calls)
    )
    if len(exchanges) == len(calls):
        return next((exchanges[j] for j in failing if exchanges[j].outcome == "uncovered"), None)
    wrong = [calls[j] for j in failing]
    return next((x for x in exchanges if x.outcome == "uncovered" and x.call in wrong), None)
