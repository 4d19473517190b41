"""`null` on an argument, and argument failures said in the schema's words.

The table is tests/data/match/null_and_reasons.json (its description says the shape).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolgrade import Case, Suite, SuiteDefaults, SuiteError, ToolSpec, judge, load_suite
from toolgrade.match import MatchOptions, compare_arguments
from toolgrade.match._nulls import allows_null, without_absent_nulls

DATA = Path(__file__).parent.parent / "data" / "match" / "null_and_reasons.json"
DOC = json.loads(DATA.read_text(encoding="utf-8"))
TOOLS = [ToolSpec.model_validate(t) for t in DOC["tools"]]


def _entries() -> list[Any]:
    return [pytest.param(entry, id=entry["name"]) for entry in DOC["cases"]]


@pytest.mark.parametrize("entry", _entries())
def test_null_rule_and_reasons_table(entry: dict[str, Any]) -> None:
    case = Case(id=entry["name"], prompt="p", expected=entry["expected"])
    defaults = SuiteDefaults.model_validate(entry.get("defaults", {}))
    tools = TOOLS if entry.get("tools", "all") is not None else None
    result = judge(
        case, [entry["actual"]], tools=tools, strict=entry.get("strict", False), defaults=defaults
    )
    shown = [[m.path, m.reason, m.message] for m in result.details]
    assert result.status.value == entry["expect"]["status"], shown
    if "details" in entry["expect"]:
        assert shown == entry["expect"]["details"]


def test_null_rule_table_covers_each_rule() -> None:
    names = [entry["name"] for entry in DOC["cases"]]
    assert len(names) == len(set(names))
    assert len(names) >= 30


@pytest.mark.parametrize(
    ("schema", "allowed"),
    [
        ({"type": "null"}, True),
        ({"type": ["string", "null"]}, True),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, True),
        ({"oneOf": [{"type": "string"}, {"enum": [None]}]}, True),
        ({"type": "string", "nullable": True}, True),
        ({"enum": ["a", None]}, True),
        ({"const": None}, True),
        ({"type": "string"}, False),
        ({"type": "string", "nullable": False}, False),
        ({"enum": ["a"]}, False),
        ({}, False),
        (None, False),
    ],
)
def test_allows_null_reads_the_schema(schema: Any, allowed: bool) -> None:
    assert allows_null(schema) is allowed


def test_without_absent_nulls_keeps_array_items_and_unchanged_values() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": ["string", "null"]}, "b": {"type": "array"}},
    }
    value = {"a": None, "b": [None], "c": None}
    assert without_absent_nulls(value, schema, everywhere=False) == {"b": [None], "c": None}
    assert without_absent_nulls(value, schema, everywhere=True) == {"b": [None]}
    kept = {"b": [1], "c": "x"}
    assert without_absent_nulls(kept, schema, everywhere=True) is kept


def test_compare_arguments_option_reads_null_as_left_out() -> None:
    schema = {"type": "object", "properties": {"ref": {"type": "string"}}}
    plain = MatchOptions(semantic=True, matchers=True)
    opted = MatchOptions(semantic=True, matchers=True, null_is_absent=True)
    expected: dict[str, Any] = {"ref": {"$absent": True}}
    assert compare_arguments(expected, {"ref": None}, options=plain, schema=schema)
    assert not compare_arguments(expected, {"ref": None}, options=opted, schema=schema)


def test_suite_null_default_keeps_content_hash_and_round_trips() -> None:
    plain = Suite(name="s")
    assert Suite(name="s", defaults=SuiteDefaults(null_is_absent=False)).content_hash == (
        plain.content_hash
    )
    opted = Suite(name="s", defaults=SuiteDefaults(null_is_absent=True))
    assert opted.content_hash != plain.content_hash
    assert opted.to_dict()["defaults"] == {
        "order": "any",
        "rubric": "partial",
        "null_is_absent": True,
    }
    assert "null_is_absent" not in plain.to_dict()["defaults"]  # type: ignore[operator]
    assert Suite.model_validate(opted.to_dict()) == opted


def test_suite_file_with_null_is_absent_loads_and_judges(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    doc = {
        "schema_version": 1,
        "name": "s",
        "defaults": {"null_is_absent": True},
        "tools": [t.model_dump(exclude_none=True) for t in TOOLS[:1]],
        "cases": [
            {
                "id": "TC-1",
                "prompt": "Show me my unstaged changes",
                "expected": {"name": "git_diff", "arguments": {"ref": {"$absent": True}}},
            }
        ],
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    suite = load_suite(path)
    assert suite.defaults.null_is_absent
    case = suite.cases[0]
    call = {"name": "git_diff", "arguments": {"ref": None}}
    result = judge(case, [call], tools=suite.tools_for(case), defaults=suite.defaults)
    assert result.status.value == "correct"
    doc["defaults"] = {"null_is_absent": "yes"}
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SuiteError):
        load_suite(path)
