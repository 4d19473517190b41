"""Each model's standing against the best: the four verdicts, read off the Holm pairs.

A leaderboard tests every pair of models (`toolgrade.sweep._pairs`, Holm-corrected). A
model's standing against the best is the verdict of `toolgrade.compare.verdict_for`
applied to *its pair with the best* from that same family, so the two can never
contradict each other:

- `regression`: the pair is separated (its Holm-adjusted p-value is below alpha) **and**
  the model is more than `threshold` points below the best. Every `regression` is a
  separated pair; a separated pair whose gap is within the threshold is not one.
- `equivalent`: the paired interval of the gap lies inside ±threshold: two one-sided
  tests (TOST), as in `compare`, at level alpha / k for the k models compared with the
  best (Bonferroni over them), so that the family of "equivalent" claims is held at
  alpha as the pairs are. A separated pair can be `equivalent` (different, but by less
  than the threshold); only this standing says "within acceptable variance".
- `inconclusive`: neither; the suite cannot tell at its size. `cases_to_tell` says
  about how many cases would (`toolgrade.compare.cases_to_tell` at level
  alpha / t for the t pairs of the family: Holm never asks a pair for more than that,
  so the number is an upper estimate).

The best model itself is `best`; the candidate is never above it, so no model is an
`improvement` on it. The best was picked by the data, which is why its tests come from
the family of every pair rather than from tests made against it alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from toolgrade.compare import cases_to_tell, equivalence_interval, verdict_for
from toolgrade.stats import Interval
from toolgrade.sweep._pairs import PairTest

__all__ = ["Standing", "VersusBest", "versus_best"]

Standing = Literal["best", "regression", "equivalent", "inconclusive", "not compared", "no run"]
"""A model's place against the best (`LeaderboardEntry.standing`)."""


@dataclass(frozen=True, slots=True)
class VersusBest:
    """One model against the best, from its pair in the Holm family."""

    standing: Standing
    """`regression`, `equivalent` or `inconclusive` (see the module docstring)."""
    adjusted_p: float
    """Its pair's Holm-adjusted p-value."""
    equivalence_interval: Interval
    """The paired interval of model - best used for equivalence (level 1 - 2·alpha/k)."""
    cases_to_tell: int | None
    """For `inconclusive`, about how many cases would tell (None otherwise)."""


def versus_best(
    labels: Sequence[str],
    outcomes: Sequence[Mapping[str, bool]],
    best: int,
    pairs: Sequence[PairTest],
    *,
    threshold: float,
    alpha: float,
) -> list[VersusBest | None]:
    """Each model's standing against the model at index `best` (None for the best).

    Args:
        labels: the models' labels.
        outcomes: per model, whether it passed each compared case (the same ids for all).
        best: the index of the best model.
        pairs: every pair's test (`pair_tests` over the same outcomes).
        threshold: the gap, in points, that matters.
        alpha: the family-wise significance level.

    Returns:
        One entry per model, in the order given.

    Examples:
        >>> from toolgrade.sweep._pairs import pair_tests
        >>> a = {f"c{i}": True for i in range(40)}
        >>> b = {f"c{i}": i >= 30 for i in range(40)}
        >>> [v.standing if v else "best" for v in versus_best(
        ...     ["a", "b"], [a, b], 0, pair_tests(["a", "b"], [a, b]), threshold=2.0, alpha=0.05
        ... )]
        ['best', 'regression']
    """
    by_pair = {frozenset((p.first, p.second)): p for p in pairs}
    others = len(labels) - 1
    out: list[VersusBest | None] = []
    for k, label in enumerate(labels):
        if k == best:
            out.append(None)
            continue
        top, model = outcomes[best], outcomes[k]
        ids = top.keys() & model.keys()
        both = sum(top[i] and model[i] for i in ids)
        top_only = sum(top[i] and not model[i] for i in ids)
        model_only = sum(model[i] and not top[i] for i in ids)
        neither = len(ids) - both - top_only - model_only
        delta = (model_only - top_only) / len(ids)
        pair = by_pair[frozenset((labels[best], label))]
        equivalence = equivalence_interval(
            both, top_only, model_only, neither, alpha=alpha / max(1, others)
        )
        verdict = verdict_for(
            delta, pair.adjusted_p, threshold=threshold, alpha=alpha, equivalence=equivalence
        )
        standing: Standing = "inconclusive"
        if verdict == "regression" or verdict == "equivalent":
            standing = verdict
        flips = (top_only + model_only) / len(ids)
        tell = cases_to_tell(
            verdict,
            delta,
            flips,
            len(ids),
            threshold=threshold,
            alpha=alpha / max(1, len(pairs)),
        )
        out.append(VersusBest(standing, pair.adjusted_p, equivalence, tell))
    return out
