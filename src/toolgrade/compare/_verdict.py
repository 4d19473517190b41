"""The verdict of two paired runs, and what the suite can tell at its size.

Four verdicts, with the threshold `θ` in percentage points and the delta as a fraction:

- `regression`: McNemar's exact p-value is below `alpha` **and** the accuracy dropped by
  more than `θ` points: the drop is unlikely to be chance, and large enough to matter.
- `improvement`: the same, upwards.
- `equivalent`: the paired difference's `(1 - 2·alpha)` interval (Newcombe's, method 10)
  lies inside `±θ` points. This is the two one-sided tests (TOST, Schuirmann 1987):
  each bound of a `1 - 2·alpha` interval is a one-sided test at `alpha`, so "the
  interval lies inside the margin" rejects both "the change is at most `-θ`" and "at
  least `+θ`" at level `alpha`. Only this verdict says "within acceptable variance".
- `inconclusive`: neither: the change may be real or not, large or not, and the suite
  is too small to tell. `cases_to_tell` says about how many paired cases would: those
  that detect the observed change with power 0.8 when it reaches the threshold
  (`toolgrade.power.cases_needed`), else those that show equivalence
  (`toolgrade.power.equivalence_cases_needed`), both at the observed discordance.

The first two and the third exclude each other: a delta beyond `θ` lies inside its own
interval, which then cannot lie inside `±θ`.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolgrade.compare._comparison import Change
from toolgrade.power import cases_needed, equivalence_cases_needed, minimum_detectable_effect
from toolgrade.stats import Interval, mcnemar_exact, paired_difference_interval

__all__ = ["Decision", "cases_to_tell", "decide", "equivalence_interval", "verdict_for"]


def verdict_for(
    delta: float,
    p_value: float,
    *,
    threshold: float,
    alpha: float,
    equivalence: Interval | None = None,
) -> Change:
    """Apply the verdict rule of the module's docstring.

    Args:
        delta: candidate - baseline accuracy, a fraction.
        p_value: McNemar's exact two-sided p-value.
        threshold: the change that matters, in percentage points.
        alpha: the significance level.
        equivalence: the paired `(1 - 2·alpha)` interval of the delta
            (`equivalence_interval`); without it the data never show equivalence.

    Returns:
        `regression`, `improvement`, `equivalent` or `inconclusive`.

    Examples:
        >>> verdict_for(-0.05, 0.01, threshold=2.0, alpha=0.05)
        'regression'
        >>> verdict_for(-0.05, 0.20, threshold=2.0, alpha=0.05)
        'inconclusive'
        >>> verdict_for(0.002, 0.9, threshold=2.0, alpha=0.05, equivalence=Interval(-0.01, 0.015))
        'equivalent'
    """
    # Rounded so that a drop of exactly `threshold` points is not "larger" by float error.
    points = round(delta * 100.0, 9)
    if p_value < alpha and points < -threshold:
        return "regression"
    if p_value < alpha and points > threshold:
        return "improvement"
    inside = equivalence is not None and (
        -threshold < equivalence.low * 100.0 and equivalence.high * 100.0 < threshold
    )
    if inside:
        return "equivalent"
    return "inconclusive"


def equivalence_interval(
    both: int, first_only: int, second_only: int, neither: int, *, alpha: float
) -> Interval:
    """Newcombe's paired interval at level `1 - 2·alpha`: the TOST interval of the delta.

    Examples:
        >>> equivalence_interval(40, 5, 1, 4, alpha=0.05).level
        0.9
    """
    return paired_difference_interval(
        both, first_only, second_only, neither, level=round(1.0 - 2.0 * alpha, 12)
    )


def cases_to_tell(
    verdict: Change,
    delta: float,
    discordance: float,
    shared: int,
    *,
    threshold: float,
    alpha: float,
    power: float = 0.8,
) -> int | None:
    """About how many paired cases would turn an `inconclusive` verdict into another.

    Args:
        verdict: the comparison's verdict (None is returned for any but `inconclusive`).
        delta: the observed delta, a fraction.
        discordance: the observed share of paired cases that flipped.
        shared: the paired cases (a discordance of 0 is read as one flip in these: the
            noise of a suite with no flip is unknown, not absent).
        threshold: the change that matters, in percentage points.
        alpha: the significance level.
        power: the chance that a suite of that size tells.

    Returns:
        The cases to detect the observed change (when it reaches the threshold) or to
        show equivalence (when it is within it), or None for any other verdict.

    Examples:
        >>> cases_to_tell("inconclusive", 5 / 85, 11 / 85, 85, threshold=2.0, alpha=0.05)
        312
    """
    if verdict != "inconclusive" or shared <= 0:
        return None
    size = abs(delta)
    flips = max(discordance, size, 1.0 / shared)
    if round(size * 100.0, 9) >= threshold:
        return cases_needed(size, flips, alpha=alpha, power=power)
    return equivalence_cases_needed(size, flips, threshold / 100.0, alpha=alpha, power=power)


@dataclass(frozen=True, slots=True)
class Decision:
    """Everything the verdict of a paired 2x2 table says (see `decide`)."""

    delta: float
    """candidate - baseline accuracy, a fraction."""
    delta_interval: Interval
    """Newcombe's paired 95% interval of the delta."""
    p_value: float
    """McNemar's exact two-sided p-value."""
    verdict: Change
    """The verdict by `verdict_for`."""
    equivalence: Interval
    """The paired `1 - 2·alpha` interval (`equivalence_interval`)."""
    mde: float | None
    """The minimum detectable effect at the observed discordance."""
    cases_to_tell: int | None
    """For `inconclusive`, about how many pairs would tell (`cases_to_tell`)."""


def decide(
    both: int,
    broken: int,
    fixed: int,
    neither: int,
    *,
    threshold: float,
    alpha: float,
    power: float = 0.8,
) -> Decision:
    """The verdict, intervals and power of a paired table of baseline/candidate outcomes.

    Args:
        both: pairs passed in both runs.
        broken: passed in the baseline only.
        fixed: passed in the candidate only.
        neither: failed in both.
        threshold: the change that matters, in percentage points.
        alpha: the significance level.
        power: the power of the minimum detectable effect and of `cases_to_tell`.

    Raises:
        ValueError: no pair at all.

    Examples:
        >>> d = decide(20, 3, 8, 18, threshold=2.0, alpha=0.05)
        >>> (d.verdict, d.cases_to_tell is not None)
        ('inconclusive', True)
    """
    n = both + broken + fixed + neither
    if n <= 0:
        raise ValueError("a paired comparison needs at least one pair")
    delta, discordance = (fixed - broken) / n, (fixed + broken) / n
    p_value = mcnemar_exact(broken, fixed)
    equivalence = equivalence_interval(both, broken, fixed, neither, alpha=alpha)
    verdict = verdict_for(delta, p_value, threshold=threshold, alpha=alpha, equivalence=equivalence)
    return Decision(
        delta=delta,
        delta_interval=paired_difference_interval(both, broken, fixed, neither),
        p_value=p_value,
        verdict=verdict,
        equivalence=equivalence,
        mde=minimum_detectable_effect(n, discordance, alpha=alpha, power=power),
        cases_to_tell=cases_to_tell(
            verdict, delta, discordance, n, threshold=threshold, alpha=alpha, power=power
        ),
    )
