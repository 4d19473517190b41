"""Argument failures said in the schema's words: one sentence per keyword (`_reasons`)."""

from __future__ import annotations

from typing import Any

import pytest

from toolgrade.match._reasons import schema_reason, type_phrase


@pytest.mark.parametrize(
    ("keyword", "rule", "value", "reason"),
    [
        ("type", "string", None, "null is not a string (schema: type)"),
        ("type", ["integer", "null"], "x", '"x" is not an integer or null (schema: type)'),
        ("minItems", 1, [], "[] has fewer than 1 item (schema: minItems 1)"),
        ("maxItems", 2, [1, 2, 3], "[1, 2, 3] has more than 2 items (schema: maxItems 2)"),
        ("minLength", 3, "ab", '"ab" is shorter than 3 characters (schema: minLength 3)'),
        ("maxLength", 1, "ab", '"ab" is longer than 1 character (schema: maxLength 1)'),
        ("minimum", 0, -1, "-1 is less than 0 (schema: minimum 0)"),
        ("maximum", 1.5, 2, "2 is greater than 1.5 (schema: maximum 1.5)"),
        ("exclusiveMinimum", 0, 0, "0 is not greater than 0 (schema: exclusiveMinimum 0)"),
        ("exclusiveMaximum", 9, 9, "9 is not less than 9 (schema: exclusiveMaximum 9)"),
        ("multipleOf", 5, 7, "7 is not a multiple of 5 (schema: multipleOf 5)"),
        ("const", "a", "b", '"b" is not "a" (schema: const)'),
        (
            "enum",
            [1, 2, 3, 4, 5, 6, 7],
            0,
            "0 is not one of 1, 2, 3, 4, 5 and 2 more (schema: enum)",
        ),
        ("pattern", "^a", "b", '"b" does not match /^a/ (schema: pattern)'),
        ("uniqueItems", True, [1, 1], "[1, 1] has repeated items (schema: uniqueItems)"),
        ("anyOf", [{}, {}], 1, "1 matches none of the 2 allowed forms (schema: anyOf)"),
        ("minProperties", 1, {}, "{} has fewer than 1 member (schema: minProperties 1)"),
        (None, False, 1, "1 is not allowed by the tool schema"),
        ("contains", {"type": "string"}, [1], "no match (schema: contains)"),
    ],
)
def test_schema_reason_words(keyword: str | None, rule: Any, value: Any, reason: str) -> None:
    assert schema_reason(keyword, rule, value, fallback="no match") == reason


def test_schema_reason_one_of_tells_none_from_several() -> None:
    several = schema_reason("oneOf", [{}, {}], 1, fallback="1 is valid under each of {}, {}")
    assert several == "1 matches more than one of the 2 forms (schema: oneOf)"
    none = schema_reason("oneOf", [{}, {}], 1, fallback="1 is not valid under any of them")
    assert none == "1 matches none of the 2 allowed forms (schema: oneOf)"


def test_type_phrase_lists_types() -> None:
    assert type_phrase(["string", "integer", "null"]) == "a string, an integer or null"
