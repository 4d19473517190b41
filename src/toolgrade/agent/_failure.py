"""The one failure message of the assertions: what was expected, what came, and why.

A failed `assert_tool_calls` (one reply) and a failed `assert_trajectory` read the same
way, as pytest shows a diff:

    <what does not hold>: <why>
      also: <every other problem, one a line>
      expected (<how they must come>):
        1. read_file({"path": "a.md"})  -> what became of it
      called:
        1. read_file({"path": "b.md"})  -> what it was
      argument differences, expected 1 vs call 1:
        $.path: expected "a.md", got "b.md"
      malformed calls in <where>:
        <each>

Failures are in capitals (`NOT MADE`, `NOT EXPECTED`, `DIFFERS`, `FORBIDDEN`); a call of a
trajectory whose result was an error says so (`its result was an error: ...`). Calls
are numbered from 1. Each list shows at most `LISTED` entries and counts the rest
(`... and 3 more`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from toolgrade._core.vocab import Mismatch, ToolCall
from toolgrade.agent._judging import TrajectoryOutcome
from toolgrade.results import CaseResult

__all__ = ["LISTED", "format_failure"]

LISTED = 50
"""Entries listed in each list of a failure message; the rest are counted."""


@dataclass(frozen=True, slots=True)
class _Failure:
    """The parts of a failure message, whatever was judged."""

    headline: str
    """What does not hold, and the first reason."""
    also: tuple[str, ...]
    """The other reasons."""
    how: str
    """How the expected calls must come (`any order`, `in_order`, ...)."""
    expected: tuple[tuple[ToolCall, str], ...]
    """Each expected call, with what became of it."""
    called: tuple[tuple[ToolCall, str], ...]
    """Each call made, with what it was."""
    differences: tuple[tuple[str, tuple[Mismatch, ...]], ...]
    """Argument differences, each group under the pair it belongs to ("" for none)."""
    malformed: tuple[str, tuple[str, ...]]
    """Where malformed calls were read, and each."""


def format_failure(
    result: CaseResult | TrajectoryOutcome, *, min_score: float | None = None, order: str = "any"
) -> str:
    """The failure message of a verdict on one reply, or on a trajectory.

    Args:
        result: the reply's `CaseResult`, or the trajectory's outcome.
        min_score: the bound the reply's score fell short of (None: it had to be correct).
        order: how the reply's calls had to come: `any` or `strict`.
    """
    if isinstance(result, TrajectoryOutcome):
        failure = _of_trajectory(result)
    else:
        failure = _of_reply(result, min_score=min_score, order=order)
    return _render(failure)


def _show(call: ToolCall) -> str:
    args = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
    return f"{call.name}({args})"


def _render(failure: _Failure) -> str:
    lines = [failure.headline, *_listed([f"  also: {p}" for p in failure.also], indent=2)]
    if failure.expected:
        lines.append(f"  expected ({failure.how}):")
        lines += _numbered(failure.expected)
    else:
        lines.append("  expected: no call")
    if failure.called:
        lines.append("  called:")
        lines += _numbered(failure.called)
    else:
        lines.append("  called: nothing")
    for pair, found in failure.differences:
        lines.append(f"  argument differences{', ' + pair if pair else ''}:")
        lines += _listed([f"    {m.describe()}" for m in found])
    where, notes = failure.malformed
    if notes:
        lines.append(f"  malformed calls in {where}:")
        lines += _listed([f"    {n}" for n in notes])
    return "\n".join(lines)


def _numbered(entries: Sequence[tuple[ToolCall, str]]) -> list[str]:
    return _listed(
        [f"    {n}. {_show(call)}  -> {what}" for n, (call, what) in enumerate(entries, 1)]
    )


def _listed(lines: list[str], *, indent: int = 4) -> list[str]:
    """At most `LISTED` lines, then how many more there are."""
    if len(lines) <= LISTED:
        return lines
    return [*lines[:LISTED], f"{' ' * indent}... and {len(lines) - LISTED} more"]


def _of_reply(result: CaseResult, *, min_score: float | None, order: str) -> _Failure:
    """A reply's verdict: the calls as the judge paired them, and their differences."""
    bound = f" < min_score {min_score}" if min_score is not None else ""
    headline = (
        f"tool calls do not match: {result.status.value} "
        f"(score {result.score:.3f}{bound} under the {result.rubric} rubric)"
    )
    expected, actual = result.expected, result.actual
    made = ["NOT MADE"] * len(expected)
    came = ["NOT EXPECTED"] * len(actual)
    differences: list[tuple[str, tuple[Mismatch, ...]]] = []
    paired: set[int] = set()
    for pair in result.pairs:
        i, j = pair.expected_index, pair.actual_index
        if i is None or j is None:
            continue  # missed or extra: as set above
        if pair.verdict == "correct":
            made[i], came[j] = f"made as call {j + 1}", f"expected {i + 1}"
        elif pair.verdict == "wrong_args":
            made[i] = f"NOT MADE (call {j + 1} has other arguments)"
            came[j] = f"DIFFERS from expected {i + 1}"
            found = tuple(m for m in result.details if m.call == i)
            if found:
                differences.append((f"expected {i + 1} vs call {j + 1}", found))
                paired.add(i)
        else:
            made[i] = f"NOT MADE (call {j + 1} is {actual[j].name})"
            came[j] = f"NOT EXPECTED (expected {i + 1} is {expected[i].name})"
    rest = tuple(m for m in result.details if m.call not in paired)
    if rest:
        differences.append(("", rest))
    how = f"{order} order"
    if result.alternative is not None:
        how += f", alternative {result.alternative + 1}"
    return _Failure(
        headline=headline,
        also=(),
        how=how,
        expected=tuple(zip(expected, made, strict=True)),
        called=tuple(zip(actual, came, strict=True)),
        differences=tuple(differences),
        malformed=("the output", tuple(str(e) for e in result.extraction_errors)),
    )


def _of_trajectory(outcome: TrajectoryOutcome) -> _Failure:
    """A trajectory's checks: each problem, both sides of the pairing, the differences."""
    mode, reference, calls = outcome.mode, outcome.reference, outcome.calls
    to_call = dict(outcome.match.matched)
    to_expected = {j: i for i, j in outcome.match.matched}
    near_of = {j: i for i, j in outcome.near.items()}
    made = []
    for i in range(len(reference)):
        if i in to_call:
            made.append(f"made as call {to_call[i] + 1}")
        elif i in outcome.near:
            made.append(f"NOT MADE (call {outcome.near[i] + 1} has other arguments)")
        elif mode == "exact" and i < len(calls):
            made.append(f"NOT MADE (call {i + 1} is {calls[i].name})")
        else:
            made.append("not made" if mode == "subset" else "NOT MADE")
    extras_fail = mode in ("exact", "unordered", "subset")
    came = []
    for j in range(len(calls)):
        if j in to_expected:
            what = f"expected {to_expected[j] + 1}"
        elif j in near_of:
            what = f"DIFFERS from expected {near_of[j] + 1}"
        elif mode == "exact" and j < len(reference):
            what = f"NOT EXPECTED here (expected {j + 1} is {reference[j].name})"
        else:
            what = "NOT EXPECTED" if extras_fail else "other call (allowed)"
        why = outcome.failed.get(j)
        if why is not None:
            what += f"; its result was an error: {why}"
        pattern = (outcome.forbidden or {}).get(j)
        if pattern is not None:
            what += (
                f"; FORBIDDEN ({_show(ToolCall(name=pattern.name, arguments=pattern.arguments))})"
            )
        came.append(what)
    first, *others = outcome.problems or ("the checks failed",)
    return _Failure(
        headline=f"trajectory does not hold: {first}",
        also=tuple(others),
        how=mode,
        expected=tuple(zip(reference, made, strict=True)),
        called=tuple(zip(calls, came, strict=True)),
        differences=tuple(
            (f"expected {i + 1} vs call {j + 1}", found)
            for i, j, found in sorted(outcome.differences)
            if found
        ),
        malformed=("the messages", outcome.notes),
    )
