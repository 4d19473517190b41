"""Power of a paired comparison: the smallest change a suite can detect, and its size.

Two runs over the same `n` cases are compared with McNemar's exact test
(`toolgrade.stats.mcnemar_exact`); all the evidence is in the *discordant* cases, the ones
that passed in one run and failed in the other. Write `d` for the discordance (the
share of cases that flip, `(b + c) / n`) and `Δ` for the true change of accuracy
(`(c - b) / n` in expectation). A change can never be larger than the flips that carry
it, so `|Δ| <= d`.

- **Exact power** (`mcnemar_power`). The number of discordant cases is
  `M ~ Binomial(n, d)`; given `M = m`, the cases fixed are `C ~ Binomial(m, π)` with
  `π = (d + Δ) / (2d)`. The exact test rejects when `min(C, m - C) <= k_m`, the largest
  `k` with `2·P[Binomial(m, ½) <= k] < alpha`, so the power is
  `Σ_m P[M = m] · (P[C <= k_m] + P[C >= m - k_m])`: the conditional binomial power of
  the exact test summed over the number of discordant pairs (Connor 1987 gives this
  unconditional form and its normal approximation; Miller 2024, "Adding error bars to
  evals", arXiv 2411.00640, §4 the paired-difference view of it for evals). The sum runs
  over the values of `M` that hold all but 1e-12 of its probability.
- **Minimum detectable effect** (`minimum_detectable_effect`): the smallest `|Δ|` whose
  exact power reaches `power` (0.8 by default) at two-sided `alpha`, found by bisection
  (the power grows with `|Δ|` at fixed `n` and `d`). None when even `|Δ| = d`, every
  flip in one direction, is not detected that often: then the suite is too small for
  any change at that discordance.
- **Cases needed** (`cases_needed`): the smallest `n` whose exact power reaches `power`.
  The exact test's power is a saw-tooth in `n` (the rejection region moves in whole
  cases), so the search (bisection, then down while the size below still reaches it)
  finds a size that reaches it with none just below. Connor's normal approximation,
  `n = (z_{1-alpha/2}·√d + z_{1-β}·√(d - Δ²))² / Δ²` (`connor_cases_needed`), starts the
  search and stands in for it beyond 20,000 cases, where the two agree within a few
  percent.
- **Cases to show equivalence** (`equivalence_cases_needed`): two one-sided tests at
  `alpha` each (TOST) with the paired difference's per-case variance `d - Δ²`:
  `n = (z_{1-alpha} + z_{1-β'})² (d - Δ²) / (θ - |Δ|)²`, with `β' = β/2` when `Δ = 0` and `β`
  otherwise (Chow, Shao & Wang, "Sample Size Calculations in Clinical Research", 2nd
  ed. 2008, §3.2); a normal approximation.
- **Repeats** (`repeats_needed`, `flip_rate`). Running each case `k` times and
  averaging its tries shrinks only the part of the discordance that is noise (cases that
  flip between identical runs, the *flip rate* `f`), never the real differences between
  the cases (Miller 2024, §3, "reducing variance by resampling"): the per-case variance
  `d - Δ²` splits into `s = d - Δ² - f` and `f`, and with `k` tries it becomes
  `s + f / k`. The cases needed with `k` tries are
  `(z_{1-alpha/2} + z_{1-β})² (s + f/k) / Δ²`; no number of repeats helps once `s` alone is
  too large (normal approximation).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

__all__ = [
    "DEFAULT_DISCORDANCE",
    "cases_needed",
    "connor_cases_needed",
    "equivalence_cases_needed",
    "flip_rate",
    "mcnemar_power",
    "minimum_detectable_effect",
    "repeats_needed",
]

DEFAULT_DISCORDANCE = 0.15
"""The share of cases assumed to flip between two runs when nothing measured it: 13% of
the built-in suite's 85 cases flipped between two modes of one small model
(tests/data/real), and tau2-bench reports 10-55% between identical runs."""

# Beyond this many cases the exact search gives way to Connor's approximation.
_EXACT_CASES = 20_000
# Probability of the number of discordant cases left out of the exact sum.
_TAIL = 1e-12


def _check(discordance: float, alpha: float, power: float = 0.8) -> None:
    if not 0.0 <= discordance <= 1.0:
        raise ValueError(f"discordance must be in 0..1, got {discordance}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be between 0 and 1, got {power}")


def mcnemar_power(n: int, discordance: float, delta: float, *, alpha: float = 0.05) -> float:
    """Exact power of the two-sided exact McNemar test on `n` paired cases.

    Args:
        n: paired cases.
        discordance: `d`, the expected share of cases that flip between the runs.
        delta: the true change of accuracy, a fraction (its sign does not matter).
        alpha: the test's significance level (reject when p < alpha).

    Returns:
        The probability that the test rejects; 0 without cases or flips.

    Raises:
        ValueError: `|delta| > discordance`, or a rate or level out of range.

    Examples:
        >>> round(mcnemar_power(85, 0.13, 0.12), 2)
        0.9
    """
    _check(discordance, alpha)
    delta = abs(delta)
    if delta > discordance + 1e-12:
        raise ValueError(
            f"a change of {delta} needs at least as much discordance, got {discordance}"
        )
    if n <= 0 or discordance == 0.0:
        return 0.0
    import numpy as np  # deferred: numpy costs ~90 ms at import

    binom = _scipy().binom
    m = _discordant_range(n, discordance)
    k = _rejection_bounds(m, alpha)
    pi = min(1.0, (discordance + delta) / (2.0 * discordance))
    reject = np.where(k >= 0, binom.cdf(k, m, pi) + binom.sf(m - k - 1, m, pi), 0.0)
    return float(min(1.0, np.sum(binom.pmf(m, n, discordance) * reject)))


def _discordant_range(n: int, discordance: float) -> Any:
    """The numbers of discordant cases holding all but `_TAIL` of their probability."""
    import numpy as np

    binom = _scipy().binom
    low = max(0, int(binom.ppf(_TAIL, n, discordance)) - 1)
    high = min(n, int(binom.isf(_TAIL, n, discordance)) + 1)
    return np.arange(low, high + 1)


def _rejection_bounds(m: Any, alpha: float) -> Any:
    """Per number of discordant cases `m`, the largest `k` with 2·F(k; m, ½) < alpha (-1: none)."""
    import numpy as np

    binom = _scipy().binom
    half = alpha / 2.0
    k = np.asarray(binom.ppf(half, m, 0.5), dtype=np.int64) - 1
    # ppf and cdf round independently: settle the boundary on the cdf, the test's own rule.
    k = np.where((k + 1 < m) & (binom.cdf(k + 1, m, 0.5) < half), k + 1, k)
    k = np.where((k >= 0) & (binom.cdf(k, m, 0.5) >= half), k - 1, k)
    return np.maximum(k, -1)


@lru_cache(maxsize=256)
def minimum_detectable_effect(
    n: int, discordance: float, *, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """The smallest change the exact McNemar test detects with probability `power`.

    Remembered for the last 256 arguments: every report of a run asks for the same one.

    Args:
        n: paired cases.
        discordance: the share of cases that flip between the runs, e.g. the observed
            `(b + c) / n`.
        alpha: two-sided significance level.
        power: the probability of detecting the change.

    Returns:
        The change as a fraction (0.12 = 12 points), or None when no change is detected
        that often at this size and discordance (none at all without flips).

    Examples:
        >>> round(minimum_detectable_effect(85, 0.13), 3)
        0.11
    """
    _check(discordance, alpha, power)
    if mcnemar_power(n, discordance, discordance, alpha=alpha) < power:
        return None
    low, high = 0.0, discordance
    for _ in range(40):
        middle = (low + high) / 2.0
        if mcnemar_power(n, discordance, middle, alpha=alpha) >= power:
            high = middle
        else:
            low = middle
    return high


def connor_cases_needed(
    delta: float, discordance: float, *, alpha: float = 0.05, power: float = 0.8
) -> int | None:
    """Connor's (1987) normal approximation of the paired cases needed to detect `delta`.

    Returns:
        `ceil((z_{1-alpha/2}·√d + z_{1-β}·√(d - Δ²))² / Δ²)`; None when `delta` is 0 or
        larger than the discordance.

    Examples:
        >>> connor_cases_needed(0.05, 0.15)
        469
    """
    _check(discordance, alpha, power)
    delta = abs(delta)
    if delta == 0.0 or delta > discordance:
        return None
    norm = _scipy().norm
    z_a, z_b = float(norm.isf(alpha / 2.0)), float(norm.isf(1.0 - power))
    root = z_a * math.sqrt(discordance) + z_b * math.sqrt(max(0.0, discordance - delta**2))
    return max(1, math.ceil(root**2 / delta**2))


def cases_needed(
    delta: float, discordance: float, *, alpha: float = 0.05, power: float = 0.8
) -> int | None:
    """The paired cases needed to detect `delta` with the exact McNemar test.

    Args:
        delta: the change to detect, a fraction (0.05 = 5 points).
        discordance: the share of cases expected to flip between the runs (at least
            `|delta|`: the change is carried by flips).
        alpha: two-sided significance level.
        power: the probability of detecting the change.

    Returns:
        An `n` whose exact power reaches `power`, with none just below it (Connor's
        approximation beyond 20,000 cases); None when `delta` is 0 or larger than the discordance.

    Examples:
        >>> cases_needed(0.05, 0.15)
        498
    """
    start = connor_cases_needed(delta, discordance, alpha=alpha, power=power)
    if start is None or start > _EXACT_CASES:
        return start

    def enough(n: int) -> bool:
        return mcnemar_power(n, discordance, delta, alpha=alpha) >= power

    low, high = 0, max(2, start)
    while not enough(high):
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    # The saw-tooth can leave sizes just below that reach it too: step down to the first.
    while high > 1 and enough(high - 1):
        high -= 1
    return high


def equivalence_cases_needed(
    delta: float,
    discordance: float,
    margin: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
) -> int | None:
    """Paired cases needed for two one-sided tests to show `|change| < margin`.

    Args:
        delta: the true change, a fraction (inside the margin).
        discordance: the share of cases expected to flip.
        margin: the equivalence margin, a fraction (the comparison's threshold).
        alpha: the level of each one-sided test.
        power: the probability of showing equivalence.

    Returns:
        The cases (normal approximation), or None when `|delta| >= margin` (no size
        shows that) or the discordance is below `|delta|`.

    Examples:
        >>> equivalence_cases_needed(0.0, 0.15, 0.02)
        3212
    """
    _check(discordance, alpha, power)
    delta = abs(delta)
    if margin <= 0.0 or delta >= margin or delta > discordance:
        return None
    norm = _scipy().norm
    beta = 1.0 - power
    z_b = float(norm.isf(beta / 2.0 if delta == 0.0 else beta))
    variance = max(discordance - delta**2, 1e-12)
    return max(1, math.ceil((float(norm.isf(alpha)) + z_b) ** 2 * variance / (margin - delta) ** 2))


def repeats_needed(
    n: int,
    delta: float,
    discordance: float,
    flips: float,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    most: int = 100,
) -> int | None:
    """Tries per case needed for `n` cases to detect `delta` (Miller 2024, §3).

    Args:
        n: the suite's cases.
        delta: the change to detect, a fraction.
        discordance: the share of cases expected to flip with one try each.
        flips: the flip rate, the part of `discordance` that is noise (cases that flip
            between two runs of identical settings).
        alpha: two-sided significance level.
        power: the probability of detecting the change.
        most: the largest number of tries considered.

    Returns:
        The smallest number of tries (1 when one is enough), or None when even `most`
        tries are not enough: the real differences between cases, not noise, are what
        a larger suite must cover.

    Examples:
        >>> repeats_needed(85, 0.10, 0.20, 0.15)
        3
    """
    _check(discordance, alpha, power)
    delta = abs(delta)
    if n <= 0 or delta == 0.0 or delta > discordance:
        return None
    norm = _scipy().norm
    z = float(norm.isf(alpha / 2.0)) + float(norm.isf(1.0 - power))
    noise = min(max(flips, 0.0), discordance - delta**2)
    signal = discordance - delta**2 - noise
    room = n * delta**2 / z**2 - signal
    if room <= 0.0:
        return None
    if noise <= room:
        return 1
    tries = math.ceil(noise / room)
    return tries if tries <= most else None


def flip_rate(tries: Iterable[tuple[int, int]]) -> float | None:
    """The flip rate between identical runs, from cases run several times.

    Args:
        tries: per case, `(correct, k)`: correct tries out of `k`. Cases with fewer than
            two tries say nothing and are left out.

    Returns:
        The mean over cases of `2·c·(k - c) / (k·(k - 1))`, the chance that two of a
        case's tries disagree (an unbiased estimate of `2p(1 - p)`); None without a case
        of two or more tries.

    Examples:
        >>> flip_rate([(3, 3), (1, 2), (0, 3)])
        0.3333333333333333
    """
    rates = [2.0 * c * (k - c) / (k * (k - 1)) for c, k in tries if k >= 2]
    return sum(rates) / len(rates) if rates else None


def _scipy() -> Any:
    """scipy.stats, imported on first use: it costs ~0.3 s and tens of MB at import."""
    from scipy import stats

    return stats
