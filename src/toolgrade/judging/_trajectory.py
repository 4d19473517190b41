"""The calls of a whole conversation against a reference list (the `trajectory` check).

Two calls are equal when they name the same tool and the actual arguments meet the
reference's, compared as the judge compares them (schema-guided, matchers allowed:
`toolgrade.match`). The modes (`TrajectoryMode`):

- `exact`: the same number of calls, pairwise equal in order;
- `in_order`: the reference is a subsequence of the actual calls (other calls may come
  between); the earliest match of each reference call is taken, which finds a
  subsequence whenever there is one;
- `unordered`: a one-to-one pairing of all calls on both sides, in any order;
- `subset`: each actual call equals a distinct reference call (a call repeated more
  often than the reference makes it is outside it); reference calls may be left out;
- `superset`: each reference call is made by a distinct actual call; others may be made.

Pairings in any order are maximum matchings (`toolgrade.match.align`), never greedy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.vocab import Mismatch, Status, ToolCall
from toolgrade.match import CallJudge, align
from toolgrade.suite import SuiteDefaults, ToolSpec, TrajectoryMode

__all__ = [
    "TrajectoryMatch",
    "compare_trajectory",
    "describe_call",
    "trajectory_prf",
]


@dataclass(frozen=True, slots=True)
class TrajectoryMatch:
    """A trajectory compared with its reference: which calls match, and whether it holds."""

    passed: bool
    """Whether the calls hold the mode."""
    message: str | None = None
    """The first problem in plain words (calls numbered from 1), None when it passed."""
    matched: tuple[tuple[int, int], ...] = ()
    """The equal pairs: (reference index, actual index)."""
    missing: tuple[int, ...] = ()
    """Reference indexes left unmatched (a failure except in `subset`)."""
    unexpected: tuple[int, ...] = ()
    """Actual indexes left unmatched (a failure in `exact`, `unordered` and `subset`)."""
    wrong_args: tuple[int, ...] = ()
    """The `missing` reference indexes whose tool was called, but with other arguments."""
    cause: Status | None = None
    """Why it failed, as a conversation's failure cause: `wrong_args`, `missed_call` or
    `unexpected_call`; None when passed."""


class _Equality:
    """Which actual calls equal which reference calls, each pair compared once."""

    def __init__(
        self,
        actual: Sequence[ToolCall],
        reference: Sequence[ToolCall],
        *,
        tools: Mapping[str, ToolSpec] | None,
        defaults: SuiteDefaults | None,
    ) -> None:
        self.actual = actual
        self.reference = reference
        self._judge = CallJudge(
            actual,
            schemas={name: t.parameters for name, t in (tools or {}).items()},
            offered=None,
            trim=defaults.trim_strings if defaults else True,
            null_is_absent=defaults.null_is_absent if defaults else False,
        )
        self._found: dict[tuple[int, int], list[Mismatch]] = {}

    def differences(self, i: int, j: int) -> list[Mismatch] | None:
        """The argument differences of reference `i` and actual `j`; None: other tools."""
        if self.reference[i].name != self.actual[j].name:
            return None
        found = self._found.get((i, j))
        if found is None:
            found = self._judge.compare(self.reference[i], j)
            self._found[i, j] = found
        return found

    def equal(self, i: int, j: int) -> bool:
        """Whether actual call `j` equals reference call `i`."""
        return self.differences(i, j) == []

    def matching(self) -> list[tuple[int, int]]:
        """A maximum one-to-one pairing of equal calls, in any order."""
        credit = [
            [1.0 if self.equal(i, j) else 0.0 for j in range(len(self.actual))]
            for i in range(len(self.reference))
        ]
        return align(credit)


def compare_trajectory(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    mode: TrajectoryMode,
    *,
    tools: Mapping[str, ToolSpec] | None = None,
    defaults: SuiteDefaults | None = None,
) -> TrajectoryMatch:
    """Compare the calls of a conversation with a reference list under a mode.

    Args:
        actual: every call the model made, in order.
        reference: the reference calls (matchers allowed).
        mode: `exact`, `in_order`, `unordered`, `subset` or `superset`.
        tools: the tools by name, for their schemas (None: compare without schemas).
        defaults: the suite's defaults (`trim_strings`, `null_is_absent`).

    Returns:
        The comparison: passed, the first problem, and which calls matched.

    Raises:
        MatcherError: a reference call holds a malformed matcher.

    Examples:
        >>> ref = [ToolCall(name="ls"), ToolCall(name="read", arguments={"path": "a"})]
        >>> calls = [ToolCall(name="ls"), ToolCall(name="pwd"), ToolCall(name="read",
        ...          arguments={"path": "./a"})]
        >>> compare_trajectory(calls, ref, "in_order").passed
        True
        >>> compare_trajectory(calls, ref, "exact").message
        'call 2: expected read, got pwd'
    """
    eq = _Equality(actual, reference, tools=tools, defaults=defaults)
    if mode == "exact":
        return _exact(eq)
    if mode == "in_order":
        return _in_order(eq)
    return _any_order(eq, mode)


def trajectory_prf(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    *,
    tools: Mapping[str, ToolSpec] | None = None,
    defaults: SuiteDefaults | None = None,
) -> tuple[float, float, float]:
    """Call-level precision, recall and F1 of a trajectory, under an optimal pairing.

    As `toolgrade.calls.score_calls` counts them, with the judge's equality (matchers,
    schemas): precision is 0 without actual calls, recall 0 without reference calls,
    and all three are 1 when both are empty.

    Examples:
        >>> ref = [ToolCall(name="a"), ToolCall(name="b")]
        >>> trajectory_prf([ToolCall(name="b"), ToolCall(name="c")], ref)
        (0.5, 0.5, 0.5)
        >>> trajectory_prf([], [])
        (1.0, 1.0, 1.0)
    """
    if not actual and not reference:
        return 1.0, 1.0, 1.0
    eq = _Equality(actual, reference, tools=tools, defaults=defaults)
    n_ok = len(eq.matching()) if actual and reference else 0
    precision = n_ok / len(actual) if actual else 0.0
    recall = n_ok / len(reference) if reference else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _exact(eq: _Equality) -> TrajectoryMatch:
    n, m = len(eq.reference), len(eq.actual)
    matched = [(k, k) for k in range(min(n, m)) if eq.equal(k, k)]
    done = {k for k, _ in matched}
    missing = [k for k in range(n) if k not in done]
    unexpected = [k for k in range(m) if k not in done]
    wrong = [k for k in missing if k < m and eq.differences(k, k)]
    message = None
    first = next((k for k in range(min(n, m)) if k not in done), None)
    if first is not None:
        expected, got = eq.reference[first].name, eq.actual[first].name
        message = (
            f"call {first + 1}: expected {expected}, got {got}"
            if expected != got
            else f"call {first + 1}: {_differs(eq, first, first).partition(': ')[2]}"
        )
    elif n != m:
        message = _count(n, m) + (
            f": call {n + 1} ({eq.actual[n].name}) is not in the reference"
            if m > n
            else f": reference call {m + 1} ({eq.reference[m].name}) was not made"
        )
    return _match(matched, missing, unexpected, wrong, message=message, extras_fail=True)


def _in_order(eq: _Equality) -> TrajectoryMatch:
    matched: list[tuple[int, int]] = []
    missing: list[int] = []
    message = None
    start = 0
    for i in range(len(eq.reference)):
        j = next((j for j in range(start, len(eq.actual)) if eq.equal(i, j)), None)
        if j is not None:
            matched.append((i, j))
            start = j + 1
            continue
        missing.append(i)
        if message is None:
            message = _not_in_order(eq, i, start, matched)
    used = {j for _, j in matched}
    unexpected = [j for j in range(len(eq.actual)) if j not in used]
    wrong = _wrong_args(eq, missing, unexpected)
    return _match(matched, missing, unexpected, wrong, message=message, extras_fail=False)


def _not_in_order(eq: _Equality, i: int, start: int, matched: list[tuple[int, int]]) -> str:
    """Why reference call `i` has no match at or after actual call `start`."""
    after = f" after call {matched[-1][1] + 1}" if matched else ""
    earlier = next((j for j in range(start) if eq.equal(i, j)), None)
    if earlier is not None:
        what = f"reference call {i + 1} ({eq.reference[i].name}) was not made{after}"
        return f"{what}: only before it, as call {earlier + 1} (out of order)"
    near = next((j for j in range(start, len(eq.actual)) if eq.differences(i, j)), None)
    return _not_made(eq, i, near, after=after)


def _any_order(eq: _Equality, mode: TrajectoryMode) -> TrajectoryMatch:
    matched = eq.matching()
    used_ref = {i for i, _ in matched}
    used_act = {j for _, j in matched}
    missing = [i for i in range(len(eq.reference)) if i not in used_ref]
    unexpected = [j for j in range(len(eq.actual)) if j not in used_act]
    wrong = _wrong_args(eq, missing, unexpected)
    missing_fails = mode != "subset"
    extras_fail = mode != "superset"
    message = None
    if missing_fails and missing:
        i = missing[0]
        message = _not_made(eq, i, next((j for j in unexpected if eq.differences(i, j)), None))
    elif extras_fail and unexpected:
        j = unexpected[0]
        message = f"call {j + 1} ({eq.actual[j].name}) is not in the reference" + (
            " (or is made more often than the reference makes it)"
            if any(eq.equal(i, j) for i in range(len(eq.reference)))
            else ""
        )
    return _match(
        matched,
        missing if missing_fails else [],
        unexpected,
        wrong if missing_fails else [],
        message=message,
        extras_fail=extras_fail,
        missing_all=missing,
    )


def _wrong_args(eq: _Equality, missing: list[int], unexpected: list[int]) -> list[int]:
    """The missing reference calls that an unmatched actual call makes with other arguments."""
    return [i for i in missing if any(eq.differences(i, j) for j in unexpected)]


def _differs(eq: _Equality, i: int, j: int) -> str:
    """Reference call `i` against actual call `j` of the same tool: the first difference."""
    found = eq.differences(i, j) or []
    first = found[0].describe() if found else "arguments differ"
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return f"call {j + 1} ({eq.actual[j].name}) differs: {first}{more}"


def _not_made(eq: _Equality, i: int, near: int | None, *, after: str = "") -> str:
    """Reference call `i` was not made; `near`: an actual call of its tool, if any."""
    what = f"reference call {i + 1} ({eq.reference[i].name}) was not made{after}"
    return what if near is None else f"{what}: {_differs(eq, i, near)}"


def _count(n: int, m: int) -> str:
    return f"{m} call{'s' if m != 1 else ''} instead of {n}"


def _match(
    matched: list[tuple[int, int]],
    missing: list[int],
    unexpected: list[int],
    wrong: list[int],
    *,
    message: str | None,
    extras_fail: bool,
    missing_all: list[int] | None = None,
) -> TrajectoryMatch:
    failed = bool(missing) or (extras_fail and bool(unexpected))
    cause: Status | None = None
    if failed:
        cause = (
            Status.WRONG_ARGS
            if wrong
            else Status.MISSED_CALL
            if missing
            else Status.UNEXPECTED_CALL
        )
    return TrajectoryMatch(
        passed=not failed,
        message=message if failed else None,
        matched=tuple(sorted(matched)),
        missing=tuple(missing if missing_all is None else missing_all),
        unexpected=tuple(unexpected),
        wrong_args=tuple(wrong),
        cause=cause,
    )


def describe_call(call: ToolCall) -> str:
    """A call in one short line: `read_file({"path": "a.md"})`.

    Examples:
        >>> describe_call(ToolCall(name="ls", arguments={"path": "."}))
        'ls({"path": "."})'
    """
    text = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{call.name}({text})"
