"""Value equality: plain deep equality for score_calls, semantic equality for the judge."""

from __future__ import annotations

import pytest

from toolgrade.match import DEEP_EQUALITY, MatchOptions, compare_arguments, compare_values
from toolgrade.match._values import SEMANTIC

SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "path": {"type": "string"}},
}


@pytest.mark.parametrize(
    ("expected", "actual", "reasons"),
    [
        ({"n": 1}, {"n": 1.0}, []),
        ({"n": 1}, {"n": "1"}, ["type"]),
        ({"b": True}, {"b": 1}, ["type"]),
        ({"s": "a"}, {"s": " a"}, ["value"]),
        ({"p": "README.md"}, {"p": "./README.md"}, ["value"]),
        ({"m": {"$regex": "a+"}}, {"m": "aaa"}, ["type"]),
        ({"m": {"$regex": "a+"}}, {"m": {"$regex": "a+"}}, []),
        ({}, {"x": 1}, ["unexpected"]),
        ({"x": 1}, {}, ["missing"]),
        ({"x": None}, {}, ["missing"]),
        ({"a": [1, 2]}, {"a": [2, 1]}, ["value", "value"]),
    ],
)
def test_compare_arguments_deep_equality_is_plain(
    expected: dict, actual: dict, reasons: list[str]
) -> None:
    found = compare_arguments(expected, actual, options=DEEP_EQUALITY, schema=SCHEMA)
    assert [m.reason for m in found] == reasons


def test_compare_arguments_default_options_are_deep_equality() -> None:
    assert compare_arguments({"n": 1}, {"n": "1"}, schema=SCHEMA)[0].reason == "type"
    assert MatchOptions(strict=True, semantic=False, matchers=False) == DEEP_EQUALITY


def test_compare_arguments_semantic_uses_schema() -> None:
    found = compare_arguments(
        {"n": 1, "path": "a/b"}, {"n": "1", "path": "./a//b/"}, options=SEMANTIC, schema=SCHEMA
    )
    assert found == []


def test_compare_values_semantic_without_schema_trims_only() -> None:
    assert compare_values(" x ", "x", options=SEMANTIC) == []
    assert compare_values(1, "1", options=SEMANTIC)[0].reason == "type"
    assert compare_values("./a", "a", options=SEMANTIC, name="path") == []


def test_compare_values_reports_nested_paths() -> None:
    found = compare_values({"a": [{"b": 1}]}, {"a": [{"b": 2}]}, path="$.arg")
    assert [(m.path, m.reason, m.expected, m.actual) for m in found] == [
        ("$.arg.a[0].b", "value", 1, 2)
    ]


def test_mismatch_describe_renders_each_reason() -> None:
    missing, unexpected, value = (
        compare_arguments({"q": "x"}, {})[0],
        compare_arguments({}, {"z": 1})[0],
        compare_arguments({"q": "x"}, {"q": "y"})[0],
    )
    assert missing.describe() == '$.q: missing (expected "x")'
    assert unexpected.describe() == "$.z: unexpected argument (got 1)"
    assert value.describe() == '$.q: expected "x", got "y"'


def test_literal_matcher_reads_inner_dollar_keys_literally() -> None:
    expected = {"f": {"$literal": {"$any_of": [1, 2]}}}
    assert compare_arguments(expected, {"f": {"$any_of": [1, 2]}}, options=SEMANTIC) == []
    assert compare_arguments(expected, {"f": 1}, options=SEMANTIC)[0].reason == "type"


def test_strict_semantic_fails_unmentioned_argument() -> None:
    options = MatchOptions(strict=True, semantic=True, matchers=True)
    found = compare_arguments({"a": 1}, {"a": 1, "b": 2}, options=options)
    assert [(m.path, m.reason) for m in found] == [("$.b", "unexpected")]


def test_default_only_accepted_when_argument_omitted() -> None:
    schema = {"type": "object", "properties": {"k": {"type": "integer", "default": 3}}}
    assert compare_arguments({"k": 3}, {}, options=SEMANTIC, schema=schema) == []
    assert compare_arguments({"k": 4}, {}, options=SEMANTIC, schema=schema)[0].reason == "missing"
    assert compare_arguments({"k": 3}, {}, options=DEEP_EQUALITY, schema=schema) != []


def test_semantic_mismatch_reports_original_strings() -> None:
    found = compare_arguments({"q": " a "}, {"q": "b\n"}, options=SEMANTIC)
    assert (found[0].expected, found[0].actual) == (" a ", "b\n")
