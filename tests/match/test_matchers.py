"""Matcher vocabulary: recognising matchers and reporting malformed ones."""

from __future__ import annotations

import pytest

from toolgrade.match import MATCHER_NAMES, is_matcher, matcher_problems
from toolgrade.match._matchers import MatcherError, parse_matcher


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"$regex": "a"}, True),
        ({"$nonsense": 1}, True),
        ({"path": "a"}, False),
        ({}, False),
        ("$regex", False),
        ([{"$regex": "a"}], False),
        (None, False),
    ],
)
def test_is_matcher_recognises_dollar_objects(value: object, expected: bool) -> None:
    assert is_matcher(value) is expected


WELL_FORMED = [
    {"$any_of": [1, "a", None, {"$absent": True}]},
    {"$regex": "src/.*\\.py"},
    {"$contains": "x"},
    {"$approx": 3.14, "tol": 0.01},
    {"$approx": 3},
    {"$range": {"min": 50}},
    {"$range": {"min": 0, "max": 1.5}},
    {"$type": "integer"},
    {"$present": True},
    {"$absent": True},
    {"$unordered": [1, {"$type": "string"}]},
    {"$icase": "New York"},
    {"$literal": {"$gt": 5}},
    {"plain": {"nested": [1, {"$regex": "a"}]}},
]


@pytest.mark.parametrize("value", WELL_FORMED)
def test_matcher_problems_well_formed_none(value: object) -> None:
    assert matcher_problems(value) == []


MALFORMED = [
    ({"$regexp": "a"}, "$: unknown matcher $regexp"),
    ({"$regex": "a", "$contains": "b"}, "$: one matcher per object"),
    ({"$regex": 5}, "$: $regex: needs a string"),
    ({"$regex": "("}, "$: $regex: invalid pattern"),
    ({"$contains": None}, "$: $contains: needs a string"),
    ({"$icase": ["a"]}, "$: $icase: needs a string"),
    ({"$any_of": []}, "$: $any_of: needs at least one alternative"),
    ({"$any_of": "a"}, "$: $any_of: needs an array"),
    ({"$unordered": {"a": 1}}, "$: $unordered: needs an array"),
    ({"$approx": "1"}, "$: $approx: needs a number"),
    ({"$approx": True}, "$: $approx: needs a number"),
    ({"$approx": 1, "tol": -0.1}, "$: $approx: tol must be a non-negative number"),
    ({"$approx": 1, "tolerance": 0.1}, "$: $approx: unexpected key(s) tolerance"),
    ({"$range": 5}, '$: $range: needs an object with "min", "max" or both'),
    ({"$range": {}}, '$: $range: needs an object with "min", "max" or both'),
    ({"$range": {"least": 1}}, "$: $range: unknown bound 'least' (known: min, max)"),
    ({"$range": {"min": "1"}}, "$: $range: min and max must be numbers"),
    ({"$range": {"max": True}}, "$: $range: min and max must be numbers"),
    ({"$range": {"min": 2, "max": 1}}, "$: $range: min is greater than max"),
    ({"$type": "int"}, "$: $type: unknown type 'int'"),
    ({"$present": False}, "$: $present: the only accepted value is true"),
    ({"$absent": 1}, "$: $absent: the only accepted value is true"),
    ({"$regex": "a", "flags": "i"}, "$: $regex: unexpected key(s) flags"),
    ([{"$absent": True}], "$[0]: $absent: only an object member can be absent"),
    ({"$unordered": [{"$absent": True}]}, "$.$unordered[0]: $absent: only an object member"),
    ({"$any_of": [1, {"$type": "float"}]}, "$.$any_of[1]: $type: unknown type"),
    ({"a": {"b": [0, {"$contains": 1}]}}, "$.a.b[1]: $contains: needs a string"),
]


@pytest.mark.parametrize(("value", "problem"), MALFORMED)
def test_matcher_problems_malformed_reported_with_path(value: object, problem: str) -> None:
    problems = matcher_problems(value)
    assert len(problems) == 1, problems
    assert problems[0].startswith(problem)


def test_matcher_problems_custom_path_prefix() -> None:
    problems = matcher_problems({"q": {"$type": "str"}}, "cases[3].expected[0].arguments")
    assert problems[0].startswith("cases[3].expected[0].arguments.q: $type")


def test_matcher_problems_reports_every_problem() -> None:
    value = {"a": {"$regex": "("}, "b": [{"$nope": 1}], "c": {"$approx": "x", "tol": -1}}
    assert len(matcher_problems(value)) == 3


def test_matcher_names_all_documented() -> None:
    assert set(MATCHER_NAMES) == {
        "$any_of", "$regex", "$contains", "$approx", "$range", "$type",
        "$present", "$absent", "$unordered", "$icase", "$literal", "$not",
    }  # fmt: skip


def test_parse_matcher_malformed_raises_matcher_error() -> None:
    with pytest.raises(MatcherError) as info:
        parse_matcher({"$type": "float"})
    assert info.value.problems[0].startswith("$: $type")


def test_parse_matcher_plain_value_none() -> None:
    assert parse_matcher({"a": 1}) is None
    assert parse_matcher("x") is None
    matcher = parse_matcher({"$approx": 2, "tol": 0.5})
    assert matcher is not None
    assert (matcher.name, matcher.operand, matcher.tol) == ("$approx", 2, 0.5)
