"""Comparing two runs: baseline vs candidate, with a regression verdict.

Several runs side by side are `toolgrade.compare._many`'s; both reduce a run to one
outcome per case with `toolgrade.compare._outcomes`.

Two runs are compared **case by case**: only case ids that were scored in both runs
(not `timeout`/`error` in either) form pairs, and every number of a `Comparison` -- both
accuracies, the delta and its interval, the flips, McNemar's test and the per-category and
per-tool deltas -- is computed over those pairs, so they always agree with each other.

When a case ran several times (`--repeat`), it is reduced to one outcome per run by
majority: it passed when more than half of its scored repetitions were correct (a tie
counts as a failure, the cautious reading); its status is `correct` when it passed,
otherwise the most frequent failing status (earliest repetition wins a tie).

Verdict (threshold in percentage points, delta as a fraction):

- `regression`: the accuracy dropped by more than `threshold` points **and** McNemar's
  exact p-value is below `alpha`;
- `improvement`: the accuracy rose by more than `threshold` points and p < `alpha`;
- otherwise `within acceptable variance`.

When the runs' suite hashes differ, a warning is logged and only shared case ids are
compared (`suite_hash_differs` is set, `shared_cases` says how many).

Conversations are cases like any other here; `Comparison.conversations` adds their own
view (per-turn deltas, the on-policy / teacher-forced gap) from
`toolgrade.compare._conversations`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from toolgrade._core.json_data import JsonObject
from toolgrade.compare._conversations import ConversationComparison, compare_conversations
from toolgrade.compare._outcomes import (
    Outcome,
    case_outcomes,
    group_rates,
    run_label,
    tool_keys,
)
from toolgrade.errors import BaselineError
from toolgrade.metrics import Rate, rate_of
from toolgrade.results import RunResult
from toolgrade.stats import Interval, mcnemar_exact, paired_difference_interval

__all__ = [
    "Comparison",
    "Delta",
    "Flip",
    "Verdict",
    "compare_runs",
    "verdict_for",
]

logger = logging.getLogger("toolgrade.compare")

Verdict = Literal["regression", "improvement", "within acceptable variance"]


@dataclass(frozen=True, slots=True)
class Flip:
    """A case whose outcome changed between the runs."""

    case_id: str
    """The case."""
    baseline: str
    """Its status in the baseline."""
    candidate: str
    """Its status in the candidate."""

    def to_dict(self) -> JsonObject:
        """Return the flip as a JSON object."""
        return {"case_id": self.case_id, "baseline": self.baseline, "candidate": self.candidate}


@dataclass(frozen=True, slots=True)
class Delta:
    """The accuracy change of one group (category or tool) over the paired cases."""

    key: str
    """The group's name."""
    baseline: Rate | None
    """Baseline accuracy in the group (None: the group has no case in the baseline)."""
    candidate: Rate | None
    """Candidate accuracy in the group (None: no case in the candidate)."""
    delta: float | None
    """candidate - baseline as a fraction (None when one side is missing)."""

    @property
    def baseline_n(self) -> int:
        """Paired cases the baseline counts in the group (0 when it has none)."""
        return self.baseline.n if self.baseline else 0

    @property
    def candidate_n(self) -> int:
        """Paired cases the candidate counts in the group.

        It differs from `baseline_n` when the runs' suites file a case differently.
        """
        return self.candidate.n if self.candidate else 0

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        return {
            "key": self.key,
            "baseline": self.baseline.to_dict() if self.baseline else None,
            "candidate": self.candidate.to_dict() if self.candidate else None,
            "delta": self.delta,
            "baseline_n": self.baseline_n,
            "candidate_n": self.candidate_n,
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """A candidate run against a baseline run, with a verdict."""

    baseline_id: str
    """Baseline run id."""
    candidate_id: str
    """Candidate run id."""
    baseline_label: str
    """How to name the baseline (its first tag, else its model)."""
    candidate_label: str
    """How to name the candidate."""
    shared_cases: int
    """Cases scored in both runs (the pairs)."""
    suite_hash_differs: bool
    """The runs used different suite contents."""
    baseline_accuracy: Rate
    """Baseline accuracy over the pairs."""
    candidate_accuracy: Rate
    """Candidate accuracy over the pairs."""
    delta: float
    """candidate - baseline accuracy, a fraction (0.02 = 2 points)."""
    delta_interval: Interval
    """Newcombe's paired 95% interval of the delta."""
    fixed: tuple[Flip, ...]
    """Cases failed in the baseline, correct in the candidate."""
    broken: tuple[Flip, ...]
    """Cases correct in the baseline, failed in the candidate."""
    p_value: float
    """McNemar's exact two-sided p-value over the pairs."""
    verdict: Verdict
    """`regression`, `improvement` or `within acceptable variance`."""
    threshold: float
    """The threshold, in percentage points."""
    alpha: float
    """The significance level."""
    by_category: tuple[Delta, ...]
    """Accuracy change per category."""
    by_tool: tuple[Delta, ...]
    """Accuracy change per tool of the cases' primary expectations (each case is filed
    under the same tools in both runs, whichever alternative it matched)."""
    baseline_suite_hash: str = ""
    """The baseline's suite hash."""
    candidate_suite_hash: str = ""
    """The candidate's suite hash."""
    conversations: ConversationComparison | None = None
    """The paired conversations' own comparison (None when no paired case is a
    conversation)."""

    @property
    def is_regression(self) -> bool:
        """True when the verdict is `regression`."""
        return self.verdict == "regression"

    def to_dict(self) -> JsonObject:
        """Return the comparison as a JSON object."""
        data: JsonObject = {
            "baseline_id": self.baseline_id,
            "candidate_id": self.candidate_id,
            "baseline_label": self.baseline_label,
            "candidate_label": self.candidate_label,
            "shared_cases": self.shared_cases,
            "suite_hash_differs": self.suite_hash_differs,
            "baseline_suite_hash": self.baseline_suite_hash,
            "candidate_suite_hash": self.candidate_suite_hash,
            "baseline_accuracy": self.baseline_accuracy.to_dict(),
            "candidate_accuracy": self.candidate_accuracy.to_dict(),
            "delta": self.delta,
            "delta_interval": self.delta_interval.to_dict(),
            "fixed": [f.to_dict() for f in self.fixed],
            "broken": [f.to_dict() for f in self.broken],
            "p_value": self.p_value,
            "verdict": self.verdict,
            "threshold": self.threshold,
            "alpha": self.alpha,
            "by_category": [d.to_dict() for d in self.by_category],
            "by_tool": [d.to_dict() for d in self.by_tool],
        }
        # Left out when absent, so comparisons of single cases serialize as before.
        if self.conversations is not None:
            data["conversations"] = self.conversations.to_dict()
        return data


def verdict_for(delta: float, p_value: float, *, threshold: float, alpha: float) -> Verdict:
    """Apply the verdict rule: a change beyond `threshold` points that is significant.

    Examples:
        >>> verdict_for(-0.05, 0.01, threshold=2.0, alpha=0.05)
        'regression'
        >>> verdict_for(-0.05, 0.20, threshold=2.0, alpha=0.05)
        'within acceptable variance'
    """
    # Rounded so that a drop of exactly `threshold` points is not "larger" by float error.
    points = round(delta * 100.0, 9)
    if p_value < alpha and points < -threshold:
        return "regression"
    if p_value < alpha and points > threshold:
        return "improvement"
    return "within acceptable variance"


def _shared(
    baseline: RunResult, candidate: RunResult
) -> tuple[dict[str, Outcome], dict[str, Outcome], list[str]]:
    base, cand = case_outcomes(baseline), case_outcomes(candidate)
    if baseline.suite_hash != candidate.suite_hash:
        logger.warning(
            "runs %s and %s used different suites (hash %s vs %s); comparing shared cases only",
            baseline.run_id,
            candidate.run_id,
            baseline.suite_hash,
            candidate.suite_hash,
        )
    ids = sorted(base.keys() & cand.keys())
    if not ids:
        raise BaselineError(
            f"runs {baseline.run_id} and {candidate.run_id} have no scored case in common"
        )
    return base, cand, ids


def compare_runs(
    baseline: RunResult, candidate: RunResult, *, threshold: float = 2.0, alpha: float = 0.05
) -> Comparison:
    """Compare a candidate run with a baseline run, case by case.

    Args:
        baseline: the reference run.
        candidate: the run under test.
        threshold: accuracy drop (or rise), in percentage points, that matters.
        alpha: significance level of McNemar's exact test.

    Returns:
        The comparison and its verdict.

    Raises:
        BaselineError: the runs have no scored case in common.

    Examples:
        >>> c = compare_runs(baseline_run, candidate_run)  # doctest: +SKIP
        >>> c.verdict  # doctest: +SKIP
        'within acceptable variance'
    """
    base, cand, ids = _shared(baseline, candidate)
    fixed = tuple(_flip(i, base, cand) for i in ids if cand[i].passed and not base[i].passed)
    broken = tuple(_flip(i, base, cand) for i in ids if base[i].passed and not cand[i].passed)
    both = sum(base[i].passed and cand[i].passed for i in ids)
    neither = len(ids) - both - len(fixed) - len(broken)
    base_rate = rate_of(both + len(broken), len(ids))
    cand_rate = rate_of(both + len(fixed), len(ids))
    delta = (len(fixed) - len(broken)) / len(ids)
    p_value = mcnemar_exact(len(broken), len(fixed))
    return Comparison(
        baseline_id=baseline.run_id,
        candidate_id=candidate.run_id,
        baseline_label=run_label(baseline),
        candidate_label=run_label(candidate),
        shared_cases=len(ids),
        suite_hash_differs=baseline.suite_hash != candidate.suite_hash,
        baseline_accuracy=base_rate,
        candidate_accuracy=cand_rate,
        delta=delta,
        delta_interval=paired_difference_interval(both, len(broken), len(fixed), neither),
        fixed=fixed,
        broken=broken,
        p_value=p_value,
        verdict=verdict_for(delta, p_value, threshold=threshold, alpha=alpha),
        threshold=threshold,
        alpha=alpha,
        by_category=_deltas(base, cand, ids, lambda o: (o.category,)),
        by_tool=_deltas(base, cand, ids, tool_keys),
        baseline_suite_hash=baseline.suite_hash,
        candidate_suite_hash=candidate.suite_hash,
        conversations=compare_conversations(baseline, candidate, base=base, cand=cand, ids=ids),
    )


def _flip(case_id: str, base: Mapping[str, Outcome], cand: Mapping[str, Outcome]) -> Flip:
    return Flip(case_id, base[case_id].status, cand[case_id].status)


def _deltas(
    base: Mapping[str, Outcome],
    cand: Mapping[str, Outcome],
    ids: Sequence[str],
    keys_of: Callable[[Outcome], Iterable[str]],
) -> tuple[Delta, ...]:
    base_rates = group_rates([base[i] for i in ids], keys_of)
    cand_rates = group_rates([cand[i] for i in ids], keys_of)
    rows = []
    for key in sorted(base_rates.keys() | cand_rates.keys()):
        b, c = base_rates.get(key), cand_rates.get(key)
        rows.append(Delta(key, b, c, c.rate - b.rate if b and c else None))
    return tuple(rows)
