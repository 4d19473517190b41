"""The power of a paired comparison: exact McNemar power, MDE, cases and repeats needed."""

from __future__ import annotations

import pytest

from toolgrade.power import (
    cases_needed,
    connor_cases_needed,
    equivalence_cases_needed,
    flip_rate,
    mcnemar_power,
    minimum_detectable_effect,
    repeats_needed,
)
from toolgrade.stats import mcnemar_exact


def _brute_power(n: int, d: float, delta: float, alpha: float) -> float:
    """The power by enumerating every (b, c) of a multinomial: no shortcut at all."""
    from scipy.stats import multinomial

    p_c, p_b = (d + delta) / 2, (d - delta) / 2
    total = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            if mcnemar_exact(b, c) < alpha:
                total += float(multinomial.pmf([b, c, n - b - c], n, [p_b, p_c, 1 - d]))
    return total


@pytest.mark.parametrize(("n", "d", "delta"), [(20, 0.3, 0.2), (30, 0.2, 0.1), (40, 0.5, 0.05)])
def test_exact_power_equals_enumeration(n: int, d: float, delta: float) -> None:
    assert mcnemar_power(n, d, delta) == pytest.approx(_brute_power(n, d, delta, 0.05), abs=1e-9)


def test_power_is_symmetric_in_the_sign_of_the_change() -> None:
    assert mcnemar_power(85, 0.15, -0.1) == mcnemar_power(85, 0.15, 0.1)


def test_power_under_the_null_stays_below_alpha() -> None:
    for n in (10, 50, 85, 400):
        assert mcnemar_power(n, 0.2, 0.0) <= 0.05


def test_power_without_cases_or_flips_is_zero() -> None:
    assert mcnemar_power(0, 0.2, 0.1) == 0.0
    assert mcnemar_power(50, 0.0, 0.0) == 0.0


def test_change_larger_than_the_discordance_raises() -> None:
    with pytest.raises(ValueError, match="discordance"):
        mcnemar_power(50, 0.05, 0.1)


@pytest.mark.parametrize(("d", "low", "high"), [(0.10, 0.09, 0.10), (0.20, 0.13, 0.14)])
def test_mde_of_85_cases_is_ten_to_fourteen_points(d: float, low: float, high: float) -> None:
    # The figures of issue 32: 85 cases where 10-20% flip detect 10-14 points.
    mde = minimum_detectable_effect(85, d)
    assert mde is not None
    assert low <= mde <= high
    assert mcnemar_power(85, d, mde) == pytest.approx(0.8, abs=1e-6)


def test_mde_is_none_when_no_change_is_detected_that_often() -> None:
    assert minimum_detectable_effect(49, 0.15) is None
    assert minimum_detectable_effect(85, 0.0) is None


def test_mde_shrinks_with_more_cases() -> None:
    sizes = [minimum_detectable_effect(n, 0.15) for n in (100, 400, 1600)]
    assert all(s is not None for s in sizes)
    assert sizes[0] > sizes[1] > sizes[2]  # type: ignore[operator]


def test_connor_matches_the_published_formula() -> None:
    # (1.96·√0.15 + 0.8416·√(0.15 - 0.0025))² / 0.0025 = 468.3 -> 469
    assert connor_cases_needed(0.05, 0.15) == 469
    assert connor_cases_needed(0.0, 0.15) is None
    assert connor_cases_needed(0.2, 0.15) is None


@pytest.mark.parametrize(("delta", "d"), [(0.05, 0.15), (0.1, 0.13), (0.02, 0.05)])
def test_cases_needed_reaches_the_power_and_the_size_below_does_not(delta: float, d: float) -> None:
    n = cases_needed(delta, d)
    assert n is not None
    assert mcnemar_power(n, d, delta) >= 0.8 > mcnemar_power(n - 1, d, delta)
    # The exact test is conservative: it needs a few percent more than Connor's normal form.
    connor = connor_cases_needed(delta, d)
    assert connor is not None
    assert connor <= n <= 1.15 * connor


def test_cases_needed_and_mde_agree() -> None:
    n = cases_needed(0.05, 0.15)
    assert n is not None
    mde = minimum_detectable_effect(n, 0.15)
    assert mde is not None
    assert mde <= 0.05


def test_cases_needed_beyond_the_exact_range_is_connor() -> None:
    assert cases_needed(0.002, 0.15) == connor_cases_needed(0.002, 0.15)


def test_equivalence_needs_more_cases_the_closer_the_change_is_to_the_margin() -> None:
    near = equivalence_cases_needed(0.015, 0.15, 0.02)
    far = equivalence_cases_needed(0.0, 0.15, 0.02)
    assert near is not None and far is not None
    assert near > far
    assert equivalence_cases_needed(0.03, 0.15, 0.02) is None


def test_repeats_help_only_against_noise() -> None:
    assert repeats_needed(85, 0.10, 0.20, 0.15) == 3
    assert repeats_needed(85, 0.10, 0.20, 0.0) is None  # all real differences: more cases
    assert repeats_needed(2000, 0.10, 0.20, 0.15) == 1


def test_flip_rate_is_the_chance_two_tries_disagree() -> None:
    assert flip_rate([(2, 4)]) == pytest.approx(4 / 6)
    assert flip_rate([(3, 3), (0, 2)]) == 0.0
    assert flip_rate([(1, 1)]) is None


@pytest.mark.parametrize("bad", [{"alpha": 0.0}, {"alpha": 1.0}, {"power": 1.0}])
def test_bad_levels_raise(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        minimum_detectable_effect(85, 0.15, **bad)
