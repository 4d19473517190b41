"""The one alignment: optimal (never greedy), by blocks, and monotone when ordered."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.match import align

cells = st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0])
credits = st.tuples(st.integers(1, 4), st.integers(1, 4)).flatmap(
    lambda shape: st.lists(
        st.lists(cells, min_size=shape[1], max_size=shape[1]),
        min_size=shape[0],
        max_size=shape[0],
    )
)


def _best(credit: list[list[float]], *, ordered: bool) -> float:
    rows, cols = len(credit), len(credit[0])
    best = 0.0
    for k in range(min(rows, cols) + 1):
        for rs in itertools.combinations(range(rows), k):
            for cs in itertools.permutations(range(cols), k):
                if ordered and list(cs) != sorted(cs):
                    continue
                pairs = list(zip(rs, cs, strict=True))
                if all(credit[i][j] > 0 for i, j in pairs):
                    best = max(best, sum(credit[i][j] for i, j in pairs))
    return best


def _check(credit: list[list[float]], pairs: list[tuple[int, int]]) -> float:
    assert len({i for i, _ in pairs}) == len(pairs)
    assert len({j for _, j in pairs}) == len(pairs)
    assert all(credit[i][j] > 0 for i, j in pairs)
    return sum(credit[i][j] for i, j in pairs)


@settings(deadline=None, max_examples=300)
@given(credits)
def test_align_any_order_is_optimal(credit: list[list[float]]) -> None:
    pairs = align(credit)
    assert _check(credit, pairs) == _best(credit, ordered=False)


@settings(deadline=None, max_examples=300)
@given(credits)
def test_align_ordered_is_optimal_and_monotone(credit: list[list[float]]) -> None:
    pairs = align(credit, ordered=True)
    columns = [j for _, j in sorted(pairs)]
    assert columns == sorted(columns)
    assert _check(credit, pairs) == _best(credit, ordered=True)


def test_align_beats_greedy() -> None:
    # Greedy would pair row 0 with column 0 (its best) and leave row 1 unpaired.
    assert align([[2.0, 1.5], [1.0, 0.0]]) == [(0, 1), (1, 0)]


def test_align_empty_inputs() -> None:
    assert align([]) == []
    assert align([[]]) == []
    assert align([[0.0, 0.0]]) == []
