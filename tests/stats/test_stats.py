"""Intervals and paired tests against published values and by simulation."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from toolgrade.stats import (
    Interval,
    bootstrap_mean_interval,
    mcnemar_exact,
    paired_difference_interval,
    wilson_interval,
)

DATA = Path(__file__).parents[1] / "data" / "stats"
WILSON = json.loads((DATA / "wilson_published.json").read_text(encoding="utf-8"))["cases"]
MCNEMAR = json.loads((DATA / "mcnemar_published.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("row", WILSON, ids=lambda r: f"{r['successes']}/{r['n']}")
def test_wilson_published_values_match_to_four_decimals(row: dict[str, float]) -> None:
    interval = wilson_interval(int(row["successes"]), int(row["n"]))
    assert interval.low == pytest.approx(row["low"], abs=5e-5)
    assert interval.high == pytest.approx(row["high"], abs=5e-5)
    assert interval.level == 0.95


def test_wilson_no_trials_is_whole_unit_interval() -> None:
    assert wilson_interval(0, 0) == Interval(0.0, 1.0)


def test_wilson_all_successes_reaches_one() -> None:
    interval = wilson_interval(29, 29)
    assert interval.high == 1.0
    assert interval.low == pytest.approx(1 - 0.1170, abs=1e-4)


def test_wilson_higher_level_widens_interval() -> None:
    assert wilson_interval(30, 50, level=0.99).width > wilson_interval(30, 50).width


@pytest.mark.parametrize(("k", "n"), [(-1, 5), (6, 5), (0, -1)])
def test_wilson_counts_out_of_range_raise(k: int, n: int) -> None:
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(k, n)


def test_wilson_bad_level_raises() -> None:
    with pytest.raises(ValueError, match="level"):
        wilson_interval(1, 2, level=1.5)


def test_wilson_simulated_coverage_is_near_nominal() -> None:
    """2,000 simulated runs of 50 cases at a true rate of 0.8: 93-97% must be covered."""
    rng = np.random.default_rng(20260101)
    true_rate, n, runs = 0.8, 50, 2000
    successes = rng.binomial(n, true_rate, size=runs)
    covered = sum(wilson_interval(int(k), n).contains(true_rate) for k in successes)
    assert 0.93 <= covered / runs <= 0.97


@pytest.mark.parametrize("row", MCNEMAR, ids=lambda r: f"b{r['b']}-c{r['c']}")
def test_mcnemar_exact_published_values_match(row: dict[str, float]) -> None:
    assert mcnemar_exact(int(row["b"]), int(row["c"])) == pytest.approx(row["p"], abs=1e-9)


def test_mcnemar_negative_count_raises() -> None:
    with pytest.raises(ValueError, match="counts"):
        mcnemar_exact(-1, 3)


def test_bootstrap_same_seed_same_interval() -> None:
    values = [random.Random(3).random() for _ in range(200)]
    assert bootstrap_mean_interval(values, seed=11) == bootstrap_mean_interval(values, seed=11)


def test_bootstrap_different_seed_different_interval() -> None:
    values = [i % 7 / 6 for i in range(200)]
    assert bootstrap_mean_interval(values, seed=1) != bootstrap_mean_interval(values, seed=2)


def test_bootstrap_interval_contains_sample_mean() -> None:
    values = [i % 3 / 2 for i in range(300)]
    interval = bootstrap_mean_interval(values, seed=0)
    assert interval.contains(float(np.mean(values)))
    assert 0 < interval.width < 0.2


def test_bootstrap_constant_values_zero_width() -> None:
    assert bootstrap_mean_interval([0.5] * 10, seed=0) == Interval(0.5, 0.5)


def test_bootstrap_empty_is_whole_unit_interval() -> None:
    assert bootstrap_mean_interval([], seed=0) == Interval(0.0, 1.0)


def test_bootstrap_large_input_uses_blocks_and_stays_reproducible() -> None:
    values = [float(i % 2) for i in range(5000)]
    first = bootstrap_mean_interval(values, seed=5, resamples=500)
    assert first == bootstrap_mean_interval(values, seed=5, resamples=500)
    assert first.contains(0.5)


def test_bootstrap_too_few_resamples_raises() -> None:
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_mean_interval([1.0], seed=0, resamples=10)


def test_paired_difference_newcombe_hand_computed_value() -> None:
    # 50 pairs: 40 both, 5 first only, 1 second only, 4 neither; difference -0.08.
    interval = paired_difference_interval(40, 5, 1, 4)
    assert interval.low == pytest.approx(-0.18857, abs=1e-4)
    assert interval.high == pytest.approx(0.01808, abs=1e-4)


def test_paired_difference_no_discordance_is_narrow_and_centred() -> None:
    interval = paired_difference_interval(30, 0, 0, 20)
    assert interval.contains(0.0)
    assert interval.width < 0.1


def test_paired_difference_no_pairs_is_whole_range() -> None:
    assert paired_difference_interval(0, 0, 0, 0) == Interval(-1.0, 1.0)


def test_paired_difference_simulated_coverage_is_near_nominal() -> None:
    """Newcombe's interval covers the true paired difference in roughly 95% of runs."""
    rng = np.random.default_rng(7)
    probabilities = [0.55, 0.10, 0.20, 0.15]  # both, first only, second only, neither
    true_diff = probabilities[2] - probabilities[1]
    tables = rng.multinomial(100, probabilities, size=1000)
    covered = sum(paired_difference_interval(*map(int, t)).contains(true_diff) for t in tables)
    assert 0.92 <= covered / 1000 <= 0.98
