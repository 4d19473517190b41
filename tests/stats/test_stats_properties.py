"""Properties that must hold for every input."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.stats import mcnemar_exact, paired_difference_interval, wilson_interval

counts = st.integers(min_value=0, max_value=400)


@settings(max_examples=150, deadline=None)
@given(n=st.integers(min_value=1, max_value=2000), data=st.data())
def test_wilson_interval_contains_estimate_within_unit_range(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(min_value=0, max_value=n))
    interval = wilson_interval(k, n)
    assert 0.0 <= interval.low <= k / n <= interval.high <= 1.0


@settings(max_examples=150, deadline=None)
@given(b=counts, c=counts)
def test_mcnemar_symmetric_and_a_probability(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    assert p == mcnemar_exact(c, b)
    assert 0.0 < p <= 1.0


@settings(max_examples=150, deadline=None)
@given(both=counts, first=counts, second=counts, neither=counts)
def test_paired_difference_interval_contains_estimate(
    both: int, first: int, second: int, neither: int
) -> None:
    n = both + first + second + neither
    interval = paired_difference_interval(both, first, second, neither)
    if n:
        diff = (second - first) / n
        assert -1.0 <= interval.low <= diff + 1e-12
        assert diff - 1e-12 <= interval.high <= 1.0
