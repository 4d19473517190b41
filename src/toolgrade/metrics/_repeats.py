"""Repeated tries (`--repeat K`): consistency, pass^k and pass^k's bootstrap intervals.

One estimator serves cases and conversations alike: tau-bench's unbiased pass^k, the
mean over cases of C(c, k) / C(n, k) (c passes in n scored tries), over the cases with
at least k scored tries.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject
from toolgrade.metrics._rates import mean
from toolgrade.results import CaseResult, Status
from toolgrade.stats import Interval, bootstrap_interval

__all__ = ["CaseConsistency", "PassHatK", "all_agree", "consistency", "pass_hat_k", "unbiased"]


@dataclass(frozen=True, slots=True)
class CaseConsistency:
    """How one case behaved over its repetitions."""

    case_id: str
    """The case."""
    runs: int
    """Scored repetitions."""
    passed: int
    """Correct repetitions."""
    agreement: float
    """Share of repetitions with the case's majority outcome (1.0 = always the same)."""

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        return {
            "case_id": self.case_id,
            "runs": self.runs,
            "passed": self.passed,
            "agreement": self.agreement,
        }


@dataclass(frozen=True, slots=True)
class PassHatK:
    """pass^k over conversations: do all k tries of a conversation pass?"""

    k: int
    """Tries per conversation."""
    conversations: int
    """Conversations with at least k scored tries (the others are left out)."""
    all_passed: float
    """Share of those conversations that passed in all of their first k tries."""
    all_passed_interval: Interval
    """Bootstrap interval of `all_passed` (conversations resampled)."""
    unbiased: float
    """Mean of C(c, k) / C(n, k) over those conversations (c passes of n tries)."""
    unbiased_interval: Interval
    """Bootstrap interval of `unbiased`."""
    curve: tuple[float, ...]
    """The unbiased pass^j for j = 1..k (`curve[0]` is the mean pass rate)."""
    resamples: int
    """Bootstrap resamples behind the intervals."""

    def to_dict(self) -> JsonObject:
        """Return pass^k as a JSON object."""
        return {
            "k": self.k,
            "conversations": self.conversations,
            "all_passed": self.all_passed,
            "all_passed_interval": self.all_passed_interval.to_dict(),
            "unbiased": self.unbiased,
            "unbiased_interval": self.unbiased_interval.to_dict(),
            "curve": list(self.curve),
            "resamples": self.resamples,
        }


def consistency(scored: Sequence[CaseResult]) -> tuple[CaseConsistency, ...]:
    """Each case's scored tries, passes and agreement, in the order the cases first appear."""
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for result in scored:
        outcomes[result.case_id].append(result.status is Status.CORRECT)
    rows = []
    for case_id, tries in outcomes.items():
        passed = sum(tries)
        agreement = max(passed, len(tries) - passed) / len(tries)
        rows.append(CaseConsistency(case_id, len(tries), passed, agreement))
    return tuple(rows)


def all_agree(per_case: Sequence[CaseConsistency]) -> float | None:
    """Share of repeated cases (two or more scored tries) that never changed outcome."""
    repeated = [c.agreement == 1.0 for c in per_case if c.runs >= 2]
    return mean(repeated) if repeated else None


def _terms(counts: Sequence[tuple[int, int]], k: int) -> list[float]:
    """C(c, k) / C(n, k) for each `(c, n)`: the chance that k of n tries, drawn, all pass."""
    return [math.comb(c, k) / math.comb(n, k) for c, n in counts]


def unbiased(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """tau-bench's unbiased pass^k over `(passes, tries)` counts with at least k tries.

    Examples:
        >>> unbiased([(3, 3), (2, 3), (1, 1)], 3)
        0.5
    """
    eligible = [(c, n) for c, n in counts if n >= k]
    return mean(_terms(eligible, k)) if eligible else None


def pass_hat_k(
    tries: Sequence[tuple[str, int, bool]], k: int, *, seed: int = 0, resamples: int = 2000
) -> PassHatK | None:
    """pass^k over conversations from their tries, with bootstrap intervals.

    Args:
        tries: `(conversation id, repeat index, passed)` for every scored try.
        k: tries that must all pass (at least 1).
        seed: seed of the bootstrap.
        resamples: bootstrap resamples.

    Returns:
        pass^k, or None when no conversation has k scored tries.

    Examples:
        >>> p = pass_hat_k([("a", 0, True), ("a", 1, True), ("b", 0, True), ("b", 1, False)], 2)
        >>> p.all_passed, p.unbiased, p.curve
        (0.5, 0.5, (0.75, 0.5))
    """
    grouped: defaultdict[str, list[tuple[int, bool]]] = defaultdict(list)
    for case_id, repeat, ok in tries:
        grouped[case_id].append((repeat, ok))
    counts: list[tuple[int, int]] = []
    first_k: list[float] = []
    for group in grouped.values():
        outcomes = [ok for _, ok in sorted(group)]
        if len(outcomes) >= k:
            counts.append((sum(outcomes), len(outcomes)))
            first_k.append(float(all(outcomes[:k])))
    if not counts:
        return None
    # Both statistics are means of one number per conversation: compute those once, and
    # resample them (not the conversations) so each bootstrap draw only sums.
    terms = _terms(counts, k)
    return PassHatK(
        k=k,
        conversations=len(counts),
        all_passed=mean(first_k),
        all_passed_interval=bootstrap_interval(first_k, mean, seed=seed, resamples=resamples),
        unbiased=mean(terms),
        unbiased_interval=bootstrap_interval(terms, mean, seed=seed, resamples=resamples),
        curve=tuple(mean(_terms(counts, j)) for j in range(1, k + 1)),
        resamples=resamples,
    )
