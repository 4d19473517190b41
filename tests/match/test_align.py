"""The one alignment: optimal (never greedy), by blocks, and monotone when ordered."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.match import align
from toolgrade.match._align import first_best, solve_block

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


blocks = st.tuples(st.integers(1, 5), st.integers(1, 5)).flatmap(
    lambda shape: st.lists(
        st.lists(st.sampled_from([1.0, 1.0, 4.0]), min_size=shape[1], max_size=shape[1]),
        min_size=shape[0],
        max_size=shape[0],
    )
)


@settings(deadline=None, max_examples=300)
@given(blocks)
def test_solve_block_small_block_keeps_the_first_best_candidate(credit: list[list[float]]) -> None:
    # score_calls' fast path relies on this tie-break (toolgrade.match._pairing._first_best).
    rows, cols = list(range(len(credit))), list(range(len(credit[0])))
    if not first_best(len(rows), len(cols)):
        return
    if len(rows) <= len(cols):
        candidates = [
            list(zip(rows, c, strict=True)) for c in itertools.permutations(cols, len(rows))
        ]
    else:
        candidates = [
            [(i, j) for j, i in zip(cols, c, strict=True)]
            for c in itertools.permutations(rows, len(cols))
        ]
    first = max(candidates, key=lambda pairs: sum(credit[i][j] for i, j in pairs))
    assert sorted(solve_block(credit, rows, cols)) == sorted(first)


def test_first_best_sizes_single_lines_and_small_blocks() -> None:
    assert first_best(1, 9) and first_best(9, 1)
    assert first_best(5, 5)  # 120 candidates
    assert not first_best(4, 6)  # 360 candidates: scipy
    assert not first_best(6, 6)
