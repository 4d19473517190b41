"""Agent trajectories: the message list an agent that runs its own tools returns.

A `python/module:function` agent may answer with its whole trajectory for the turn, an
OpenAI-style message list: assistant messages with `tool_calls`, `tool` messages with
the results, a final assistant message with the text. Backends keep that list as the
reply's `raw`, unchanged; `extractable` reads all its calls as one assistant message
(`trajectory_message`), and the conversation engine reads it step by step
(`toolgrade.extract._agent_steps`). Anthropic-style content blocks
(`tool_use` in assistant messages) and the legacy `function_call` are read too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeGuard

from toolgrade._core.json_data import JsonObject, JsonValue

__all__ = [
    "MAX_MESSAGES",
    "is_trajectory",
    "message_text",
    "message_tool_calls",
    "trajectory_message",
]

MAX_MESSAGES = 4096
"""Messages of a trajectory that are read; the rest are ignored (and said to be)."""

_MAX_MERGED_CALLS = 257
"""Calls merged by `trajectory_message`: one over extraction's `MAX_CALLS`, so that
extraction notes the cap instead of the merge hiding it."""


def is_trajectory(value: object) -> TypeGuard[Sequence[Mapping[str, object]]]:
    """True for a non-empty list whose every item is a message (a mapping with a `role`).

    Examples:
        >>> is_trajectory([{"role": "assistant", "content": "hi"}])
        True
        >>> is_trajectory([{"name": "read_file", "arguments": {}}])
        False
    """
    if not isinstance(value, Sequence) or isinstance(value, str | bytes) or not value:
        return False
    return all(isinstance(m, Mapping) and isinstance(m.get("role"), str) for m in value)


def message_text(message: Mapping[str, object]) -> str | None:
    """A message's text: its `content` string, or the text parts of a parts list.

    None when the content is neither (or absent).
    """
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, bytes):
        parts = [
            p.get("text")
            for p in content
            if isinstance(p, Mapping) and p.get("type", "text") == "text"
        ]
        return "".join(p for p in parts if isinstance(p, str))
    return None


def _from_block(block: Mapping[str, object]) -> JsonValue:
    """An Anthropic `tool_use` block as an OpenAI-shaped call."""
    function: JsonObject = {"name": block.get("name"), "arguments": block.get("input", {})}  # type: ignore[dict-item]
    call: JsonObject = {"type": "function", "function": function}
    if "id" in block:
        call["id"] = block["id"]  # type: ignore[assignment]
    return call


def message_tool_calls(message: Mapping[str, object]) -> list[JsonValue]:
    """The calls of one assistant message, each in the OpenAI shape, unvalidated.

    Read from `tool_calls` (kept as given, so that extraction reports a malformed item),
    the legacy `function_call`, or Anthropic `tool_use` content blocks. A `tool_calls`
    that is not a list comes back as the one item, for extraction to refuse.

    Examples:
        >>> message_tool_calls({"role": "assistant", "content": [
        ...     {"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]})
        [{'type': 'function', 'function': {'name': 'ls', 'arguments': {}}, 'id': 't1'}]
    """
    tool_calls = message.get("tool_calls")
    if tool_calls:
        if isinstance(tool_calls, list | tuple):
            return list(tool_calls)
        return [tool_calls]  # type: ignore[list-item]
    legacy = message.get("function_call")
    if legacy:
        return [{"type": "function", "function": legacy}]  # type: ignore[dict-item]
    content = message.get("content")
    if isinstance(content, list | tuple):
        return [
            _from_block(b)
            for b in content
            if isinstance(b, Mapping) and b.get("type") == "tool_use"
        ]
    return []


def trajectory_message(messages: Sequence[object]) -> JsonObject:
    """Every call of a trajectory's assistant messages, in order, as one assistant message.

    Its `content` is the text of the last assistant message when that one made no call
    (the agent's reply), else None. Tool results and user messages are left out: they
    are not the agent's calls, and would be read as calls if they looked like some.

    Examples:
        >>> trajectory_message([
        ...     {"role": "user", "content": "list"},
        ...     {"role": "assistant", "tool_calls": [{"function": {"name": "ls"}}]},
        ...     {"role": "tool", "content": "a.md"},
        ...     {"role": "assistant", "content": "one file"}])["content"]
        'one file'
    """
    calls: list[JsonValue] = []
    reply: str | None = None
    for message in messages[:MAX_MESSAGES]:
        if not isinstance(message, Mapping) or message.get("role") != "assistant":
            continue
        found = message_tool_calls(message)
        calls.extend(found[: _MAX_MERGED_CALLS - len(calls)])
        reply = None if found else message_text(message)
    merged: JsonObject = {"role": "assistant", "content": reply}
    if calls:
        merged["tool_calls"] = calls
    return merged
