"""One reader of a call object: the same hostile call gives the same problem in every format.

Every format family that carries JSON call objects reads them with `call_from_object`
and decodes with the one bounded decoder, so a call nested too deeply is `too_deep`
everywhere, a number JSON would not keep or a malformed call is `parse_error`
everywhere, and double-encoded arguments are decoded everywhere.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable

import pytest

import toolgrade
import toolgrade.extract
from toolgrade import ToolCall
from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.extract import Extraction, ExtractionProblem, extract_calls
from toolgrade.extract._json_scan import call_from_object

_DEEP: JsonValue = []
for _ in range(149):
    _DEEP = [_DEEP]

# name -> (call object, expected reason; None: read, with arguments {"x": 1})
HOSTILE: dict[str, tuple[JsonObject, str | None]] = {
    "deep_arguments": ({"name": "f", "arguments": {"x": _DEEP}}, "too_deep"),
    "huge_integer": ({"name": "f", "arguments": {"x": 10**700}}, "parse_error"),
    "non_object_arguments": ({"name": "f", "arguments": [1, 2]}, "parse_error"),
    "missing_name": ({"arguments": {"x": 1}}, "parse_error"),
    "empty_name": ({"name": "", "arguments": {"x": 1}}, "parse_error"),
    "double_encoded": ({"name": "f", "arguments": json.dumps(json.dumps({"x": 1}))}, None),
    "triple_encoded": (
        {"name": "f", "arguments": json.dumps(json.dumps(json.dumps({"x": 1})))},
        "parse_error",
    ),
}

_OTHER = '{"name": "g", "arguments": {}}'
# format -> the output holding the call object's JSON text at `{c}`
TEXT_FORMATS: dict[str, str] = {
    "hermes": "<tool_call>\n{c}\n</tool_call>",
    "mistral": "[TOOL_CALLS][{c}]",
    "llama3_json": "<|python_tag|>{c}",
    "granite": "<|tool_call|>[{c}]",
    "phi4_mini": "functools[{c}]",
    "jamba": "<tool_calls>[{c}]</tool_calls>",
    "internlm2": "<|action_start|><|plugin|>\n{c}<|action_end|>",
    "command_r7b": "<|START_ACTION|>[{c}]<|END_ACTION|>",
    "longcat": "<longcat_tool_call>{c}</longcat_tool_call>",
    "minimax_m1": "<tool_calls>\n{c}\n" + _OTHER + "\n</tool_calls>",
    "gigachat3": "function call<|role_sep|>\n{c}",
    "granite_20b_fc": "<function_call> {c}",
    "xlam": "[{c}]",
    "fenced_json": "Here:\n```json\n{c}\n```",
    "json": "{c}",
}


def _as_string_arguments(call: JsonObject) -> JsonObject:
    """The call with its arguments as a JSON string (OpenAI's shape)."""
    arguments = call.get("arguments")
    if isinstance(arguments, str):
        return call
    return {**call, "arguments": json.dumps(arguments)}


STRUCTURED: dict[str, Callable[[JsonObject], JsonObject]] = {
    "openai": lambda c: {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"type": "function", "function": _as_string_arguments(c)}],
    },
    "openai_function_call": lambda c: {
        "role": "assistant",
        "content": None,
        "function_call": _as_string_arguments(c),
    },
    "ollama": lambda c: {
        "message": {"role": "assistant", "content": "", "tool_calls": [{"function": c}]}
    },
}

_CASES = [(case, fmt) for case in HOSTILE for fmt in [*TEXT_FORMATS, *STRUCTURED]]


def _extract(case: str, fmt: str) -> Extraction:
    call, _ = HOSTILE[case]
    if fmt in STRUCTURED:
        return extract_calls(STRUCTURED[fmt](call))
    return extract_calls(TEXT_FORMATS[fmt].replace("{c}", json.dumps(call)), format=fmt)


@pytest.mark.parametrize(("case", "fmt"), _CASES, ids=[f"{c}-{f}" for c, f in _CASES])
def test_one_reader_hostile_call_same_problem_in_every_format(case: str, fmt: str) -> None:
    found = _extract(case, fmt)
    reason = HOSTILE[case][1]
    f_calls = [c for c in found.calls if c.name == "f"]
    if reason is None:
        assert found.ok, found.errors
        assert [c.arguments for c in f_calls] == [{"x": 1}]
    else:
        assert [e.reason for e in found.errors] == [reason], found.errors
        assert f_calls == []


@pytest.mark.parametrize("case", list(HOSTILE))
def test_one_reader_call_from_object_gives_the_expected_reason(case: str) -> None:
    call, reason = HOSTILE[case]
    result = call_from_object(call)
    if reason is None:
        assert result.call is not None and result.call.arguments == {"x": 1}
    else:
        assert result.call is None and result.reason == reason


@pytest.mark.parametrize(
    "obj",
    [
        {"name": "f", "arguments": {"x": 1}},
        {"tool": "f", "args": {"x": 1}},
        {"tool_name": "f", "parameters": {"x": 1}},
        {"function": {"name": "f", "arguments": '{"x": 1}'}},
    ],
)
def test_one_reader_aliases_same_as_toolcall(obj: JsonObject) -> None:
    result = call_from_object(obj)
    assert result.call == ToolCall.model_validate(obj) == ToolCall(name="f", arguments={"x": 1})


@pytest.mark.parametrize("module", [toolgrade, toolgrade.extract])
def test_extraction_error_deprecated_alias_warns_and_is_problem(module: object) -> None:
    with pytest.warns(DeprecationWarning, match=r"ExtractionProblem.*|0\.3"):
        alias = module.ExtractionError
    assert alias is ExtractionProblem


def test_extraction_error_is_listed_as_deprecated() -> None:
    assert "ExtractionError" in toolgrade.__all__
    assert "ExtractionError" in toolgrade._DEPRECATED
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert toolgrade.ExtractionProblem is ExtractionProblem


def test_unknown_attribute_is_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = toolgrade.extract.NoSuchName
