"""score_calls' fast pairing against the definition: the same pairs, not only the same score.

`score_calls` pairs by classes of equal calls and reproduces the optimal assignment's own
choice among optimal pairings; `_score_general` builds the full credit matrix and solves it
(today's path). On random call lists made to be hard (few tools, small value domains, so
that duplicates, equal calls and partial matches are frequent; some nested arguments, some
NaN) both must give the same counts, score, and pairs (expected index -> actual index).
"""

from __future__ import annotations

import math
import os
import random
from collections import Counter
from typing import Any

import pytest

import toolgrade.match._pairing as pairing
from toolgrade import score_calls
from toolgrade.calls import AccuracyScore, _score_general
from toolgrade.match._align import first_best
from toolgrade.match._call_classes import equal_calls

CASES = int(os.environ.get("TOOLGRADE_PAIRING_CASES", "20000"))
"""Random cases compared per run, in `PARTS` tests: 20,000 take about 5 s on 2 busy cores;
`TOOLGRADE_PAIRING_CASES=100000` runs the 100,000 of the issue (about 25 s)."""
PARTS = 4

_NAMES = ["a", "b", "c", "d"]
_BARE: list[Any] = [0, 1, 2, "x", "y", None]
_SCALARS: list[Any] = [*_BARE, 1.0, 2.0, True, False]
_NESTED: list[Any] = [[1, 2], [2, 1], [True], [1], {"k": 1}, {"k": 1.0}, {"k": True}, {}]
_DOMAINS = [_BARE, _BARE, _SCALARS, _SCALARS + _NESTED]


class _Cases:
    """Random cases from one seed; `values` is the domain of the case being drawn."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.values = _BARE

    def value(self) -> Any:
        if self.values is not _BARE and self.rng.random() < 0.02:
            return math.nan  # equals nothing, not even itself
        return self.rng.choice(self.values)

    def call(self, names: list[str]) -> dict[str, Any]:
        keys = self.rng.sample(["p", "q"], self.rng.choice([0, 1, 1, 2]))
        return {"name": self.rng.choice(names), "arguments": {k: self.value() for k in keys}}

    def variant(self, call: dict[str, Any], names: list[str]) -> dict[str, Any]:
        """The same call (keys reordered, 1 as 1.0), or a near miss (an argument, the name)."""
        args = dict(reversed(call["arguments"].items()))
        roll = self.rng.random()
        if roll < 0.55:
            if self.values is not _BARE:
                args = {k: float(v) if type(v) is int else v for k, v in args.items()}
        elif roll < 0.85 and args:
            args[self.rng.choice(list(args))] = self.value()
        else:
            return {"name": self.rng.choice(names), "arguments": args}
        return {"name": call["name"], "arguments": args}

    def case(self) -> tuple[list[Any], list[Any]]:
        """Expected and actual calls, 0 to 12 each, many of them equal or nearly equal."""
        rng = self.rng
        self.values = rng.choice(_DOMAINS)
        names = _NAMES[: rng.choice([1, 1, 2, 2, 3, 4])]
        if rng.random() < 0.2:  # calls seldom repeated: expected calls drawn once each
            pool = [self.call(names) for _ in range(16)]
            expected = rng.sample(pool, rng.randint(0, 12))
        else:  # a small pool drawn from with repeats: duplicates on both sides
            pool = [self.call(names) for _ in range(rng.randint(1, 8))]
            expected = [rng.choice(pool) for _ in range(rng.randint(0, 12))]
        actual = []
        for _ in range(rng.randint(0, 12)):
            source = rng.choice(expected) if expected and rng.random() < 0.5 else rng.choice(pool)
            actual.append(self.variant(source, names) if rng.random() < 0.3 else source)
        return expected, actual


def _outcome(result: AccuracyScore) -> tuple[object, ...]:
    s = result._scored
    return (s.correct, s.incorrect, s.missed, s.extra, result.score, result.f1)


def _disagreement(seed: int, count: int) -> tuple[Any, ...] | None:
    """The first of `count` cases from `seed` that the two paths score apart, if any."""
    cases = _Cases(seed)
    for _ in range(count):
        expected, actual = cases.case()
        fast, general = (
            _outcome(score_calls(expected, actual)),
            _outcome(_score_general(expected, actual)),
        )
        if fast != general:
            return expected, actual, fast, general
    return None


@pytest.mark.parametrize("part", range(PARTS))
def test_score_calls_random_cases_pair_exactly_as_the_general_path(
    part: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Lists of several tools this short are paired on the general path's matrix; half the
    # parts pair them by classes instead, as longer lists are.
    if part % 2:
        monkeypatch.setattr(pairing, "_MATRIX_LIMIT", 0)
    assert _disagreement(part, CASES // PARTS) is None


def test_score_calls_random_cases_reach_every_layout() -> None:
    # The generator must reach every way the fast path pairs (by classes, as the odd parts
    # above force): one call per tool, one tool on both sides, a tool's only expected
    # call, the greedy of several (also in C), its failure solved by the first best
    # candidate or by scipy; classes by items, by deep keys and pair by pair; NaN.
    seen: Counter[str] = Counter()
    cases = _Cases(99)
    for _ in range(3_000):
        expected, actual = cases.case()
        seen.update(_layouts(expected, actual))
    wanted = {"one call per tool", "one tool", "single row", "greedy", "one call per class"}
    wanted |= {"first best", "scipy"}
    wanted |= {"pairwise", "items", "deep keys", "nan"}
    assert all(seen[layout] >= 20 for layout in wanted), seen


def test_score_calls_random_cases_tell_a_wrong_tie_break(monkeypatch: pytest.MonkeyPatch) -> None:
    # Optimal pairings that differ from the general path's must be caught: the expected
    # calls without an equal call take the free actual calls in reverse order.
    monkeypatch.setattr(pairing, "_MATRIX_LIMIT", 0)
    pair_tools = pairing._pair_tools

    def reversed_leftovers(tools: list[Any]) -> Any:
        found = pair_tools(tools)
        if found is None:
            return None
        correct, incorrect = found
        pairs = zip(incorrect, reversed(incorrect), strict=True)
        return correct, [(i, j) for (i, _), (_, j) in pairs]

    monkeypatch.setattr(pairing, "_pair_tools", reversed_leftovers)
    assert _disagreement(0, 3_000) is not None


def test_score_calls_random_cases_tell_another_first_best(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same for the blocks: the first two pairs of `_first_best` swap partners.
    first_best_pairs = pairing._first_best

    def swapped(rows: Any, cols: Any, equal: Any) -> Any:
        pairs = first_best_pairs(rows, cols, equal)
        if len(pairs) < 2:
            return pairs
        (r0, c0), (r1, c1) = pairs[:2]
        return [(r0, c1), (r1, c0), *pairs[2:]]

    monkeypatch.setattr(pairing, "_first_best", swapped)
    assert _disagreement(0, 3_000) is not None


class _LongCases(_Cases):
    """Longer lists (up to 30 calls a side): past the matrix, onto the classes by tool."""

    def case(self) -> tuple[list[Any], list[Any]]:
        rng = self.rng
        self.values = rng.choice(_DOMAINS)
        names = _NAMES[: rng.choice([1, 2, 3])]
        pool = [self.call(names) for _ in range(rng.randint(1, 40))]
        expected = [rng.choice(pool) for _ in range(rng.randint(0, 30))]
        actual = []
        for _ in range(rng.randint(0, 30)):
            source = rng.choice(expected) if expected and rng.random() < 0.6 else rng.choice(pool)
            actual.append(self.variant(source, names) if rng.random() < 0.3 else source)
        return expected, actual


def test_score_calls_long_random_lists_pair_exactly_as_the_general_path() -> None:
    cases = _LongCases(30)
    for _ in range(CASES // 20):
        expected, actual = cases.case()
        fast, general = score_calls(expected, actual), _score_general(expected, actual)
        assert _outcome(fast) == _outcome(general), (expected, actual)


def _w(value: Any) -> dict[str, Any]:
    return {"name": "w", "arguments": {"v": value}}


# Layouts the fast path tells apart, with the pairs today's path chooses among the optimal
# ones: (correct, incorrect, missed, extra), by index.
LAYOUTS: dict[str, tuple[list[Any], list[Any], tuple[Any, ...]]] = {
    "one class holds every actual call": (
        [_w(1), _w(2)],
        [_w(2), _w(2)],
        ([(1, 1)], [(0, 0)], [], []),
    ),
    "a class with more expected than actual calls": (
        [_w(1), _w(1), _w(2)],
        [_w(1), _w(3)],
        ([(0, 0)], [(1, 1)], [2], []),
    ),
    "a tool with more expected than actual calls": (
        [_w(1), _w(2), _w(3)],
        [_w(3), _w(2)],
        ([(1, 1), (2, 0)], [], [0], []),
    ),
    "a block for scipy": (
        [_w(1)] * 4 + [_w(2)] * 3,
        [_w(1)] * 3 + [_w(3)] * 3,
        ([(0, 0), (1, 1), (2, 2)], [(3, 3), (4, 4), (5, 5)], [6], []),
    ),
    "NaN equals nothing": (
        [_w(math.nan), _w(math.nan)],
        [_w(math.nan), _w(math.nan)],
        ([], [(0, 0), (1, 1)], [], []),
    ),
    "true is not 1": (
        [_w(True), _w(1), _w(True)],
        [_w(1), _w(1), _w(True)],
        ([(1, 1), (2, 2)], [(0, 0)], [], []),
    ),
    "1 equals 1.0 by keys": (
        [_w(1)] * 5 + [_w([2])],
        [_w(1.0)] * 5 + [_w([2.0])],
        ([(k, k) for k in range(6)], [], [], []),
    ),
}


@pytest.mark.parametrize("layout", LAYOUTS, ids=list(LAYOUTS))
def test_score_calls_layout_pairs_as_the_general_path(layout: str) -> None:
    expected, actual, pairs = LAYOUTS[layout]
    for result in (score_calls(expected, actual), _score_general(expected, actual)):
        s = result._scored
        assert (s.correct, s.incorrect, s.missed, s.extra) == pairs


def test_score_calls_strict_order_random_cases_unchanged() -> None:
    cases = _Cases(7)
    for _ in range(2_000):
        expected, actual = cases.case()
        fast = score_calls(expected, actual, order="strict")
        assert _outcome(fast) == _outcome(_score_general(expected, actual, order="strict"))


def _layouts(expected: list[Any], actual: list[Any]) -> set[str]:
    """The ways the fast path pairs one case (see `test_..._reach_every_layout`)."""
    exp_names = [c["name"] for c in expected]
    act_names = [c["name"] for c in actual]
    exp_args = [c["arguments"] for c in expected]
    act_args = [c["arguments"] for c in actual]
    found = {"nan"} if "nan" in repr(expected + actual) else set()
    if len(set(exp_names)) == len(exp_names) and len(set(act_names)) == len(act_names):
        return found | {"one call per tool"}
    cols_of = pairing._by_tool(act_names)
    tools = []
    for name, rows in pairing._by_tool(exp_names).items():
        cols = cols_of.get(name)
        if cols is None:
            continue
        if len(rows) == 1:
            found.add("single row")
            continue
        found.add(_class_path(rows, cols, exp_args, act_args))
        equal = equal_calls(rows, cols, exp_args=exp_args, act_args=act_args)
        tools.append((rows, cols, equal))
        if len(rows) >= pairing._MANY and pairing._one_call_per_class(rows, cols, equal):
            found.add("one call per class")
    if len(cols_of) == 1 and len(tools) == 1 and tools[0][0] == list(range(len(expected))):
        found.add("one tool")
    if tools and pairing._pair_tools(tools) is not None:
        found.add("greedy")
    elif tools:
        found |= {"first best" if first_best(len(t[0]), len(t[1])) else "scipy" for t in tools}
    return found


def _class_path(rows: list[int], cols: list[int], exp_args: Any, act_args: Any) -> str:
    calls = [exp_args[i] for i in rows] + [act_args[j] for j in cols]
    if len(rows) * len(cols) <= 4:
        return "pairwise"
    if all(type(v) in (str, int, type(None)) for call in calls for v in call.values()):
        return "items"
    return "deep keys" if len(rows) * len(cols) > 4 * (len(rows) + len(cols)) else "pairwise"
