"""The shipped JSON Schema: valid itself, accepts every shipped suite, rejects bad shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import toolgrade
from toolgrade.suite import suite_schema_text

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data" / "suite"


def test_schema_is_valid_draft_2020_12() -> None:
    schema = toolgrade.suite_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "urn:toolgrade:suite:1"
    assert json.loads(suite_schema_text()) == schema


def test_schema_returns_fresh_copy() -> None:
    first = toolgrade.suite_schema()
    first["title"] = "changed"
    assert toolgrade.suite_schema()["title"] != "changed"


@pytest.mark.parametrize(
    "path",
    [
        ROOT / "src" / "toolgrade" / "suite" / "builtin" / "coding-agent.json",
        ROOT / "examples" / "custom-suite.json",
        DATA / "valid" / "full.json",
        DATA / "valid" / "minimal.json",
        DATA / "merge_ok" / "a_tools.json",
        DATA / "merge_ok" / "b_more.json",
    ],
    ids=lambda p: p.name,
)
def test_schema_accepts_shipped_suite_files(path: Path) -> None:
    validator = Draft202012Validator(toolgrade.suite_schema())
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [e.message for e in validator.iter_errors(data)] == []


def test_schema_rejects_every_invalid_structural_entry() -> None:
    validator = Draft202012Validator(toolgrade.suite_schema())
    entries = json.loads((DATA / "invalid_suites.json").read_text(encoding="utf-8"))
    structural = [
        e
        for e in entries
        if e["name"].startswith(
            (
                "case-",
                "call-",
                "wrong-",
                "missing-",
                "unknown-top",
                "tool-without",
                "openai-",
                "parameters-",
            )
        )
    ]
    assert len(structural) >= 10
    for entry in structural:
        assert not validator.is_valid(entry["suite"]), entry["name"]
