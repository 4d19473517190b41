"""Confidence intervals and paired tests, reproducible by construction.

Why each method:

- **Wilson score interval** for a single rate (accuracy). The textbook Wald interval
  `p ± z·sqrt(p(1-p)/n)` collapses to zero width at 0% and 100% and covers the true
  rate far less often than its nominal level for small `n` or rates near the edges, which
  is exactly where tool-calling suites live (20 cases at 95%). Wilson's interval inverts
  the score test instead; its coverage stays close to nominal (Newcombe 1998, method 3).
  It is computed by `scipy.stats.binomtest(...).proportion_ci(method="wilson")`.
- **Percentile bootstrap** for the mean rubric score. Partial-credit scores (0, 0.5, 1
  and fractions in between) have no convenient closed-form distribution, so the interval
  comes from resampling cases with replacement. Unlike inspect_ai's `std.py`, which
  draws from numpy's unseeded global generator, every resample here comes from
  `numpy.random.default_rng(seed)`: the same data and seed give the same interval.
  `bootstrap_interval` does the same for any statistic of the resampled items (e.g.
  pass^k over conversations, where each item is one conversation's tries); it draws the
  very same resamples as `bootstrap_mean_interval` for the same seed and size.
- **McNemar's exact test** for two runs over the same cases. The cases are paired, so
  the evidence of a difference is only in the discordant cases: `b` (passed before,
  failed now) and `c` (failed before, passed now). Under "no difference" each discordant
  case is a fair coin, so the two-sided p-value is `min(1, 2·P[Binomial(b+c, ½) ≤ min(b, c)])`.
  The exact form is used rather than the chi-squared approximation because regressions
  are usually a handful of flips, where the approximation is poor.
- **Newcombe's hybrid score interval for a paired difference** (Newcombe 1998, method 10)
  for the accuracy delta between two runs: it combines the two Wilson intervals with the
  correlation between the paired outcomes, and, like Wilson, behaves well near 0 and 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from toolgrade._core.json_data import JsonObject

__all__ = [
    "Interval",
    "Rate",
    "bootstrap_interval",
    "bootstrap_mean_interval",
    "mcnemar_exact",
    "paired_difference_interval",
    "rate_of",
    "wilson_interval",
]

_T = TypeVar("_T")

# Resamples are drawn in blocks so that memory stays bounded for large runs
# (2,000 resamples of 10,000 scores would otherwise be one 160 MB index array).
_BOOTSTRAP_BLOCK_CELLS = 2_000_000


@dataclass(frozen=True, slots=True)
class Interval:
    """A two-sided confidence interval.

    Examples:
        >>> Interval(0.7, 0.9).contains(0.8)
        True
    """

    low: float
    """Lower bound."""
    high: float
    """Upper bound."""
    level: float = 0.95
    """Confidence level, e.g. 0.95."""

    def contains(self, value: float) -> bool:
        """Whether `value` lies inside the interval (bounds included)."""
        return self.low <= value <= self.high

    @property
    def width(self) -> float:
        """`high - low`."""
        return self.high - self.low

    def to_dict(self) -> JsonObject:
        """Return `{"low", "high", "level"}`."""
        return {"low": self.low, "high": self.high, "level": self.level}


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be between 0 and 1, got {level}")


def wilson_interval(successes: int, n: int, *, level: float = 0.95) -> Interval:
    """Wilson score interval for a binomial rate `successes / n`.

    With no trials (`n == 0`) nothing is known, and the interval is the whole `[0, 1]`.

    Args:
        successes: number of successes, `0 <= successes <= n`.
        n: number of trials.
        level: confidence level.

    Returns:
        The interval, in rate units (0..1).

    Raises:
        ValueError: counts out of range or a level outside (0, 1).

    Examples:
        >>> i = wilson_interval(42, 50)
        >>> round(i.low, 3), round(i.high, 3)
        (0.715, 0.917)
    """
    _check_level(level)
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return Interval(0.0, 1.0, level)
    ci = _scipy().binomtest(successes, n).proportion_ci(confidence_level=level, method="wilson")
    # Clamp: floating-point error can put a bound a hair outside [0, 1].
    return Interval(max(0.0, float(ci.low)), min(1.0, float(ci.high)), level)


@dataclass(frozen=True, slots=True)
class Rate:
    """A pass rate with its confidence interval (also exported by `toolgrade.metrics`).

    Examples:
        >>> r = rate_of(42, 50)
        >>> r.rate, round(r.interval.low, 3)
        (0.84, 0.715)
    """

    passed: int
    """Number of successes."""
    n: int
    """Number of trials."""
    rate: float
    """`passed / n`, in 0..1 (0 when `n` is 0)."""
    interval: Interval
    """Wilson interval of the rate."""

    def to_dict(self) -> JsonObject:
        """Return the rate as a JSON object."""
        return {
            "passed": self.passed,
            "n": self.n,
            "rate": self.rate,
            "interval": self.interval.to_dict(),
        }


def rate_of(passed: int, n: int, *, level: float = 0.95) -> Rate:
    """Build a `Rate` (with its Wilson interval) from counts.

    Args:
        passed: successes.
        n: trials.
        level: confidence level of the interval.

    Returns:
        The rate; `rate` is 0.0 and the interval `[0, 1]` when `n` is 0.
    """
    return Rate(passed, n, passed / n if n else 0.0, wilson_interval(passed, n, level=level))


def bootstrap_mean_interval(
    values: Sequence[float], *, seed: int, level: float = 0.95, resamples: int = 2000
) -> Interval:
    """Percentile bootstrap interval for the mean of `values`, reproducible from `seed`.

    Each resample draws `len(values)` values with replacement from
    `numpy.random.default_rng(seed)` (any integer: a negative seed has draws of its
    own); the interval is the `(1-level)/2` and
    `(1+level)/2` quantiles of the resampled means. A single value (or identical values)
    gives a zero-width interval; no values give `[0, 1]` (nothing is known about a
    score that lives in 0..1).

    Args:
        values: the observations (e.g. rubric scores, one per case).
        seed: seed of the generator, any integer; the same seed and values give the
            same interval.
        level: confidence level.
        resamples: number of bootstrap resamples (at least 100).

    Returns:
        The interval.

    Raises:
        ValueError: a level outside (0, 1) or fewer than 100 resamples.

    Examples:
        >>> a = bootstrap_mean_interval([0, 0.5, 1, 1], seed=7)
        >>> a == bootstrap_mean_interval([0, 0.5, 1, 1], seed=7)
        True
    """
    import numpy as np  # deferred: numpy costs ~90 ms at import

    _check_bootstrap(level, resamples)
    data = np.asarray(values, dtype=np.float64)
    n = int(data.size)
    if n == 0:
        return Interval(0.0, 1.0, level)
    means = np.concatenate([data[idx].mean(axis=1) for idx in _resample_blocks(n, resamples, seed)])
    return _percentile_interval(means, level)


def bootstrap_interval(
    values: Sequence[_T],
    statistic: Callable[[Sequence[_T]], float],
    *,
    seed: int,
    resamples: int = 2000,
    level: float = 0.95,
) -> Interval:
    """Percentile bootstrap interval for any statistic of `values`, reproducible from `seed`.

    Each resample draws `len(values)` items with replacement (indexes from
    `numpy.random.default_rng(seed)`, the same draws as `bootstrap_mean_interval`) and
    applies `statistic` to them; the interval is the `(1-level)/2` and `(1+level)/2`
    quantiles of the resampled statistics. Items are opaque: resample whole units (one
    conversation's tries, say) so that what is correlated stays together.

    Args:
        values: the units to resample (at least one).
        statistic: a function of a resample, returning a finite number.
        seed: seed of the generator; the same seed and values give the same interval.
        resamples: number of bootstrap resamples (at least 100).
        level: confidence level.

    Returns:
        The interval.

    Raises:
        ValueError: no values, a level outside (0, 1), fewer than 100 resamples, or a
            statistic that is not finite.

    Examples:
        >>> tries = [(3, 3), (1, 3), (0, 3), (3, 3)]
        >>> def all_passed(sample):
        ...     return sum(c == n for c, n in sample) / len(sample)
        >>> i = bootstrap_interval(tries, all_passed, seed=0)
        >>> i == bootstrap_interval(tries, all_passed, seed=0), i.contains(0.5)
        (True, True)
    """
    import numpy as np  # deferred: numpy costs ~90 ms at import

    _check_bootstrap(level, resamples)
    items = list(values)
    n = len(items)
    if n == 0:
        raise ValueError("need at least one value to resample")
    results = np.fromiter(
        (
            statistic([items[i] for i in row])
            for idx in _resample_blocks(n, resamples, seed)
            for row in idx.tolist()
        ),
        dtype=np.float64,
        count=resamples,
    )
    if not np.all(np.isfinite(results)):
        raise ValueError("the statistic returned a value that is not finite")
    return _percentile_interval(results, level)


def _check_bootstrap(level: float, resamples: int) -> None:
    _check_level(level)
    if resamples < 100:
        raise ValueError(f"need at least 100 resamples, got {resamples}")


def _resample_blocks(n: int, resamples: int, seed: int) -> Iterator[Any]:
    """Index arrays of `resamples` draws of `n` items with replacement, in bounded blocks.

    The one source of draws of both bootstrap functions: the same seed and size give the
    same resamples in each.
    """
    rng = _generator(seed)
    block = max(1, _BOOTSTRAP_BLOCK_CELLS // n)
    for start in range(0, resamples, block):
        yield rng.integers(0, n, size=(min(block, resamples - start), n))


def _generator(seed: int) -> Any:
    """The numpy generator of any integer seed.

    A non-negative seed is numpy's own: `numpy.random.default_rng(seed)`. numpy refuses a
    negative one, which a stored run may hold (run files are untrusted input): its
    magnitude seeds a child sequence (`spawn_key=(1,)`), so that `-7` and `7` still
    draw differently and the same seed always draws the same.
    """
    import numpy as np  # deferred: numpy costs ~90 ms at import

    if seed >= 0:
        return np.random.default_rng(seed)
    return np.random.default_rng(np.random.SeedSequence(-seed, spawn_key=(1,)))


def _percentile_interval(statistics: Any, level: float) -> Interval:
    """The `(1-level)/2` and `(1+level)/2` quantiles of resampled statistics."""
    import numpy as np  # deferred: numpy costs ~90 ms at import

    tail = (1.0 - level) / 2.0
    low, high = np.quantile(statistics, [tail, 1.0 - tail])
    return Interval(float(low), float(high), level)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the two discordant counts.

    Args:
        b: pairs that passed in the first run and failed in the second.
        c: pairs that failed in the first run and passed in the second.

    Returns:
        `min(1, 2·P[X <= min(b, c)])` with `X ~ Binomial(b + c, 0.5)`; 1.0 when there
        are no discordant pairs.

    Raises:
        ValueError: a negative count.

    Examples:
        >>> round(mcnemar_exact(1, 7), 4)
        0.0703
    """
    if b < 0 or c < 0:
        raise ValueError(f"counts must be >= 0, got b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    p = 2.0 * float(_scipy().binom.cdf(min(b, c), n, 0.5))
    return min(1.0, p)


def paired_difference_interval(
    both: int, first_only: int, second_only: int, neither: int, *, level: float = 0.95
) -> Interval:
    """Newcombe's hybrid score interval for `rate(second) - rate(first)` on paired data.

    The four counts are the paired 2x2 table: passed in both runs, only in the first,
    only in the second, in neither. The difference is `(second_only - first_only) / n`.

    Args:
        both: pairs that passed in both runs.
        first_only: pairs that passed only in the first run.
        second_only: pairs that passed only in the second run.
        neither: pairs that failed in both runs.
        level: confidence level.

    Returns:
        The interval for the difference, within [-1, 1]; `[-1, 1]` with no pairs.

    Raises:
        ValueError: a negative count or a level outside (0, 1).

    Examples:
        >>> i = paired_difference_interval(40, 5, 1, 4)
        >>> i.contains(-0.08)
        True
    """
    _check_level(level)
    if min(both, first_only, second_only, neither) < 0:
        raise ValueError("counts must be >= 0")
    n = both + first_only + second_only + neither
    if n == 0:
        return Interval(-1.0, 1.0, level)
    p1, p2 = (both + first_only) / n, (both + second_only) / n
    w1 = wilson_interval(both + first_only, n, level=level)
    w2 = wilson_interval(both + second_only, n, level=level)
    denom = (both + first_only) * (second_only + neither) * (both + second_only)
    denom *= first_only + neither
    phi = (both * neither - first_only * second_only) / math.sqrt(denom) if denom else 0.0
    # The interval is built for p2 - p1: its lower end pairs p2's lower error with p1's
    # upper error, and the correlation term shrinks both when the runs agree.
    lower_err = math.sqrt(
        max(
            0.0,
            (p2 - w2.low) ** 2 - 2 * phi * (p2 - w2.low) * (w1.high - p1) + (w1.high - p1) ** 2,
        )
    )
    upper_err = math.sqrt(
        max(
            0.0,
            (w2.high - p2) ** 2 - 2 * phi * (w2.high - p2) * (p1 - w1.low) + (p1 - w1.low) ** 2,
        )
    )
    diff = p2 - p1
    return Interval(max(-1.0, diff - lower_err), min(1.0, diff + upper_err), level)


def _scipy() -> Any:
    """scipy.stats, imported on first use: it costs ~0.3 s and tens of MB at import."""
    from scipy import stats

    return stats
