"""Reducing a run to one outcome per case, for comparisons between runs.

Nothing here pairs calls: a run's results become one `Outcome` per case (repetitions
reduced by majority), so that both the two-run and the side-by-side comparison pair
cases by exactly the same rule.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from toolgrade.metrics import NO_VALUE_KEY, Rate, case_tools, rate_of
from toolgrade.results import CaseResult, RunResult, Status

__all__ = ["Outcome", "case_outcomes", "group_rates", "majority", "run_label", "tool_keys"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One case of one run, reduced to pass/fail (majority over repetitions)."""

    case_id: str
    passed: bool
    status: str
    """`correct` when passed, else the most frequent failing status."""
    category: str
    tools: tuple[str, ...]
    """Distinct tools of the case's primary expectation; `(no call)` when none."""


def majority(passed: int, tries: int) -> bool:
    """Whether a case passes over its tries: a strict majority passed.

    A tie is a failure, so a flaky case never hides a regression.

    Examples:
        >>> majority(2, 3), majority(1, 2), majority(1, 1)
        (True, False, True)
    """
    return 2 * passed > tries


def _reduce(case_id: str, tries: Sequence[CaseResult]) -> Outcome:
    first = tries[0]
    category = first.category or NO_VALUE_KEY
    if len(tries) == 1:
        return Outcome(
            case_id, first.status is Status.CORRECT, first.status.value, category, case_tools(first)
        )
    passed = majority(sum(r.status is Status.CORRECT for r in tries), len(tries))
    if passed:
        status = Status.CORRECT.value
    else:
        failing = Counter(r.status.value for r in tries if r.status is not Status.CORRECT)
        status = failing.most_common(1)[0][0]
    return Outcome(case_id, passed, status, category, case_tools(first))


def _repeat(result: CaseResult) -> int:
    return result.repeat


def case_outcomes(run: RunResult) -> dict[str, Outcome]:
    """One outcome per case id that has at least one scored result.

    With a single repetition this is simply each result's status; with several, the
    majority rule of `_reduce` applies (repetitions in index order).
    """
    tries: defaultdict[str, list[CaseResult]] = defaultdict(list)
    for result in run.results:
        if result.status.scored:
            tries[result.case_id].append(result)
    return {
        case_id: _reduce(case_id, group if len(group) == 1 else sorted(group, key=_repeat))
        for case_id, group in tries.items()
    }


def tool_keys(outcome: Outcome) -> tuple[str, ...]:
    """The tool-breakdown keys of an outcome."""
    return outcome.tools


def group_rates(
    outcomes: Sequence[Outcome], keys_of: Callable[[Outcome], Iterable[str]]
) -> dict[str, Rate]:
    """Accuracy per group key over `outcomes`."""
    counts: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
    for outcome in outcomes:
        for key in keys_of(outcome):
            counts[key][0] += outcome.passed
            counts[key][1] += 1
    return {key: rate_of(p, n) for key, (p, n) in counts.items()}


def run_label(run: RunResult) -> str:
    """How a run is named in comparisons: its first tag, else its model."""
    return run.tags[0] if run.tags else run.model
