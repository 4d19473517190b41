"""Table-driven judge tests: every file in tests/data/judge/ holds tools and cases.

File shape: {"description", "tools": [ToolSpec...], "cases": [entry...]}; an entry is
{"name", "case": Case fields (id and prompt optional), "actual": [calls] or
"extraction": Extraction fields, optional "tools" (names: a subset of the file's tools,
or null for no tool list), "rubric", "strict", and "expect": any of "status", "score",
"alternative", "details" ([[path, reason], ...] exactly, in order), "pairs"
([[expected_index, actual_index, verdict], ...] exactly), "raises" (an error class name),
"error_contains"}.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolgrade
from toolgrade import Case, Extraction, ToolSpec
from toolgrade.judging._judge import judge

DATA = Path(__file__).parent.parent / "data" / "judge"


def _entries() -> list[Any]:
    params = []
    for path in sorted(DATA.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        tools = [ToolSpec.model_validate(t) for t in doc.get("tools", [])]
        for entry in doc["cases"]:
            params.append(pytest.param(entry, tools, id=f"{path.stem}::{entry['name']}"))
    return params


ENTRIES = _entries()


def test_data_cases_count_at_least_80() -> None:
    assert len(ENTRIES) >= 80
    names = [p.id for p in ENTRIES]
    assert len(names) == len(set(names)), "entry names must be unique within a file"


def _offered(entry: dict[str, Any], tools: list[ToolSpec]) -> list[ToolSpec] | None:
    if "tools" not in entry:
        return tools
    if entry["tools"] is None:
        return None
    wanted = set(entry["tools"])
    return [t for t in tools if t.name in wanted]


def _run(entry: dict[str, Any], tools: list[ToolSpec]) -> toolgrade.CaseResult:
    fields = {"id": entry["name"], "prompt": "test prompt", **entry["case"]}
    case = Case.model_validate(fields)
    actual: Any = (
        Extraction.model_validate(entry["extraction"]) if "extraction" in entry else entry["actual"]
    )
    return judge(
        case,
        actual,
        tools=_offered(entry, tools),
        rubric=entry.get("rubric"),
        strict=entry.get("strict", False),
    )


@pytest.mark.parametrize(("entry", "tools"), ENTRIES)
def test_judge_data_case_matches_expectation(entry: dict[str, Any], tools: list[ToolSpec]) -> None:
    expect = entry["expect"]
    if "raises" in expect:
        error = getattr(toolgrade, expect["raises"])
        with pytest.raises(error) as info:
            _run(entry, tools)
        assert expect.get("error_contains", "") in str(info.value)
        return
    result = _run(entry, tools)
    shown = [(m.path, m.reason, m.message) for m in result.details]
    if "status" in expect:
        assert result.status.value == expect["status"], shown
    if "score" in expect:
        assert result.score == pytest.approx(expect["score"]), shown
    if "alternative" in expect:
        assert result.alternative == expect["alternative"]
    if "details" in expect:
        assert [[m.path, m.reason] for m in result.details] == expect["details"], shown
    if "pairs" in expect:
        got = [[p.expected_index, p.actual_index, p.verdict] for p in result.pairs]
        assert got == expect["pairs"]
    assert 0.0 <= result.score <= 1.0
