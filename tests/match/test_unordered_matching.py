"""`$unordered` is a maximum bipartite matching: fast for literal items, exact with matchers."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.match import compare_values
from toolgrade.match._values import SEMANTIC, MatchOptions, _Walker

STRICT = MatchOptions(strict=True, semantic=True, matchers=True)
NULL_ABSENT = MatchOptions(semantic=True, matchers=True, null_is_absent=True)
STRICT_NULL_ABSENT = MatchOptions(strict=True, semantic=True, matchers=True, null_is_absent=True)


def _judge(items: list[Any], actual: Any, **kwargs: Any) -> list[Any]:
    return compare_values({"$unordered": items}, actual, options=SEMANTIC, **kwargs)


@pytest.fixture
def trials(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the item-by-item comparisons `$unordered` makes (the work that could explode)."""
    count = [0]
    trial = _Walker.trial

    def counted(self: _Walker, *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return trial(self, *args, **kwargs)

    monkeypatch.setattr(_Walker, "trial", counted)
    return count


def _shuffled_with_one_wrong(items: list[Any], wrong: Any) -> list[Any]:
    actual = list(items)
    random.Random(7).shuffle(actual)
    actual[len(actual) // 2] = wrong
    return actual


def test_unordered_2000_strings_one_wrong_is_keyed_and_names_the_items(trials: list[int]) -> None:
    items: list[Any] = [f"item-{i}" for i in range(2_000)]
    actual = _shuffled_with_one_wrong(items, "wrong")
    missing = next(item for item in items if item not in actual)
    (found,) = _judge(items, actual)
    assert trials == [0]  # literal items are keyed, never compared pair by pair
    assert found.reason == "value"
    assert f'[{items.index(missing)}] "{missing}"' in found.message
    assert f'[{actual.index("wrong")}] "wrong"' in found.message
    assert found.message.startswith("no ordering of the items matches: 1 of 2000 expected")
    random.Random(8).shuffle(items)
    assert _judge(items, list(reversed(items))) == []


def test_unordered_2000_small_objects_one_wrong_is_keyed(trials: list[int]) -> None:
    items: list[Any] = [{"id": i, "name": f"n{i}", "tags": ["a", "b"]} for i in range(2_000)]
    actual = _shuffled_with_one_wrong(items, {"id": -1, "name": "x", "tags": []})
    (found,) = _judge(items, actual)
    assert trials == [0]
    assert "1 of 2000 expected items unmatched" in found.message
    ok = [dict(item, extra=True) for item in reversed(items)]  # more members still match
    assert _judge(items, ok) == []


def test_unordered_matcher_items_are_polynomial(trials: list[int]) -> None:
    items: list[Any] = [{"$regex": f"item-{i}"} for i in range(100)]
    items += [{"$type": "string"}] * 400  # equal items: one row of comparisons
    actual = [f"item-{i}" for i in range(100)] + [f"other-{i}" for i in range(400)]
    random.Random(3).shuffle(actual)
    assert _judge(items, actual) == []
    # Each distinct item meets each actual value at most once: 101 x 500 comparisons.
    assert trials[0] <= 101 * 500
    actual[actual.index("item-5")] = 5
    (found,) = _judge(items, actual)
    assert trials[0] <= 2 * 101 * 500
    assert '[5] {"$regex": "item-5"}' in found.message


def test_unordered_a_greedy_choice_is_undone() -> None:
    # Pairing {"x": 1} with the equal {"x": 1} first leaves the $not nothing it accepts.
    items: list[Any] = [{"x": 1}, {"$not": {"x": 1, "y": 2}}]
    assert _judge(items, [{"x": 1}, {"x": 1, "y": 2}]) == []
    assert _judge(items, [{"x": 1, "y": 2}, {"x": 1}]) == []
    assert _judge(["a", {"$any_of": ["a", "b"]}], ["a", "b"]) == []
    assert _judge([{"$any_of": ["a", "b"]}, "a"], ["a", "b"]) == []


def test_unordered_reads_items_as_the_comparison_does() -> None:
    schema = {"type": "array", "items": {"type": "object", "properties": {"n": {"default": 3}}}}
    assert _judge([{"n": 3, "k": "a"}], [{"k": "a "}], schema=schema) == []  # default, trim
    assert _judge([1, 2.0, True], [True, 2, 1.0]) == []
    assert _judge([1], [True]) != []
    assert _judge([float("nan")], [float("nan")]) != []
    assert _judge([[1, 2]], [[2, 1]]) != []
    assert compare_values({"$unordered": [{"x": 1}]}, [{"x": 1, "y": 2}], options=STRICT) != []
    assert _judge(["a", "a", "b"], ["a", "b", "b"]) != []
    assert _judge(["a", "a", "b"], ["a", "b", "a"]) == []
    prefixed = {"type": "array", "prefixItems": [{"type": "string"}, {"enum": [" b"]}]}
    assert _judge(["a", " b"], [" b", "a"], schema=prefixed) == []


def test_unordered_reads_null_members_as_the_comparison_does() -> None:
    nullable = {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}
    schema = {"type": "array", "items": nullable}
    assert _judge([{"k": 1}], [{"k": 1, "n": None}], schema=schema) == []
    assert _judge([{"k": 1, "n": None}], [{"k": 1}], schema=schema) == []
    assert _judge([{"k": 1, "n": 2}], [{"k": 1, "n": None}], schema=schema) != []
    strict = {"$unordered": [{"k": 1}]}
    assert compare_values(strict, [{"k": 1, "n": None}], options=STRICT, schema=schema) == []
    assert compare_values(strict, [{"k": 1, "m": None}], options=STRICT, schema=schema) != []
    assert compare_values(strict, [{"k": 1, "m": None}], options=STRICT_NULL_ABSENT) == []
    defaulted = {"type": "object", "properties": {"n": {"type": ["integer", "null"], "default": 3}}}
    assert _judge([{"n": 3}], [{"n": None}], schema={"type": "array", "items": defaulted}) == []


def _brute_force(
    items: list[Any], actual: list[Any], options: MatchOptions, schema: Any = None
) -> bool:
    for order in itertools.permutations(actual):
        if all(
            not compare_values(e, a, options=options, schema=schema)
            for e, a in zip(items, order, strict=True)
        ):
            return True
    return False


leaves = st.sampled_from(["a", " a", "b", 1, 1.0, True, None, 2])
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from("xy"), inner, max_size=2)
    ),
    max_leaves=4,
)
matchers = st.one_of(
    st.builds(lambda v: {"$not": v}, values),
    st.builds(lambda a, b: {"$any_of": [a, b]}, values, values),
    st.sampled_from(
        [{"$type": "string"}, {"$type": "object"}, {"$type": "null"}, {"$present": True}]
    ),
)


# Items read through a schema: `x` allows null and has a default, `y` has a default only.
ITEM_SCHEMA = {
    "properties": {"x": {"type": ["string", "null"], "default": "a"}, "y": {"default": 1}}
}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(values, matchers), min_size=1, max_size=4).flatmap(
        lambda items: st.tuples(
            st.just(items), st.lists(values, min_size=len(items), max_size=len(items))
        )
    ),
    st.sampled_from([SEMANTIC, STRICT, NULL_ABSENT, STRICT_NULL_ABSENT]),
    st.sampled_from([None, ITEM_SCHEMA]),
)
def test_unordered_agrees_with_trying_every_order(
    case: Any, options: MatchOptions, item_schema: Any
) -> None:
    items, actual = case
    schema = None if item_schema is None else {"items": item_schema}
    found = compare_values({"$unordered": items}, actual, options=options, schema=schema)
    assert (found == []) == _brute_force(items, actual, options, item_schema)
