"""toolgrade's own functions as tools for LLMs and agents.

`tool_definitions()` describes `score_calls`, `extract_calls` and `judge` as OpenAI-style
function definitions; `call_tool(name, arguments)` runs one of them on JSON arguments
and returns a JSON result. The MCP server (`toolgrade mcp`) serves exactly these.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Literal, get_args

from toolgrade._core.json_data import JsonObject, clean_value
from toolgrade._core.vocab import Rubric
from toolgrade.errors import InputError

__all__ = ["call_tool", "mcp_tools", "tool_definitions"]

_CALL: JsonObject = {
    "type": "object",
    "description": "A tool call: a name and its arguments.",
    "properties": {
        "name": {"type": "string", "description": "Tool name (alias: tool)."},
        "tool": {"type": "string", "description": "Tool name (alias of name)."},
        "arguments": {"type": "object", "description": "Arguments (aliases: args, parameters)."},
        "args": {"type": "object"},
        "parameters": {"type": "object"},
    },
}
_CALLS: JsonObject = {"type": "array", "items": _CALL}

_DEFINITIONS: tuple[JsonObject, ...] = (
    {
        "name": "score_calls",
        "description": (
            "Score actual tool calls against expected ones: each call is correct, incorrect "
            "(same tool, other arguments), missed or extra; returns precision, recall and "
            "F1 (the score), with optimal pairing of calls."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "expected": {**_CALLS, "description": "The calls that should have been made."},
                "actual": {**_CALLS, "description": "The calls that were made."},
                "order": {
                    "type": "string",
                    "enum": ["any", "strict"],
                    "default": "any",
                    "description": "strict: calls must keep the expected order.",
                },
            },
            "required": ["expected", "actual"],
            "additionalProperties": False,
        },
    },
    {
        "name": "extract_calls",
        "description": (
            "Extract the tool calls from a model's raw output (Hermes, Mistral, Llama, "
            "pythonic, DeepSeek, Qwen3-Coder XML, OpenAI/Ollama messages and many more); "
            "returns the format recognised, the calls and any malformed-call errors."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "output": {
                    "type": ["string", "object"],
                    "description": "Raw assistant text, an assistant message, or a whole response.",
                },
                "format": {
                    "type": "string",
                    "default": "auto",
                    "description": "Force one format by name; auto detects it.",
                },
                "tools": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Names of the tools offered (rejects look-alikes).",
                },
            },
            "required": ["output"],
            "additionalProperties": False,
        },
    },
    {
        "name": "judge",
        "description": (
            "Judge one test case: do the actual calls match the expected ones under "
            "schema-aware semantic rules and matchers? Returns status, score and every "
            "argument difference."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "case": {
                    "type": "object",
                    "description": "A toolgrade case: id, prompt, expected (call, list or null), "
                    "optional alternatives, order, rubric.",
                },
                "actual": {
                    "type": ["array", "string", "object"],
                    "description": "The calls made, raw output text, or an assistant message.",
                },
                "tools": {
                    "type": "array",
                    "items": {"type": "object"},
                    "description": "Tool definitions offered (OpenAI or flat form).",
                },
                "rubric": {"type": "string", "enum": list(get_args(Rubric))},
                "strict": {
                    "type": "boolean",
                    "default": False,
                    "description": "Fail on arguments the expectation does not mention.",
                },
            },
            "required": ["case", "actual"],
            "additionalProperties": False,
        },
    },
)


def mcp_tools() -> list[tuple[str, str, dict[str, Any]]]:
    """The tools as (name, description, input JSON Schema), for the MCP server."""
    return [
        (str(d["name"]), str(d["description"]), copy.deepcopy(dict(d["parameters"])))  # type: ignore[arg-type]
        for d in _DEFINITIONS
    ]


def tool_definitions() -> list[JsonObject]:
    """Describe toolgrade's functions as OpenAI-style function definitions.

    Returns:
        Three definitions (`score_calls`, `extract_calls`, `judge`), each
        `{"type": "function", "function": {"name", "description", "parameters"}}`.

    Examples:
        >>> [d["function"]["name"] for d in tool_definitions()]
        ['score_calls', 'extract_calls', 'judge']
    """
    return [{"type": "function", "function": copy.deepcopy(d)} for d in _DEFINITIONS]


def call_tool(name: str, arguments: Mapping[str, Any]) -> JsonObject:
    """Run one of toolgrade's tools on JSON arguments.

    Args:
        name: `score_calls`, `extract_calls` or `judge`.
        arguments: the tool's arguments, as described by `tool_definitions()`.

    Returns:
        The JSON result. A lone UTF-16 surrogate in the arguments (half an emoji, which
        no UTF-8 reply can carry) is read as U+FFFD.

    Raises:
        InputError: unknown tool or invalid arguments.
        ToolgradeError: any other error of the underlying function.
    """
    runner = _RUNNERS.get(name)
    if runner is None:
        raise InputError(f"unknown tool {name!r} (known: {', '.join(_RUNNERS)})")
    definition = next(d for d in _DEFINITIONS if d["name"] == name)
    cleaned = clean_value(dict(arguments))
    arguments = cleaned if isinstance(cleaned, dict) else arguments
    _validate(arguments, definition["parameters"], name)
    return runner(arguments)


def _validate(arguments: Mapping[str, Any], schema: Any, name: str) -> None:
    import jsonschema

    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(dict(arguments)), key=lambda e: e.path
    )
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "arguments"
        raise InputError(f"{name}: {where}: {errors[0].message}")


def _score(arguments: Mapping[str, Any]) -> JsonObject:
    from toolgrade.calls import score_calls

    order: Literal["any", "strict"] = "strict" if arguments.get("order") == "strict" else "any"
    return score_calls(arguments["expected"], arguments["actual"], order=order).to_dict()


def _extract(arguments: Mapping[str, Any]) -> JsonObject:
    from toolgrade.extract import extract_calls

    found = extract_calls(
        arguments["output"], format=arguments.get("format", "auto"), tools=arguments.get("tools")
    )
    return {
        "format": found.format,
        "calls": [c.to_dict() for c in found.calls],
        "errors": [e.model_dump() for e in found.errors],
    }


def _judge(arguments: Mapping[str, Any]) -> JsonObject:
    from toolgrade.agent._judging import judge_calls

    case: JsonObject = {"id": "case", "prompt": "", **arguments["case"]}
    result = judge_calls(
        arguments["actual"],
        case,
        tools=arguments.get("tools"),
        rubric=arguments.get("rubric"),
        strict=bool(arguments.get("strict", False)),
    )
    return result.model_dump(mode="json", exclude={"raw_response", "prompt"})


_RUNNERS: dict[str, Callable[[Mapping[str, Any]], JsonObject]] = {
    "score_calls": _score,
    "extract_calls": _extract,
    "judge": _judge,
}
