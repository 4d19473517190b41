"""Tool schema patterns (`pattern`, `patternProperties`) run on RE2 in both validators."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from jsonschema.exceptions import SchemaError

from toolgrade import SuiteError
from toolgrade.match._ecma import schema_search
from toolgrade.match._fastschema import quick_validator, quickly_valid
from toolgrade.match._schema import schema_mismatches
from toolgrade.match._schema_keywords import (
    bounded_validator_class,
    check_tool_schema,
    pattern_problems,
)

REDOS = "^([a-zA-Z0-9]+\\s?)*$"
"""The trial's pattern: nested quantifiers, exponential on Python's `re`."""
SENTENCE = "Please send the quarterly report to the finance team before Friday!"


def _tool(**string_rules: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"q": {"type": "string", **string_rules}}}


@pytest.mark.parametrize("text", ["a" * 26 + "!", SENTENCE, SENTENCE * 200])
def test_schema_pattern_nested_quantifiers_take_milliseconds(text: str) -> None:
    schema = _tool(pattern=REDOS)
    started = time.perf_counter()
    (found,) = schema_mismatches({"q": text}, schema)
    assert time.perf_counter() - started < 0.5
    assert (found.path, found.reason) == ("$.q", "schema")
    assert found.message.endswith(f"does not match /{REDOS}/ (schema: pattern)")


def test_schema_pattern_properties_nested_quantifiers_take_milliseconds() -> None:
    schema = {
        "type": "object",
        "patternProperties": {REDOS: {"type": "integer"}},
        "additionalProperties": False,
    }
    key = "a" * 26 + "!"
    started = time.perf_counter()
    found = schema_mismatches({key: 1, "ok": "x"}, schema)
    assert time.perf_counter() - started < 0.5
    assert [(m.path, m.reason) for m in found] == [(f"$.{key}", "unexpected"), ("$.ok", "schema")]


def test_schema_unevaluated_properties_patterns_take_milliseconds() -> None:
    schema = {
        "type": "object",
        "allOf": [{"patternProperties": {REDOS: {"type": "integer"}}}],
        "unevaluatedProperties": False,
    }
    key = "a" * 26 + "!"
    started = time.perf_counter()
    found = schema_mismatches({key: 1, "fine": 2}, schema)
    assert time.perf_counter() - started < 0.5
    assert [m.reason for m in found] == ["schema"]
    assert key in found[0].message
    assert schema_mismatches({"fine": 2}, schema) == []


def test_quick_validator_patterns_do_not_backtrack() -> None:
    # jsonschema-rs's default engine (fancy-regex) accepts lookaround by backtracking.
    assert quick_validator(_tool(pattern="(?=a)a")) is None
    validator = quick_validator(_tool(pattern=REDOS))
    started = time.perf_counter()
    assert quickly_valid(validator, {"q": SENTENCE * 200}) is False
    assert quickly_valid(validator, {"q": "Plain words only"}) is True
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        (_tool(pattern="^(?=.*[0-9]).+$"), "$.properties.q.pattern"),
        (_tool(pattern="(a)\\1"), "$.properties.q.pattern"),
        ({"type": "object", "patternProperties": {"(?<!x)y": {}}}, "$.patternProperties"),
        ({"anyOf": [{"type": "integer"}, {"pattern": "(?!x)"}]}, "$.anyOf[1].pattern"),
    ],
)
def test_schema_pattern_re2_cannot_run_refuses_the_schema(schema: Any, path: str) -> None:
    with pytest.raises(SuiteError, match=re.escape(f"parameters schema at {path}: pattern ")):
        schema_mismatches({"q": "x"}, schema)
    with pytest.raises(SchemaError) as info:
        check_tool_schema(schema)
    assert info.value.json_path == path
    assert "cannot be run by RE2" in info.value.message
    assert "no lookaround, no backreferences" in info.value.message


def test_pattern_problems_ignores_data_and_lists_every_pattern() -> None:
    schema = {
        "properties": {
            "a": {"pattern": "(?=x)", "default": {"pattern": "(?=not a schema)"}},
            "b": {"enum": [{"pattern": "(?=data)"}]},
            "pattern": {"type": "string", "pattern": "ok"},
        },
        "$defs": {"c": {"pattern": "("}},
    }
    assert [path for path, _ in pattern_problems(schema)] == [
        "$.properties.a.pattern",
        "$.$defs.c.pattern",
    ]


def test_check_tool_schema_accepts_re2_syntax_python_lacks() -> None:
    check_tool_schema(_tool(pattern="^\\p{L}+$"))  # Python's re has no \p{...}
    assert schema_mismatches({"q": "héllo"}, _tool(pattern="^\\p{L}+$")) == []
    assert schema_mismatches({"q": "h3llo"}, _tool(pattern="^\\p{L}+$")) != []


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^\\d+$", "123", True),
        ("^\\d+$", "١٢٣", False),  # ECMA's \d is ASCII
        ("^\\w+$", "é", False),
        ("^\\s$", "\u00a0", True),  # ECMA's \s: Unicode spaces, \v, U+FEFF
        ("^\\s$", "\v", True),
        ("^\\s$", "\ufeff", True),
        ("^[\\s,]+$", ", \u3000", True),
        ("^\\S$", "\u2028", False),
        ("^[\\S]$", "\u00a0", False),
        ("^[^\\S]$", "\u00a0", True),
        ("^.$", "\r", False),  # ECMA's . matches no line terminator
        ("^.$", "\u2029", False),
        ("^.$", "😀", True),
        ("^\\u00e9$", "é", True),
        ("^\\ud83d\\ude00$", "😀", True),
        ("^\\u{1F600}$", "😀", True),
        ("^\\cJ$", "\n", True),
        ("^\\0$", "\x00", True),
        ("^a\\/b$", "a/b", True),
        ("^[^]$", "\n", True),  # ECMA: [^] is any character, [] none
        ("^[]$", "x", False),
        ("^[^\\]a]$", "]", False),
        ("^a$", "a\n", False),  # $ is the end of the text, not of a line
        ("b", "abc", True),  # search, not a full match
        ("^(?<year>[0-9]{4})$", "2024", True),
    ],
)
def test_schema_pattern_keeps_ecma_meaning(pattern: str, text: str, matches: bool) -> None:
    assert schema_search(pattern, text) is matches
    schema = {"pattern": pattern}
    assert bounded_validator_class(schema)(schema).is_valid(text) is matches
    quick = quick_validator(schema)
    if quick is not None:  # jsonschema-rs translates ECMA-262 too: the two agree
        assert quickly_valid(quick, text) is matches


def test_schema_pattern_lone_surrogate_in_text_or_pattern_does_not_raise() -> None:
    schema = _tool(pattern="^[a-z]+$")
    (found,) = schema_mismatches({"q": "abc\ud83d"}, schema)
    assert found.reason == "schema"
    assert schema_mismatches({"q": "abc"}, schema) == []
    keyed = {"type": "object", "patternProperties": {"^x": {"type": "integer"}}}
    assert [m.path for m in schema_mismatches({"x\udc00": "no"}, keyed)] == ["$.x\udc00"]
    assert schema_search("a\ud83d", "a\ufffd")  # both sides read as U+FFFD


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": "http://json-schema.org/draft-04/schema#", "patternProperties": {"(?=a)": {}}},
        {"$schema": "http://json-schema.org/draft-07/schema#", "pattern": "(?=a)"},
        {"$schema": "https://json-schema.org/draft/2019-09/schema", "pattern": "(?=a)"},
    ],
)
def test_schema_pattern_refused_in_every_draft(schema: Any) -> None:
    with pytest.raises(SuiteError, match="cannot be run by RE2"):
        schema_mismatches({}, schema)


def test_older_drafts_run_patterns_on_re2() -> None:
    for draft in (
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2019-09/schema",
    ):
        schema = {
            "$schema": draft,
            "type": "object",
            "properties": {"q": {"type": "string", "pattern": REDOS}},
            "patternProperties": {REDOS: {"type": "integer"}},
            "additionalProperties": False,
        }
        key = "a" * 26 + "!"
        started = time.perf_counter()
        found = schema_mismatches({"q": key, key: 1}, schema)
        assert time.perf_counter() - started < 0.5, draft
        assert {m.path for m in found} == {"$.q", f"$.{key}"}


def test_draft_2019_unevaluated_properties_on_re2() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "type": "object",
        "patternProperties": {"^x_": {"type": "integer"}},
        "unevaluatedProperties": False,
    }
    assert schema_mismatches({"x_a": 1}, schema) == []
    (found,) = schema_mismatches({"x_a": 1, "y": 2}, schema)
    assert "'y'" in found.message
