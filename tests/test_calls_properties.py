"""Property tests of score_calls: bounds, identity, permutation invariance, optimality."""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade import ToolCall, score_calls
from toolgrade.match import DEEP_EQUALITY, compare_values, deep_key
from toolgrade.match._keys import same_arguments

NAMES = st.sampled_from(["a", "b", "c"])
VALUES = st.one_of(st.integers(0, 2), st.booleans(), st.sampled_from(["x", "y"]), st.none())
CALL = st.fixed_dictionaries(
    {"name": NAMES, "arguments": st.dictionaries(st.sampled_from(["p", "q"]), VALUES, max_size=2)}
)
CALLS = st.lists(CALL, max_size=5)


def _equal(e: dict[str, Any], a: dict[str, Any]) -> bool:
    def norm(v: Any) -> Any:
        return (type(v) is bool, v)

    ea, aa = e["arguments"], a["arguments"]
    return (
        e["name"] == a["name"]
        and ea.keys() == aa.keys()
        and all(norm(ea[k]) == norm(aa[k]) for k in ea)
    )


def _brute_force_max_correct(exp: list[dict[str, Any]], act: list[dict[str, Any]]) -> int:
    best = 0
    small, large, swap = (exp, act, False) if len(exp) <= len(act) else (act, exp, True)
    for chosen in itertools.permutations(range(len(large)), len(small)):
        pairs = zip(small, (large[j] for j in chosen), strict=True)
        count = sum(_equal(b, a) if swap else _equal(a, b) for a, b in pairs)
        best = max(best, count)
    return best


@given(CALLS, CALLS)
def test_score_calls_any_input_score_between_zero_and_one(exp: list[Any], act: list[Any]) -> None:
    result = score_calls(exp, act)
    assert 0.0 <= result.score <= 1.0
    assert len(result.correct) + len(result.incorrect) + len(result.missed) == len(exp)
    assert len(result.correct) + len(result.incorrect) + len(result.extra) == len(act)


@given(CALLS)
def test_score_calls_identical_lists_score_one(calls: list[Any]) -> None:
    assert score_calls(calls, calls).score == 1.0
    assert score_calls(calls, calls, order="strict").score == 1.0


@given(CALLS, CALLS, st.randoms(use_true_random=False))
def test_score_calls_permuting_actual_keeps_result(
    exp: list[Any], act: list[Any], rnd: Any
) -> None:
    shuffled = list(act)
    rnd.shuffle(shuffled)
    first, second = score_calls(exp, act), score_calls(exp, shuffled)
    assert first.f1 == second.f1
    assert (len(first.correct), len(first.incorrect)) == (
        len(second.correct),
        len(second.incorrect),
    )


@settings(max_examples=200)
@given(CALLS, CALLS)
def test_score_calls_correct_pairs_equal_brute_force_maximum(
    exp: list[Any], act: list[Any]
) -> None:
    assert len(score_calls(exp, act).correct) == _brute_force_max_correct(exp, act)


JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.sampled_from([0.0, 1.0, 2.5, -0.0, math.nan]),
        st.sampled_from(["", "a", "1"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)
    ),
    max_leaves=8,
)
OBJECTS = st.dictionaries(st.sampled_from(["a", "b", "c"]), JSON, max_size=3)


def _variant(value: Any, draw: Any) -> Any:
    """A value deep equality should call equal to `value`, unless it holds NaN: keys
    reordered, integers as floats, arrays as tuples (all chosen by `draw`)."""
    if isinstance(value, dict):
        items = [(k, _variant(v, draw)) for k, v in value.items()]
        return dict(reversed(items) if draw(st.booleans()) else items)
    if isinstance(value, list):
        items = [_variant(v, draw) for v in value]
        return tuple(items) if draw(st.booleans()) else items
    if type(value) is int and draw(st.booleans()):
        return float(value)
    return value


def _near(value: Any, draw: Any) -> Any:
    """A copy of `value` with one boolean made a number, or one number made a boolean."""
    if isinstance(value, dict):
        return {k: _near(v, draw) for k, v in value.items()}
    if isinstance(value, list):
        return [_near(v, draw) for v in value]
    if isinstance(value, bool | int) and draw(st.booleans()):
        return int(value) if isinstance(value, bool) else value == 1
    return value


def _lists(value: Any) -> Any:
    """The value with every tuple made a list: what a tuple means to deep equality."""
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_lists(v) for v in value]
    return value


def _deep_equal(a: Any, b: Any) -> bool:
    return not compare_values(a, _lists(b), options=DEEP_EQUALITY)


@settings(max_examples=300)
@given(JSON, JSON)
def test_deep_key_equality_agrees_with_deep_comparison(a: Any, b: Any) -> None:
    assert (deep_key(a) == deep_key(b)) == _deep_equal(a, b)
    assert same_arguments({"v": a}, {"v": b}) == _deep_equal(a, b)
    # A value equals itself unless it holds NaN, which equals nothing.
    assert (deep_key(a) == deep_key(a)) == _deep_equal(a, a)


@settings(max_examples=500)
@given(OBJECTS, OBJECTS)
def test_same_arguments_unrelated_objects_agree_with_deep_comparison(a: Any, b: Any) -> None:
    assert same_arguments(a, b) == _deep_equal(a, b) == (deep_key(a) == deep_key(b))


@settings(max_examples=500)
@given(OBJECTS, st.data())
def test_same_arguments_variants_agree_with_deep_comparison(a: Any, data: Any) -> None:
    # Independent draws are seldom equal: variants test the equal side (reordered keys,
    # 1 against 1.0, tuples against lists) and near misses (true against 1).
    for b in (_variant(a, data.draw), _near(a, data.draw)):
        expected = _deep_equal(a, b)
        assert same_arguments(a, b) == expected
        assert same_arguments(b, a) == expected
        assert (deep_key(a) == deep_key(b)) == expected


def test_same_arguments_edge_cases_agree_with_deep_comparison() -> None:
    nan = math.nan
    cases = [
        ({"x": True}, {"x": 1}, False),
        ({"x": 1}, {"x": 1.0}, True),
        ({"x": [1, [True]]}, {"x": (1.0, (True,))}, True),
        ({"x": [True]}, {"x": (1,)}, False),
        ({"x": nan}, {"x": nan}, False),  # the same NaN object: still not equal
        ({"x": [nan]}, {"x": [nan]}, False),
        ({"x": None}, {}, False),
        ({"x": None}, {"y": None}, False),
        ({"x": {"a": 1}}, {"x": {"a": 1, "b": 2}}, False),
        ({"x": "1"}, {"x": 1}, False),
        ({"x": 0.0}, {"x": -0.0}, True),
    ]
    for a, b, equal in cases:
        assert _deep_equal(a, b) is equal, (a, b)
        assert same_arguments(a, b) is equal, (a, b)
        assert same_arguments(b, a) is equal, (b, a)
        assert (deep_key(a) == deep_key(b)) is equal, (a, b)
    shared = {"x": [nan]}  # one object on both sides: NaN still equals nothing
    assert not same_arguments(shared, shared) and deep_key(shared) != deep_key(shared)


@given(CALLS, CALLS)
def test_score_calls_pairs_agree_with_compare_arguments(exp: list[Any], act: list[Any]) -> None:
    result = score_calls(exp, act)
    assert all(not p.mismatches for p in result.correct)
    assert all(p.mismatches for p in result.incorrect)
    assert all(p.expected.name == p.actual.name for p in result.correct + result.incorrect)


SHAPES = [
    lambda c: c,
    lambda c: {"tool": c["name"], "args": c["arguments"]},
    lambda c: {"name": c["name"], "parameters": c["arguments"]},
    lambda c: {
        "type": "function",
        "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
    },
    lambda c: ToolCall(name=c["name"], arguments=c["arguments"]),
]


@given(CALLS, CALLS, st.lists(st.sampled_from(range(len(SHAPES))), min_size=10, max_size=10))
def test_score_calls_any_call_shape_gives_the_same_result(
    exp: list[Any], act: list[Any], shapes: list[int]
) -> None:
    # The usual shape is read inline and the others by the general reader: both agree.
    reshaped_exp = [SHAPES[k](c) for k, c in zip(shapes, exp, strict=False)]
    reshaped_act = [SHAPES[k](c) for k, c in zip(reversed(shapes), act, strict=False)]
    first, second = score_calls(exp, act), score_calls(reshaped_exp, reshaped_act)
    assert first.to_dict() == second.to_dict()
    assert first == second
