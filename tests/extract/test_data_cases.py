"""Every example in tests/data/extract/**.json, run through `extract_calls`.

Each file is {"description", "input" (text, message or response), "format_arg" (optional,
forces a format), "tools" (optional names), "tool_schemas" (optional {name: parameters
schema}; then ToolSpecs are passed), "expected": {"format", "calls", "errors" (reason
codes)}}. Plain answers (tests/data/extract/plain/) must yield no call and no error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolgrade import ToolSpec, extract_calls

DATA = Path(__file__).parent.parent / "data" / "extract"
CASES = sorted(DATA.rglob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _tools(case: dict[str, Any]) -> list[str | ToolSpec] | None:
    names = case.get("tools")
    schemas = case.get("tool_schemas")
    if schemas:
        names = names or list(schemas)
        return [ToolSpec(name=n, parameters=schemas.get(n, {"type": "object"})) for n in names]
    return None if names is None else list(names)


def test_data_cases_exist_for_every_family() -> None:
    folders = {p.parent.name for p in CASES}
    assert len(CASES) >= 100
    assert len(list((DATA / "plain").glob("*.json"))) >= 30
    for folder in folders - {"plain"}:
        assert len(list((DATA / folder).glob("*.json"))) >= 5, folder


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(DATA)) for p in CASES])
def test_data_case_extracts_expected_calls(path: Path) -> None:
    case = _load(path)
    expected = case["expected"]
    found = extract_calls(case["input"], format=case.get("format_arg", "auto"), tools=_tools(case))
    assert found.format == expected["format"], case["description"]
    assert [c.to_dict() for c in found.calls] == expected["calls"], case["description"]
    assert [e.reason for e in found.errors] == expected.get("errors", []), found.errors


@pytest.mark.parametrize("path", sorted((DATA / "plain").glob("*.json")), ids=lambda p: p.stem)
def test_plain_answer_yields_no_call_and_no_error(path: Path) -> None:
    case = _load(path)
    found = extract_calls(case["input"], tools=_tools(case))
    assert (found.format, found.calls, found.errors) == ("none", (), ())
