"""Prompt-mode families: how tools, earlier calls and tool results are written as text.

In `prompt` mode the server knows no tools: they are described in the system prompt,
and a conversation's earlier calls and their results are written into the messages in
the text the model family was trained on. Each family gives three things:

- `system`: the tool prompt put in front of the conversation's own system prompt;
- `call`: how one earlier call is written in an assistant message;
- `result`: how one tool result is written, in a `user` message (the server knows no
  `tool` role in this mode). Results are data: a renderer writes the result JSON as it
  is and neutralises nothing.

The families:

- `hermes` (default; Hermes, Qwen): calls in `<tool_call>` blocks, results in
  `<tool_response>` blocks.
- `llama3` (Meta's JSON tool calling for Llama 3.1+): the tools as JSON, calls written
  `{"name": ..., "parameters": {...}}`; a result is the body Meta's template puts under
  the `ipython` header, the result's JSON as it is, sent as a user message.
- `mistral` (Mistral's v3 tokenizer): `[AVAILABLE_TOOLS]`, calls as
  `[TOOL_CALLS][{"name", "arguments", "id"}]`, results as
  `[TOOL_RESULTS]{"content": ..., "call_id": ...}[/TOOL_RESULTS]`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.suite import ToolSpec

__all__ = ["DEFAULT_FAMILY", "PromptFamily", "family", "family_names"]

DEFAULT_FAMILY = "hermes"
"""The family used unless `BackendSettings.prompt_format` names another."""


def _dumps(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class PromptFamily:
    """How one model family reads tools, calls and results as text."""

    name: str
    """The family's name (`--prompt-format`)."""
    system: Callable[[Sequence[ToolSpec]], str]
    """The tool prompt for these tools."""
    calls: Callable[[Sequence[JsonObject]], str]
    """The text of an assistant message's calls (`{"id", "name", "arguments"}` each)."""
    result: Callable[[str, str, JsonValue], str]
    """The text of one result: (tool name, call id, result) -> text. The result is the
    `tool` message's content: text (JSON text for a JSON result), written as it is."""


_HERMES_HEAD = (
    "You are a function calling AI model. You are provided with function signatures within "
    "<tools></tools> XML tags. You may call one or more functions to assist with the user "
    "query. Don't make assumptions about what values to plug into functions. If no function "
    "fits the request, answer in plain text without calling any function.\n<tools>\n"
)
_HERMES_TAIL = (
    "\n</tools>\nFor each function call return a JSON object with the function name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-dict>}\n</tool_call>'
)


def _hermes_system(tools: Sequence[ToolSpec]) -> str:
    lines = "\n".join(_dumps(t.to_openai()) for t in tools)
    return _HERMES_HEAD + lines + _HERMES_TAIL


def _hermes_calls(calls: Sequence[JsonObject]) -> str:
    return "\n".join(
        "<tool_call>\n"
        + _dumps({"name": c.get("name"), "arguments": c.get("arguments") or {}})
        + "\n</tool_call>"
        for c in calls
    )


def _text(result: JsonValue) -> str:
    """A result as the model reads it: text as it is, anything else as JSON."""
    return result if isinstance(result, str) else _dumps(result)


def _hermes_result(name: str, call_id: str, result: JsonValue) -> str:
    return f"<tool_response>\n{_text(result)}\n</tool_response>"


_LLAMA3_HEAD = (
    "When you receive a tool call response, use the output to format an answer to the "
    "original user question.\n\nYou are a helpful assistant with tool calling capabilities.\n\n"
    "Given the following functions, please respond with a JSON for a function call with its "
    "proper arguments that best answers the given prompt. If no function fits the request, "
    "answer in plain text.\n\n"
    'Respond in the format {"name": function name, "parameters": dictionary of argument name '
    "and its value}. Do not use variables.\n\n"
)


def _llama3_system(tools: Sequence[ToolSpec]) -> str:
    return _LLAMA3_HEAD + "\n\n".join(_dumps(t.to_openai()) for t in tools)


def _llama3_calls(calls: Sequence[JsonObject]) -> str:
    return "\n".join(
        _dumps({"name": c.get("name"), "parameters": c.get("arguments") or {}}) for c in calls
    )


def _llama3_result(name: str, call_id: str, result: JsonValue) -> str:
    return _text(result)


def _mistral_system(tools: Sequence[ToolSpec]) -> str:
    listed = _dumps([t.to_openai() for t in tools])
    return (
        f"[AVAILABLE_TOOLS]{listed}[/AVAILABLE_TOOLS]\n"
        "To call tools, answer with [TOOL_CALLS] followed by a JSON list of "
        '{"name": <function-name>, "arguments": <args-dict>} objects. If no tool fits the '
        "request, answer in plain text."
    )


def _mistral_calls(calls: Sequence[JsonObject]) -> str:
    listed: list[JsonValue] = []
    for c in calls:
        item: JsonObject = {"name": c.get("name"), "arguments": c.get("arguments") or {}}
        if isinstance(c.get("id"), str):
            item["id"] = c["id"]
        listed.append(item)
    return "[TOOL_CALLS]" + _dumps(listed)


def _mistral_result(name: str, call_id: str, result: JsonValue) -> str:
    # As mistral-common writes a tool message: its content as JSON when it parses.
    content = result
    if isinstance(result, str):
        try:
            content = json.loads(result)
        except (ValueError, RecursionError):
            content = result
    return "[TOOL_RESULTS]" + _dumps({"content": content, "call_id": call_id}) + "[/TOOL_RESULTS]"


_FAMILIES: dict[str, PromptFamily] = {
    f.name: f
    for f in (
        PromptFamily("hermes", _hermes_system, _hermes_calls, _hermes_result),
        PromptFamily("llama3", _llama3_system, _llama3_calls, _llama3_result),
        PromptFamily("mistral", _mistral_system, _mistral_calls, _mistral_result),
    )
}


def family_names() -> tuple[str, ...]:
    """The families known, in a stable order.

    Examples:
        >>> family_names()
        ('hermes', 'llama3', 'mistral')
    """
    return tuple(_FAMILIES)


def family(name: str) -> PromptFamily:
    """The family of this name.

    Raises:
        KeyError: no such family (`BackendSettings` checks the name first).

    Examples:
        >>> family("mistral").result("read_file", "c1", {"ok": True})
        '[TOOL_RESULTS]{"content": {"ok": true}, "call_id": "c1"}[/TOOL_RESULTS]'
    """
    return _FAMILIES[name]
