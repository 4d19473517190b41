"""Judging one turn of a conversation: its calls, its reply, its step limit.

A turn that states calls is judged as a single case is, by the judge's core
(`toolgrade.judging._judge.judge_calls`, under the partial rubric), with the tools
offered in that turn; its calls are those of all its steps, in order. A
turn fails on a failed request, on reaching its step limit, or on what it stated;
its cause is the first that applies of: `timeout`/`error`, `parse_error`,
`uncovered_call` (a failing call no scripted rule covers), `forbidden_call`,
`step_limit`, the judge's status (`extra_calls` read as `unexpected_call`), and
`reply_mismatch`.
"""

from __future__ import annotations

import json
from functools import partial

from toolgrade._core.json_data import JsonValue
from toolgrade._core.toolcall import call_at
from toolgrade._core.transcript import Exchange, FailureCause, TurnResult
from toolgrade._core.trusted import construct_trusted
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import PairResult, Status, ToolCall
from toolgrade.environments import TurnRun
from toolgrade.extract import Extraction, ExtractionProblem
from toolgrade.judging._judge import judge_calls
from toolgrade.judging._trajectory import describe_call
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
    judged = (
        _judge_calls(suite, conversation, run, calls, problems, profile)
        if turn.states_calls
        else None
    )
    problem = reply_problem(turn, run.reply, suite.defaults) if turn.reply is not None else None
    expected = () if judged is None else _expected(judged, turn)
    cause, message = _cause(run, calls, expected, problems, judged, problem, forbidden=forbidden)
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
    )


def _judge_calls(
    suite: Suite,
    conversation: Case,
    run: TurnRun,
    calls: tuple[ToolCall, ...],
    problems: tuple[ExtractionProblem, ...],
    profile: str,
) -> Verdict:
    """The turn's calls judged against what it states (under the partial rubric)."""
    turn = conversation.turns[run.index]
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


def _cause(
    run: TurnRun,
    calls: tuple[ToolCall, ...],
    expected: tuple[ToolCall, ...],
    problems: tuple[ExtractionProblem, ...],
    judged: Verdict | None,
    reply: str | None,
    *,
    forbidden: bool,
) -> tuple[FailureCause | None, str | None]:
    """The turn's failure cause and message, in the documented order; None: it held."""
    if run.error is not None:
        return (Status.TIMEOUT if run.timeout else Status.ERROR), run.error
    calls_failed = judged is not None and judged.status != Status.CORRECT
    if not (calls_failed or run.step_limit or reply is not None):
        return None, None
    if judged is not None and judged.status == Status.PARSE_ERROR:
        # A problem whose reason was not recorded is a malformed call (`parse_error`).
        first = problems[0] if problems else None
        return Status.PARSE_ERROR, "malformed call" + (
            f": {first.reason or 'parse_error'}: {first.message}" if first is not None else ""
        )
    uncovered = _uncovered(run, calls, judged) if calls_failed and judged is not None else None
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
    if calls_failed and judged is not None:
        status = judged.status
        cause = Status.UNEXPECTED_CALL if status == Status.EXTRA_CALLS else status
        return cause, _calls_message(judged, calls, expected)
    return Status.REPLY_MISMATCH, reply


def _uncovered(run: TurnRun, calls: tuple[ToolCall, ...], judged: Verdict) -> Exchange | None:
    """The first failing call of the turn that no scripted rule covered, if any."""
    exchanges = [x for s in run.steps for x in s.exchanges]
    failing = sorted(
        j
        for p in judged.pairs
        if p.verdict != "correct" and (j := p.actual_index) is not None and 0 <= j < len(calls)
    )
    if len(exchanges) == len(calls):
        return next((exchanges[j] for j in failing if exchanges[j].outcome == "uncovered"), None)
    wrong = [calls[j] for j in failing]
    return next((x for x in exchanges if x.outcome == "uncovered" and x.call in wrong), None)


def _calls_message(
    judged: Verdict, calls: tuple[ToolCall, ...], expected: tuple[ToolCall, ...]
) -> str:
    """What was wrong with the turn's calls (not a malformed call), in one line.

    A plug-in profile's verdict may name no pair, or indices out of range: the message
    then says less, never fails.
    """
    status = judged.status
    if status == Status.UNEXPECTED_CALL:
        return f"no call expected, got {_described(call_at(calls, 0), 'a call')}"
    if status == Status.EXTRA_CALLS:
        extra = next((p.actual_index for p in judged.pairs if p.verdict == "extra"), None)
        return f"extra call {_described(call_at(calls, extra), 'made')}"
    if status == Status.MISSED_CALL:
        missed = (
            call_at(expected, p.expected_index) for p in judged.pairs if p.verdict == "missed"
        )
        names = ", ".join(c.name for c in missed if c is not None)
        return f"{names or 'an expected call'} not called"
    if status == Status.WRONG_TOOL:
        pair = next((p for p in judged.pairs if p.verdict == "wrong_tool"), None)
        if pair is None:
            return "a call of the wrong tool"
        want, got = call_at(expected, pair.expected_index), call_at(calls, pair.actual_index)
        return f"expected {want.name if want else '?'}, got {got.name if got else '?'}"
    details = judged.details
    named = call_at(expected, details[0].call) if details else None
    first = details[0].describe() if details else "arguments differ"
    more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
    return f"{named.name}: {first}{more}" if named else first + more


def _described(call: ToolCall | None, otherwise: str) -> str:
    return describe_call(call) if call is not None else otherwise
