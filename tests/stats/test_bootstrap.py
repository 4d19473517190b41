"""`bootstrap_interval`: any statistic, reproducible from its seed, with nominal coverage."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from toolgrade.stats import Interval, bootstrap_interval, bootstrap_mean_interval


def _mean(sample: Sequence[float]) -> float:
    return math.fsum(sample) / len(sample)


def test_bootstrap_interval_same_seed_same_interval() -> None:
    rnd = random.Random(8)
    values = [rnd.random() for _ in range(20)]
    first = bootstrap_interval(values, _mean, seed=11)
    assert first == bootstrap_interval(values, _mean, seed=11)
    assert first != bootstrap_interval(values, _mean, seed=12)


def test_bootstrap_interval_of_the_mean_draws_what_the_mean_interval_draws() -> None:
    rnd = random.Random(3)
    values = [rnd.random() for _ in range(37)]
    generic = bootstrap_interval(values, _mean, seed=4, resamples=500)
    vectorized = bootstrap_mean_interval(values, seed=4, resamples=500)
    assert generic.low == pytest.approx(vectorized.low, abs=1e-12)
    assert generic.high == pytest.approx(vectorized.high, abs=1e-12)


def test_bootstrap_interval_resamples_opaque_units() -> None:
    # Units are (passes, tries) of a conversation; the statistic sees whole units.
    units = [(3, 3), (0, 3), (3, 3), (2, 3), (3, 3), (1, 3)]

    def all_passed(sample: Sequence[tuple[int, int]]) -> float:
        return sum(c == n for c, n in sample) / len(sample)

    interval = bootstrap_interval(units, all_passed, seed=0, level=0.9)
    assert interval.level == 0.9
    assert 0.0 <= interval.low < 0.5 < interval.high <= 1.0


def test_bootstrap_interval_constant_data_has_zero_width() -> None:
    assert bootstrap_interval([0.25] * 9, _mean, seed=1) == Interval(0.25, 0.25)


def test_bootstrap_interval_covers_true_mean_near_nominal_rate() -> None:
    # 150 seeded samples of 60 Bernoulli(0.3) draws: the percentile interval of the mean
    # covers 0.3 close to 95% of the time (it runs a little narrow at this size).
    rnd = random.Random(2026)
    covered = 0
    trials = 150
    for trial in range(trials):
        sample = [float(rnd.random() < 0.3) for _ in range(60)]
        covered += bootstrap_interval(sample, _mean, seed=trial, resamples=400).contains(0.3)
    assert 0.88 <= covered / trials <= 0.99


def test_bootstrap_interval_wider_at_higher_level() -> None:
    values = [float(i % 3 == 0) for i in range(30)]
    narrow = bootstrap_interval(values, _mean, seed=2, level=0.8)
    wide = bootstrap_interval(values, _mean, seed=2, level=0.99)
    assert wide.low <= narrow.low and narrow.high <= wide.high
    assert wide.width > narrow.width


@pytest.mark.parametrize(
    ("values", "kwargs", "message"),
    [
        ([], {}, "at least one value"),
        ([1.0], {"resamples": 99}, "at least 100 resamples"),
        ([1.0], {"level": 1.0}, "confidence level"),
    ],
    ids=["empty", "too-few-resamples", "bad-level"],
)
def test_bootstrap_interval_bad_input_raises(
    values: list[float], kwargs: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        bootstrap_interval(values, _mean, seed=0, **kwargs)  # type: ignore[arg-type]


def test_bootstrap_interval_non_finite_statistic_raises() -> None:
    with pytest.raises(ValueError, match="not finite"):
        bootstrap_interval([1.0, 2.0], lambda s: math.nan, seed=0)
