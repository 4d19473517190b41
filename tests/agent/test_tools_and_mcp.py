"""tool_definitions, call_tool, and the MCP server driven by a real MCP client over stdio."""

from __future__ import annotations

import json
import sys

import anyio
import jsonschema
import pytest

from toolgrade import InputError, call_tool, tool_definitions


def test_tool_definitions_are_valid_openai_functions() -> None:
    defs = tool_definitions()
    assert [d["function"]["name"] for d in defs] == ["score_calls", "extract_calls", "judge"]
    for d in defs:
        assert d["type"] == "function"
        jsonschema.Draft202012Validator.check_schema(d["function"]["parameters"])
        assert d["function"]["description"]


def test_call_tool_score_calls_matches_library() -> None:
    out = call_tool(
        "score_calls",
        {
            "expected": [{"tool": "a", "args": {"x": 1}}],
            "actual": [{"tool": "a", "args": {"x": 2}}],
        },
    )
    assert out["score"] == 0.0 and len(out["incorrectCalls"]) == 1


def test_call_tool_extract_calls_returns_format_and_calls() -> None:
    out = call_tool(
        "extract_calls", {"output": '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'}
    )
    assert out["format"] == "hermes"
    assert out["calls"] == [{"name": "f", "arguments": {"a": 1}}]


def test_call_tool_judge_returns_status_and_details() -> None:
    out = call_tool(
        "judge",
        {
            "case": {"expected": {"name": "f", "arguments": {"a": 1}}},
            "actual": [{"name": "f", "arguments": {"a": 2}}],
            "rubric": "partial",
        },
    )
    assert out["status"] == "wrong_args" and out["score"] == 0.5
    assert out["details"][0]["path"] == "$.a"


def test_call_tool_invalid_arguments_raise_input_error() -> None:
    with pytest.raises(InputError, match="score_calls: arguments: 'actual' is a required property"):
        call_tool("score_calls", {"expected": []})
    with pytest.raises(InputError, match="unknown tool 'nope'"):
        call_tool("nope", {})


@pytest.mark.slow
def test_mcp_server_over_stdio_lists_and_calls_tools() -> None:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "toolgrade", "mcp"])

    async def session() -> None:
        with anyio.fail_after(60):
            await _exercise(params)

    anyio.run(session)


async def _exercise(params: object) -> None:
    from mcp import Client

    async with Client(params) as client:  # type: ignore[arg-type]
        listed = await client.list_tools()
        names = [t.name for t in listed.tools]
        assert names == ["score_calls", "extract_calls", "judge"]
        schema = next(t for t in listed.tools if t.name == "score_calls").input_schema
        assert schema["required"] == ["expected", "actual"]
        result = await client.call_tool(
            "score_calls",
            {"expected": [{"tool": "a"}, {"tool": "b"}], "actual": [{"tool": "a"}]},
        )
        assert not result.is_error
        data = json.loads(result.content[0].text)
        assert data["score"] == 0.667
        bad = await client.call_tool("score_calls", {"expected": "x", "actual": []})
        assert bad.is_error
        assert "expected" in bad.content[0].text
