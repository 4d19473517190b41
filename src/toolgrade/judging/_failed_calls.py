"""A turn's failed calls: an expected call counts as made only when its result is not an error.

A call the environment answered with an error makes no expected call of its turn: its
exchange's outcome (`toolgrade._core.transcript.ExchangeOutcome`) is `error` (the tool
raised or failed) or `rejected` (not executed: no such tool, or arguments its schema
refuses). The outcome decides, never the text of the result. Two outcomes are not
failures of the model's call: `injected` (the case failed it on purpose, with `fail`)
and `uncovered` (no scripted rule covers the call: the suite's rules are what is
missing). A turn that is about a failing call says so (`Turn.expect_error`): then every
call counts, whatever its result.

A failed call is still a call the model made: when the other calls meet the expectation,
it is an extra call (`extra_calls`, or `unexpected_call` when no call is expected); when
they do not, the verdict is theirs (an expected call whose only attempt failed is
`missed`), with each failed call an extra pair. In a turn that allows other calls
(`Turn.allow_other_calls`) a failed call is one of those: the verdict and the score are
those of the calls that did not fail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from toolgrade._core.transcript import Exchange, Step
from toolgrade._core.trusted import construct_trusted
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import PairResult, Status, ToolCall

__all__ = ["FAILED_OUTCOMES", "failed_calls", "only_made_calls_count"]

FAILED_OUTCOMES = frozenset({"error", "rejected"})
"""The exchange outcomes of a call that failed: it makes no expected call."""

_WHY_CHARS = 200
"""Characters of a failed call's error kept for the turn's message."""


def failed_calls(steps: Sequence[Step], *, expect_error: bool = False) -> dict[int, str]:
    """The calls of a turn that failed, by their index among its calls, with why each failed.

    Args:
        steps: the turn's steps (each step's exchanges follow its calls, in order; a
            step whose exchanges do not, such as a stored one without them, has none
            failed).
        expect_error: the turn is about a failing call: none counts as failed.

    Examples:
        >>> from toolgrade._core.transcript import Exchange, Step
        >>> call = ToolCall(name="edit_file", arguments={"path": "a.md"})
        >>> error = {"error": "ValueError: the text to replace was not found in a.md"}
        >>> step = Step(calls=(call,), exchanges=(
        ...     Exchange(id="call_0_0_0", call=call, result=error, outcome="error"),))
        >>> failed_calls([step])
        {0: 'ValueError: the text to replace was not found in a.md'}
        >>> failed_calls([step], expect_error=True)
        {}
    """
    if expect_error:
        return {}
    failed: dict[int, str] = {}
    first = 0
    for step in steps:
        if len(step.exchanges) == len(step.calls):
            for k, exchange in enumerate(step.exchanges):
                if exchange.outcome in FAILED_OUTCOMES:
                    failed[first + k] = _why(exchange)
        first += len(step.calls)
    return failed


def _why(exchange: Exchange) -> str:
    """Why a call failed, in the words the model was given (bounded).

    The result's `error`, or the result itself when it is text, else the exchange's note.
    """
    result = exchange.result
    error = result.get("error") if isinstance(result, dict) else result
    text = error if isinstance(error, str) and error.strip() else exchange.note
    text = " ".join((text or f"the call was {exchange.outcome}").split())
    return text if len(text) <= _WHY_CHARS else text[: _WHY_CHARS - 3] + "..."


def only_made_calls_count(
    verdict: Verdict,
    calls: Sequence[ToolCall],
    failed: Mapping[int, str],
    *,
    judge_again: Callable[[tuple[ToolCall, ...]], Verdict],
    expected: Sequence[ToolCall],
    others_allowed: bool = False,
) -> Verdict:
    """A turn's verdict under the rule of failed calls (see the module's help).

    Args:
        verdict: the verdict on all the turn's calls.
        calls: the turn's calls.
        failed: the calls that failed (`failed_calls`).
        judge_again: judges a list of calls against the turn's expectation.
        expected: the turn's own expected calls (its primary expectation).
        others_allowed: the turn allows other calls: a failed call fails nothing by
            itself (`judge_again` judges so too).

    Returns:
        `verdict` itself when no failed call made an expected call in it; else the
        verdict on the calls that did not fail, with the failed ones as extra pairs.
    """
    if not any(p.verdict == "correct" and p.actual_index in failed for p in verdict.pairs):
        return verdict
    kept = [j for j in range(len(calls)) if j not in failed]
    again = judge_again(tuple(calls[j] for j in kept))
    pairs = tuple(_moved(p, kept) for p in again.pairs) + tuple(
        PairResult(expected_index=None, actual_index=j, verdict="extra") for j in sorted(failed)
    )
    if others_allowed:
        return replace(again, pairs=pairs)
    status = again.status
    if status is Status.CORRECT:
        met = expected if again.expected is None else again.expected
        status = Status.EXTRA_CALLS if met else Status.UNEXPECTED_CALL
    return replace(again, status=status, score=0.0, pairs=pairs)


def _moved(pair: PairResult, kept: Sequence[int]) -> PairResult:
    """A pair of the calls that did not fail, its actual index put back among all calls."""
    j = pair.actual_index
    if j is None or not 0 <= j < len(kept):
        return pair  # a plug-in profile's pair may name no call, or one out of range
    return construct_trusted(PairResult, {**pair.__dict__, "actual_index": kept[j]})
