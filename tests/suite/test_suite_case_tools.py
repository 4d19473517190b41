"""A case's own tool definitions: what `Suite.tools_for` offers, and how they validate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from toolgrade import Case, Suite, SuiteError, ToolSpec, load_suite, parse_suite


def _tool(name: str, **properties: Any) -> dict[str, Any]:
    return {
        "name": name,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": sorted(properties),
            "additionalProperties": False,
        },
    }


SUITE_TOOLS = [_tool("a", x={"type": "integer"}), _tool("b"), _tool("c")]


def _suite(*cases: dict[str, Any]) -> Suite:
    return Suite.model_validate({"name": "s", "tools": SUITE_TOOLS, "cases": list(cases)})


def _case(**fields: Any) -> dict[str, Any]:
    return {"id": "A", "prompt": "p", "expected": None, **fields}


def _offered(suite: Suite) -> list[tuple[str, str]]:
    """Each offered tool's name and where its definition comes from."""
    case = suite.cases[0]
    return [
        (t.name, "case" if any(t is d for d in case.tool_definitions) else "suite")
        for t in suite.tools_for(case)
    ]


@pytest.mark.parametrize(
    ("case", "offered"),
    [
        (_case(), [("a", "suite"), ("b", "suite"), ("c", "suite")]),
        (_case(tools=["c", "a"]), [("a", "suite"), ("c", "suite")]),
        (
            _case(tool_definitions=[_tool("b", y={"type": "string"})]),
            [("a", "suite"), ("b", "case"), ("c", "suite")],
        ),
        (
            _case(tool_definitions=[_tool("z"), _tool("c")]),
            [("a", "suite"), ("b", "suite"), ("c", "case"), ("z", "case")],
        ),
        (
            _case(tools=["a"], tool_definitions=[_tool("z"), _tool("b"), _tool("a")]),
            [("a", "case"), ("z", "case"), ("b", "case")],
        ),
        (
            _case(tools=[], tool_definitions=[_tool("z"), _tool("a")]),
            [("z", "case"), ("a", "case")],
        ),
        (_case(tools=["z"], tool_definitions=[_tool("z")]), [("z", "case")]),
    ],
    ids=[
        "all-suite-tools",
        "subset-in-suite-order",
        "definition-replaces-in-place",
        "other-definitions-appended",
        "unoffered-suite-name-appended",
        "only-own-tools",
        "tools-may-name-own-tool",
    ],
)
def test_tools_for_case_definitions_replace_then_append(
    case: dict[str, Any], offered: list[tuple[str, str]]
) -> None:
    assert _offered(_suite(case)) == offered


def test_tools_for_without_definitions_returns_suite_tools_unchanged() -> None:
    suite = _suite(_case())
    assert suite.tools_for(suite.cases[0]) is suite.tools


def test_tool_lookup_stays_suite_level() -> None:
    suite = _suite(_case(tool_definitions=[_tool("a", y={"type": "string"}), _tool("z")]))
    assert suite.tool("z") is None
    found = suite.tool("a")
    assert found is not None and found.parameters == SUITE_TOOLS[0]["parameters"]


def test_case_duplicate_definition_names_rejected_in_python() -> None:
    with pytest.raises(ValidationError, match="duplicate tool 'z'"):
        Case(id="A", prompt="p", expected=None, tool_definitions=[ToolSpec(name="z")] * 2)


def _file(*cases: dict[str, Any]) -> str:
    return json.dumps(
        {"schema_version": 1, "name": "s", "tools": SUITE_TOOLS, "cases": list(cases)}
    )


def test_case_definition_arguments_checked_against_offered_definition() -> None:
    own = _tool("a", y={"type": "string"})
    suite = parse_suite(
        _file(
            _case(
                tool_definitions=[{"type": "function", "function": own}, _tool("z")],
                expected=[{"tool": "a", "arguments": {"y": "1"}}, {"tool": "z", "arguments": {}}],
            ),
            _case(id="B", expected={"tool": "a", "arguments": {"x": 1}}),
        )
    )
    first = suite.tools_for(suite.cases[0])
    assert [t.name for t in first] == ["a", "b", "c", "z"]
    assert first[0].parameters == own["parameters"]
    assert suite.tools_for(suite.cases[1]) == suite.tools


def test_case_definition_with_suite_arguments_is_rejected() -> None:
    text = _file(
        _case(
            tool_definitions=[_tool("a", y={"type": "string"})],
            expected={"tool": "a", "arguments": {"x": 1}},
        )
    )
    with pytest.raises(SuiteError) as info:
        parse_suite(text, name="s.json")
    assert [p.split(": ", 1)[1] for p in info.value.problems] == [
        "$.cases[0].expected.arguments (case A): violates the parameters of 'a': "
        "Additional properties are not allowed ('x' was unexpected)",
        "$.cases[0].expected.arguments (case A): violates the parameters of 'a': "
        "'y' is a required property",
    ]


def test_case_definitions_round_trip_and_enter_content_hash() -> None:
    plain = _suite(_case())
    assert "tool_definitions" not in json.dumps(plain.to_dict())
    defined = _suite(_case(tool_definitions=[_tool("z", n={"type": "integer"})]))
    again = parse_suite(json.dumps(defined.to_dict()))
    assert again == defined and again.content_hash == defined.content_hash
    changed = _suite(_case(tool_definitions=[_tool("z", n={"type": "number"})]))
    assert len({plain.content_hash, defined.content_hash, changed.content_hash}) == 3


def test_case_definitions_never_conflict_across_files(tmp_path: Path) -> None:
    for index, kind in enumerate(("integer", "string")):
        case = _case(id=f"C{index}", tools=[], tool_definitions=[_tool("z", v={"type": kind})])
        case["expected"] = {"tool": "z", "arguments": {"v": 1 if kind == "integer" else "1"}}
        (tmp_path / f"{index}.json").write_text(_file(case), encoding="utf-8")
    suite = load_suite(tmp_path)
    schemas = [suite.tools_for(case)[0].argument_schema("v") for case in suite.cases]
    assert schemas == [{"type": "integer"}, {"type": "string"}]
