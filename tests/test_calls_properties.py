"""Property tests of score_calls: bounds, identity, permutation invariance, optimality."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolscore import score_calls

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
        st.sampled_from([0.0, 1.0, 2.5]),
        st.sampled_from(["", "a", "1"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)
    ),
    max_leaves=8,
)


@settings(max_examples=300)
@given(JSON, JSON)
def test_deep_key_equality_agrees_with_deep_comparison(a: Any, b: Any) -> None:
    from toolscore.match import DEEP_EQUALITY, compare_values, deep_key

    assert (deep_key(a) == deep_key(b)) == (not compare_values(a, b, options=DEEP_EQUALITY))
    assert deep_key(a) == deep_key(a)
