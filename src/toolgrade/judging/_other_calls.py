"""A turn that allows other calls (`Turn.allow_other_calls`): only its expected calls decide.

The turn's calls are paired with each expectation (its `expected`, each alternative) as any
turn's are: an optimal assignment, in sequence when the order is `strict`. A call of an
offered tool left unpaired is an *other* call (a read, a search, a listing): it is recorded
as an `extra` pair and fails nothing. Where the pairing leaves both an expected call and
such a call over, it does not pair them as a wrong tool: the expected call is missed, the
call is an other one. A call of a tool the turn does not offer is never an other call:
paired with an expected call it is a wrong tool, as in any turn, and left over it is an
extra call that fails the turn (`extra_calls`). A call paired with an expected call but with
other arguments still fails the turn; the pairing prefers a call that matches, so a wrong
call beside a right one is an other call. Under `strict` order the expected calls must come
in their order among the others (a subsequence of the calls made).

The score is the credit of the expected calls alone: 1 for a correct pair, 0.5 for one with
other arguments, over the number expected; other calls never lower it. It picks the
expectation judged against (the best-scoring, the earliest on ties), so a turn that read
five files before its edit is judged against the edit, not against an alternative that
happens to pair more of the calls. A turn that holds counts whole, whatever other calls it
made; when it fails, an other call is not the step to blame (`blamed_pairs`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from toolgrade._core.memo import IdentityMemo
from toolgrade._core.transcript import TurnResult
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import PairKind, PairResult, Status, ToolCall
from toolgrade.match import WRONG_ARGS_CREDIT
from toolgrade.suite import Turn

__all__ = [
    "blamed_pairs",
    "expectations",
    "judge_allowing_others",
    "others_allowed",
    "unordered",
]


_SPLIT: IdentityMemo[Turn, tuple[Turn, ...]] = IdentityMemo(1024)
_UNORDERED: IdentityMemo[Turn, Turn] = IdentityMemo(1024)


def expectations(turn: Turn) -> tuple[Turn, ...]:
    """The turn's expectation and each alternative, each a turn of its own (remembered).

    Examples:
        >>> read = {"name": "read_file", "arguments": {"path": "a.md"}}
        >>> turn = Turn(user="go", expected=read, alternatives=[[read, read]],
        ...             allow_other_calls=True)
        >>> [len(t.expected or ()) for t in expectations(turn)]
        [1, 2]
    """
    return _SPLIT.get(turn, _split)


def _split(turn: Turn) -> tuple[Turn, ...]:
    lists = (turn.expected or (), *turn.alternatives)
    return tuple(turn.model_copy(update={"expected": c, "alternatives": ()}) for c in lists)


def unordered(turn: Turn) -> Turn:
    """The turn with its calls in any order (remembered): to tell a call out of order."""
    return _UNORDERED.get(turn, lambda t: t.model_copy(update={"order": "any"}))


def judge_allowing_others(
    turn: Turn,
    judge: Callable[[Turn, tuple[ToolCall, ...]], Verdict],
    offered: Collection[str],
) -> Callable[[tuple[ToolCall, ...]], Verdict]:
    """A judge of the turn's calls under which other calls fail nothing.

    Args:
        turn: the turn (its expectation, alternatives and order).
        judge: judges calls against one expectation (a turn without alternatives).
        offered: the names of the tools the turn offers (a call of another is never an
            other call).

    Returns:
        A function judging a list of calls: each expectation's verdict made with
        `others_allowed`, the best-scoring one kept (the earliest on ties; the first
        correct one ends the search), with the expectation it is against.
    """
    own = expectations(turn)

    def judged(calls: tuple[ToolCall, ...]) -> Verdict:
        invented = frozenset(j for j, c in enumerate(calls) if c.name not in offered)
        best_index, best = 0, others_allowed(judge(own[0], calls), invented)
        for k in range(1, len(own)):
            if best.status is Status.CORRECT:
                break
            verdict = others_allowed(judge(own[k], calls), invented)
            if (verdict.score, verdict.closeness or 0.0) > (best.score, best.closeness or 0.0):
                best_index, best = k, verdict
        if best_index == 0:
            return replace(best, expected=None, alternative=None)
        return replace(best, expected=own[best_index].expected, alternative=best_index - 1)

    return judged


def others_allowed(verdict: Verdict, invented: Collection[int] = frozenset()) -> Verdict:
    """A verdict on one expectation, with the calls it does not expect failing nothing.

    A `wrong_tool` pair (an expected call and a call the pairing left over) becomes a
    missed call and an extra one, unless the call is of a tool the turn does not offer
    (its index in `invented`). The status is then the expected calls' own: `correct`
    when every one is, else `wrong_tool`, `missed_call`, `wrong_args` in that order; a
    `parse_error` stays; an extra call of a tool not offered makes a turn whose expected
    calls hold `extra_calls`. The score and closeness are the expected calls' credit
    (see the module's help). A verdict that names no pair keeps its status
    (`extra_calls` aside, which is `correct` here) and score.

    Examples:
        >>> def pair(i, j, kind):
        ...     return PairResult(expected_index=i, actual_index=j, verdict=kind)
        >>> extra = Verdict(Status.EXTRA_CALLS, 0.5,
        ...                 pairs=(pair(0, 1, "correct"), pair(None, 0, "extra")))
        >>> v = others_allowed(extra)
        >>> v.status.value, v.score
        ('correct', 1.0)
        >>> wrong = Verdict(Status.WRONG_TOOL, 0.0, pairs=(pair(0, 0, "wrong_tool"),))
        >>> v = others_allowed(wrong)
        >>> v.status.value, [(p.expected_index, p.actual_index, p.verdict) for p in v.pairs]
        ('missed_call', [(0, None, 'missed'), (None, 0, 'extra')])
    """
    if not verdict.pairs:
        if verdict.status is Status.EXTRA_CALLS:
            return replace(verdict, status=Status.CORRECT, score=1.0, closeness=1.0)
        return verdict
    pairs = _untangled(verdict.pairs, invented)
    kinds = [p.verdict for p in pairs if p.expected_index is not None]
    if not kinds:
        return verdict  # nothing expected: no call may be made, and other calls are calls
    correct, near = kinds.count("correct"), kinds.count("wrong_args")
    closeness = (correct + WRONG_ARGS_CREDIT * near) / len(kinds)
    status: Status
    if verdict.status is Status.PARSE_ERROR:
        status = Status.PARSE_ERROR
    elif correct == len(kinds):
        extra = any(p.verdict == "extra" and p.actual_index in invented for p in pairs)
        status = Status.EXTRA_CALLS if extra else Status.CORRECT
        closeness = 0.0 if extra else closeness
    elif "wrong_tool" in kinds:
        status = Status.WRONG_TOOL
    elif "missed" in kinds:
        status = Status.MISSED_CALL
    else:
        status = Status.WRONG_ARGS
    return replace(verdict, status=status, score=closeness, pairs=pairs, closeness=closeness)


def _untangled(pairs: Sequence[PairResult], invented: Collection[int]) -> tuple[PairResult, ...]:
    """The pairs with each `wrong_tool` pair split into a missed call and an extra one.

    A call of a tool not offered (its index in `invented`) is not split off: it stays
    paired as a wrong tool, and one left over is paired with an expected call left
    missed (in order), else listed before the other calls' extra pairs.
    """
    out: list[PairResult] = []
    for p in pairs:
        if (
            p.verdict == "wrong_tool"
            and p.expected_index is not None
            and p.actual_index not in invented
        ):
            out.append(_pair(p.expected_index, None, "missed"))
            if p.actual_index is not None:
                out.append(_pair(None, p.actual_index, "extra"))
        else:
            out.append(p)
    missed = [p for p in out if p.verdict == "missed"]
    stray = [p for p in out if p.verdict == "extra" and p.actual_index in invented]
    for m, x in zip(missed, stray, strict=False):
        out.remove(m)
        out.remove(x)
        out.append(_pair(m.expected_index, x.actual_index, "wrong_tool"))
    out.sort(
        key=lambda p: (
            p.expected_index is None,
            p.expected_index,
            p.actual_index not in invented,
            p.actual_index or 0,
        )
    )
    return tuple(out)


def _pair(expected_index: int | None, actual_index: int | None, kind: PairKind) -> PairResult:
    return PairResult(
        expected_index=expected_index, actual_index=actual_index, verdict=kind, credit=0.0
    )


def blamed_pairs(turn: TurnResult, *, offered: Collection[str] | None) -> list[PairResult]:
    """The pairs of a failed turn that may be blamed for it: those not correct.

    In a turn that allows other calls (`offered`: the tools it offers; None when it
    does not), an other call is blamed only when it is of a tool the turn expects (an
    attempt at an expected call, such as one that failed) or of a tool it does not
    offer: a read before a missed edit is not to blame.
    """
    calls, expected = turn.calls, {c.name for c in turn.expected}

    def other(p: PairResult) -> bool:
        j = p.actual_index
        name = calls[j].name if j is not None and 0 <= j < len(calls) else None
        return p.verdict == "extra" and name not in expected and name in (offered or ())

    return [
        p for p in turn.pairs if p.verdict != "correct" and not (offered is not None and other(p))
    ]
