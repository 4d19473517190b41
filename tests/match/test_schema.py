"""Validating actual arguments against the tool schema, and the quick answer beside it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from toolgrade import SuiteError
from toolgrade.match._fastschema import quick_validator, quickly_valid
from toolgrade.match._schema import merge_mismatches, schema_mismatches
from toolgrade.match._values import Mismatch

SCHEMA = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "minLength": 2},
        "n": {"type": "integer", "maximum": 10},
        "opts": {
            "type": "object",
            "properties": {"deep": {"type": "boolean"}},
            "required": ["deep"],
            "additionalProperties": False,
        },
    },
    "required": ["q"],
}


def _found(arguments: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m.path, m.reason) for m in schema_mismatches(arguments, SCHEMA)]


def test_schema_mismatches_valid_arguments_none() -> None:
    assert _found({"q": "ab", "n": 3, "opts": {"deep": True}}) == []


def test_schema_mismatches_required_is_missing() -> None:
    assert _found({"n": 1}) == [("$.q", "missing")]


def test_schema_mismatches_nested_required_and_forbidden_extra() -> None:
    assert _found({"q": "ab", "opts": {"x": 1, "y": 2}}) == [
        ("$.opts.deep", "missing"),
        ("$.opts.x", "unexpected"),
        ("$.opts.y", "unexpected"),
    ]


def test_schema_mismatches_other_keywords_are_schema() -> None:
    found = schema_mismatches({"q": "a", "n": 11}, SCHEMA)
    assert [(m.path, m.reason) for m in found] == [("$.n", "schema"), ("$.q", "schema")]
    assert found[0].message == "11 is greater than 10 (schema: maximum 10)"
    assert found[0].expected == 10
    assert found[0].actual == 11


def test_schema_mismatches_no_schema_accepts_all() -> None:
    assert schema_mismatches({"anything": 1}, None) == []
    assert schema_mismatches({"anything": 1}, {}) == []


def test_schema_mismatches_invalid_schema_raises_suite_error() -> None:
    with pytest.raises(SuiteError, match="invalid tool parameters schema"):
        schema_mismatches({}, {"type": "object", "properties": {"a": {"type": "text"}}})


def test_merge_mismatches_drops_schema_duplicate_of_same_path() -> None:
    compared = [Mismatch(path="$.n", reason="type", expected=5, actual="x")]
    validated = [
        Mismatch(path="$.n", reason="schema", actual="x"),
        Mismatch(path="$.m", reason="missing"),
    ]
    merged = merge_mismatches(compared, validated)
    assert [(m.path, m.reason) for m in merged] == [("$.n", "type"), ("$.m", "missing")]


@pytest.mark.parametrize(
    "schema",
    [
        SCHEMA,
        {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}},
        {"type": "array", "items": {"type": "integer"}},
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"},
        {"type": "object", "patternProperties": {"^a": {}}},
        {"anyOf": [{"type": "string"}]},
    ],
)
def test_quick_validator_built_for_every_accepted_schema(schema: dict[str, Any]) -> None:
    assert quick_validator(schema) is not None


def test_quick_validator_unreadable_value_is_not_quickly_valid() -> None:
    validator = quick_validator({"type": "object", "properties": {"a": {"type": "string"}}})
    assert quickly_valid(validator, {"a": object()}) is False  # type: ignore[dict-item]
    assert quickly_valid(None, {}) is False


def test_schema_mismatches_schema_changed_after_use_is_recompiled() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert schema_mismatches({"n": "x"}, schema) != []
    schema["properties"]["n"] = {"type": "string"}
    assert schema_mismatches({"n": "x"}, schema) == []


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.sampled_from([1.0, 2.5, -0.0])
    | st.sampled_from(["a", "b", ""]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
    ),
    max_leaves=6,
)
type_names = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null"])
simple_schemas = st.recursive(
    st.builds(dict)
    | st.builds(lambda t: {"type": t}, type_names)
    | st.builds(lambda ts: {"type": ts}, st.lists(type_names, min_size=1, max_size=3, unique=True))
    | st.builds(lambda vs: {"enum": vs}, st.lists(json_values, min_size=1, max_size=3))
    | st.booleans(),
    lambda inner: (
        st.builds(
            lambda props, req, extra: {
                "type": "object",
                "properties": props,
                "required": req,
                "additionalProperties": extra,
            },
            st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
            st.lists(st.sampled_from("abc"), max_size=2, unique=True),
            inner,
        )
        | st.builds(lambda items: {"type": "array", "items": items}, inner)
    ),
    max_leaves=5,
)


@settings(deadline=None, max_examples=300)
@given(json_values, simple_schemas)
def test_quick_answer_agrees_with_jsonschema(value: Any, schema: Any) -> None:
    expected = Draft202012Validator(schema).is_valid(value)
    assert quickly_valid(quick_validator(schema), value) == expected


@settings(deadline=None, max_examples=200)
@given(json_values)
def test_quick_answer_agrees_with_jsonschema_on_other_keywords(value: Any) -> None:
    for schema in (SCHEMA, {"type": "object", "properties": {"q": SCHEMA["properties"]["q"]}}):
        expected = Draft202012Validator(schema).is_valid(value)
        assert quickly_valid(quick_validator(schema), value) == expected
