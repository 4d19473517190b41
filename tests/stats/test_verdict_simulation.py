"""The verdicts by simulation: false regressions, power at the reported MDE, equivalence.

Each test draws paired runs from a known truth with a fixed seed and applies the very
rule of `compare_runs` (McNemar's exact p, the 90% paired interval, `verdict_for`).
"""

from __future__ import annotations

import numpy as np
import pytest

from toolgrade.compare import verdict_for
from toolgrade.compare._verdict import equivalence_interval
from toolgrade.power import mcnemar_power, minimum_detectable_effect
from toolgrade.stats import mcnemar_exact


def _verdict(both: int, broken: int, fixed: int, neither: int, threshold: float = 2.0) -> str:
    n = both + broken + fixed + neither
    return verdict_for(
        (fixed - broken) / n,
        mcnemar_exact(broken, fixed),
        threshold=threshold,
        alpha=0.05,
        equivalence=equivalence_interval(both, broken, fixed, neither, alpha=0.05),
    )


def _tables(rng: np.random.Generator, n: int, d: float, delta: float, runs: int) -> np.ndarray:
    """`runs` paired tables (both, broken, fixed, neither) of `n` cases, 50% pass rate."""
    fixed, broken = (d + delta) / 2, (d - delta) / 2
    both = (1 - d) / 2
    return rng.multinomial(n, [both, broken, fixed, 1 - d - both], size=runs)


@pytest.mark.slow
def test_no_change_with_clustered_repeats_rarely_reads_as_a_regression() -> None:
    # 85 cases, each with its own pass rate (many flaky: Beta(0.5, 0.5)), three tries per
    # run reduced by majority as compare does; nothing changes between the runs.
    rng = np.random.default_rng(32)
    runs, n, tries = 2000, 85, 3
    rates = rng.beta(0.5, 0.5, size=(runs, n))
    before = rng.binomial(tries, rates) * 2 > tries
    after = rng.binomial(tries, rates) * 2 > tries
    broken = (before & ~after).sum(axis=1)
    fixed = (~before & after).sum(axis=1)
    both = (before & after).sum(axis=1)
    verdicts = [
        _verdict(int(a), int(b), int(c), n - int(a) - int(b) - int(c))
        for a, b, c in zip(both, broken, fixed, strict=True)
    ]
    flips = float(np.mean((broken + fixed) / n))
    assert 0.1 < flips < 0.4  # a noisy suite, as measured on real servers
    assert verdicts.count("regression") / runs <= 0.05
    assert verdicts.count("improvement") / runs <= 0.05


@pytest.mark.parametrize(("n", "d"), [(85, 0.15), (200, 0.1), (49, 0.3)])
def test_a_change_of_the_reported_mde_is_detected_about_80_percent_of_the_time(
    n: int, d: float
) -> None:
    mde = minimum_detectable_effect(n, d)
    assert mde is not None
    rng = np.random.default_rng(n)
    runs = 4000
    tables = _tables(rng, n, d, mde, runs)
    detected = sum(mcnemar_exact(int(t[1]), int(t[2])) < 0.05 for t in tables) / runs
    assert 0.75 <= detected <= 0.85
    assert mcnemar_power(n, d, mde) == pytest.approx(0.8, abs=1e-6)


@pytest.mark.slow
def test_equivalence_is_shown_when_there_is_none_to_see_and_rarely_at_the_margin() -> None:
    rng = np.random.default_rng(7)
    runs, n, d = 1000, 2000, 0.05
    same = [_verdict(*map(int, t)) for t in _tables(rng, n, d, 0.0, runs)]
    # TOST power at Δ = 0, n = 2000, d = 0.05: about 0.96 by the normal approximation.
    assert same.count("equivalent") / runs >= 0.9
    assert same.count("regression") + same.count("improvement") <= 0.05 * runs
    at_margin = [_verdict(*map(int, t)) for t in _tables(rng, n, d, -0.02, runs)]
    # A true change of exactly the threshold is called equivalent at most alpha of the time.
    assert at_margin.count("equivalent") / runs <= 0.05


def test_a_small_suite_stays_inconclusive_rather_than_equivalent() -> None:
    rng = np.random.default_rng(11)
    verdicts = [_verdict(*map(int, t)) for t in _tables(rng, 85, 0.15, 0.0, 500)]
    assert verdicts.count("equivalent") == 0
    assert verdicts.count("inconclusive") / 500 >= 0.95
