"""Optimal pairing of expected calls with actual calls.

Both `score_calls` and the judge pair calls here, from a credit matrix: `credit[i][j]`
is what pairing expected call `i` with actual call `j` is worth (0 = never pair them).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

__all__ = ["align", "distinct_maxima", "first_best", "solve_block"]


def align(credit: Sequence[Sequence[float]], *, ordered: bool = False) -> list[tuple[int, int]]:
    """Pair rows (expected calls) with columns (actual calls) to maximise total credit.

    Unordered pairing is an optimal assignment (scipy's `linear_sum_assignment`), never a
    greedy scan. The credit matrix is first split into independent blocks (rows and
    columns linked by positive credit, e.g. calls of the same tool), so the common case
    of distinct tools costs no solver call at all.

    Ordered pairing (`ordered=True`) keeps the order of both sides: pairs (i1, j1) and
    (i2, j2) with i1 < i2 always have j1 < j2. It is the maximum-credit monotone
    alignment, computed by dynamic programming like a diff.

    Args:
        credit: a rows x columns matrix of non-negative numbers.
        ordered: keep the order of both sides.

    Returns:
        The pairs `(row, column)` with positive credit, sorted by row.

    Examples:
        >>> align([[2.0, 1.5], [1.0, 0.0]])  # greedy would take (0, 0) and stop there
        [(0, 1), (1, 0)]
        >>> align([[0.0, 1.0], [1.0, 0.0]], ordered=True)
        [(0, 1)]
    """
    if not credit or not credit[0]:
        return []
    pairs = _align_ordered(credit) if ordered else _align_any(credit)
    return sorted(pairs)


def _align_any(credit: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    n_rows, n_cols = len(credit), len(credit[0])
    quick = distinct_maxima(credit)
    if quick is not None:
        return quick
    # Union-find over rows (0..n_rows-1) and columns (n_rows..): one block per component.
    parent = list(range(n_rows + n_cols))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i in range(n_rows):
        for j in range(n_cols):
            if credit[i][j] > 0:
                parent[find(i)] = find(n_rows + j)
    blocks: dict[int, tuple[list[int], list[int]]] = {}
    for i in range(n_rows):
        blocks.setdefault(find(i), ([], []))[0].append(i)
    for j in range(n_cols):
        blocks.setdefault(find(n_rows + j), ([], []))[1].append(j)
    pairs: list[tuple[int, int]] = []
    for rows, cols in blocks.values():
        if rows and cols:
            pairs.extend(solve_block(credit, rows, cols))
    return [(i, j) for i, j in pairs if credit[i][j] > 0]


def solve_block(
    credit: Sequence[Sequence[float]], rows: list[int], cols: list[int]
) -> list[tuple[int, int]]:
    """The optimal pairs of one block: rows and columns (both ascending, neither empty).

    A single row takes its first best column, a single column its first best row; other
    blocks are searched exhaustively (keeping the first best candidate) or solved by
    scipy (see `first_best`).
    """
    if len(rows) == 1 or len(cols) == 1:
        best = max(((i, j) for i in rows for j in cols), key=lambda p: credit[p[0]][p[1]])
        return [best]
    return _solve_block(credit, rows, cols)


def distinct_maxima(credit: Sequence[Sequence[float]]) -> list[tuple[int, int]] | None:
    """Give each row with credit its own column that reaches the row's maximum.

    Every assignment is worth at most the sum of the row maxima, so when each such row
    gets a distinct column reaching its maximum, that sum is reached and the pairing is
    optimal (the common case of calls that are mostly right, duplicates included: rows
    with the fewest best columns choose first). Otherwise return None and leave the
    block to the exact solvers.

    `score_calls`' fast path (`toolgrade.match._pairing`) reproduces the pairs this picks, and
    those of `solve_block`: a change to either tie-break must change it too (the property
    tests in tests/test_calls_pairing.py tell).
    """
    options: list[tuple[int, int, list[int]]] = []
    for i, row in enumerate(credit):
        top = max(row)
        if top > 0:
            if row.count(top) == 1:
                best = [row.index(top)]  # the usual case, found without a Python loop
            else:
                best = [j for j, value in enumerate(row) if value == top]
            options.append((len(best), i, best))
    options.sort()  # fewest best columns first, then by row: no two entries tie
    taken: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for _, i, best in options:
        for j in best:
            if j not in taken:
                break
        else:
            return None
        taken.add(j)
        pairs.append((i, j))
    return pairs


_ENUMERATION_LIMIT = 120
"""Largest number of candidate assignments tried one by one; bigger blocks go to scipy."""


def first_best(n_rows: int, n_cols: int) -> bool:
    """Whether `solve_block` returns the first best candidate on a block of this size.

    Candidates are the pairings of every row of the smaller side, in the order of
    `itertools.permutations` over the larger side's positions: a single row or column is
    searched so, and so are blocks small enough to try every candidate; scipy solves the rest.
    """
    small, large = sorted((n_rows, n_cols))
    return small == 1 or math.perm(large, small) <= _ENUMERATION_LIMIT


def _solve_block(
    credit: Sequence[Sequence[float]], rows: list[int], cols: list[int]
) -> list[tuple[int, int]]:
    small, large = (rows, cols) if len(rows) <= len(cols) else (cols, rows)
    if first_best(len(rows), len(cols)):
        # Exhaustive search: exact, and far cheaper than scipy's call overhead at this size.
        def value(chosen: tuple[int, ...]) -> float:
            pairs = zip(small, chosen, strict=True)
            if small is rows:
                return sum(credit[i][j] for i, j in pairs)
            return sum(credit[i][j] for j, i in pairs)

        best = max(itertools.permutations(large, len(small)), key=value)
        matched = zip(small, best, strict=True)
        return list(matched) if small is rows else [(i, j) for j, i in matched]
    from scipy.optimize import linear_sum_assignment  # deferred: scipy is slow to import

    sub = [[credit[i][j] for j in cols] for i in rows]
    row_ind, col_ind = linear_sum_assignment(sub, maximize=True)
    return [(rows[int(r)], cols[int(c)]) for r, c in zip(row_ind, col_ind, strict=True)]


def _align_ordered(credit: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    n_rows, n_cols = len(credit), len(credit[0])
    best = [[0.0] * (n_cols + 1) for _ in range(n_rows + 1)]
    for i in range(1, n_rows + 1):
        for j in range(1, n_cols + 1):
            take = best[i - 1][j - 1] + credit[i - 1][j - 1] if credit[i - 1][j - 1] > 0 else -1.0
            best[i][j] = max(best[i - 1][j], best[i][j - 1], take)
    pairs: list[tuple[int, int]] = []
    i, j = n_rows, n_cols
    while i > 0 and j > 0:
        c = credit[i - 1][j - 1]
        if c > 0 and best[i][j] == best[i - 1][j - 1] + c:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            j -= 1
    return pairs
