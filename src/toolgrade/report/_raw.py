"""The model's raw output as a reader wants it: text, reasoning and calls, not JSON.

A raw output is plain text, or (from an OpenAI-compatible or Ollama server) the
assistant message, or a whole chat-completion response. A message is shown as its
text, its reasoning (labelled), and its structured tool calls written as calls
(`name(key=value, ...)`). Anything of another shape falls back to the indented JSON
dump, so that nothing the model sent is hidden.

Model text is untrusted: this module only builds plain strings; each writer escapes
them for its medium.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from toolgrade._core.json_data import JsonValue, clean_value
from toolgrade.report._plain import args_text, clip, json_text

__all__ = ["EMPTY_ANSWER", "RawPart", "clip_parts", "group_calls", "raw_parts", "raw_text"]

PartKind = Literal["text", "reasoning", "call", "calls", "refusal", "other", "json"]

EMPTY_ANSWER = "(empty answer)"

# Reasoning fields in the order servers use them: vLLM / llama.cpp / DeepSeek
# (`reasoning_content`), OpenRouter and newer vLLM (`reasoning`), Ollama (`thinking`).
_REASONING_KEYS = ("reasoning_content", "reasoning", "thinking")
_HANDLED = {"role", "content", "tool_calls", "function_call", "refusal", *_REASONING_KEYS}
_LABELS: dict[PartKind, str] = {
    "reasoning": "Reasoning",
    "call": "Tool call",
    "calls": "Tool calls",
    "refusal": "Refusal",
    "other": "Other fields",
}


@dataclass(frozen=True, slots=True)
class RawPart:
    """One labelled piece of a raw output."""

    kind: PartKind
    """`text` (the answer's text), `reasoning`, `call`, `refusal`, `other` (fields of
    the message not shown otherwise, as JSON) or `json` (an unrecognised output);
    `calls` is several calls in one part (`group_calls`)."""
    text: str

    @property
    def label(self) -> str | None:
        """`Reasoning`, `Tool call`, ...; None for the answer's text and JSON dumps."""
        return _LABELS.get(self.kind)


class _Unrecognised(Exception):
    """The output is not a shape this module knows; it is shown as JSON."""


def raw_parts(raw: JsonValue) -> tuple[RawPart, ...]:
    """Split a raw output into parts: text, reasoning, tool calls (or one JSON dump).

    Examples:
        >>> [p.text for p in raw_parts({"role": "assistant", "content": "Hi"})]
        ['Hi']
    """
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (RawPart("text", raw),)
    if isinstance(raw, dict):
        try:
            return _response_parts(raw)
        except _Unrecognised:
            pass
    return (RawPart("json", json_text(raw, indent=True)),)


def raw_text(raw: JsonValue) -> str:
    """The raw output as plain text, one labelled line per reasoning, call and refusal.

    Examples:
        >>> raw_text({"content": "", "tool_calls": [
        ...     {"function": {"name": "ls", "arguments": {"path": "."}}}]})
        'Tool call: ls(path=".")'
    """
    return "\n".join(
        f"{part.label}: {part.text}" if part.label else part.text for part in raw_parts(raw)
    )


def clip_parts(parts: Sequence[RawPart], limit: int) -> tuple[RawPart, ...]:
    """Cut the parts so that their texts add up to `limit` characters (and a cut mark)."""
    out = []
    left = limit
    for part in parts:
        if left <= 0:
            out.append(RawPart(part.kind, "…"))
            break
        text = clip(part.text, left)
        out.append(RawPart(part.kind, text))
        left -= len(text)
    return tuple(out)


def group_calls(parts: Sequence[RawPart]) -> tuple[RawPart, ...]:
    """Join each run of consecutive call parts into one `calls` part, a call per line."""
    out: list[RawPart] = []
    for part in parts:
        if part.kind == "call" and out and out[-1].kind == "calls":
            out[-1] = RawPart("calls", f"{out[-1].text}\n{part.text}")
        elif part.kind == "call":
            out.append(RawPart("calls", part.text))
        else:
            out.append(part)
    return tuple(out)


def _response_parts(raw: Mapping[str, JsonValue]) -> tuple[RawPart, ...]:
    """A whole response (OpenAI chat completion, Ollama /api/chat) or a message."""
    choices = raw.get("choices")
    if isinstance(choices, list):
        first = choices[0] if choices else None
        choice = first if isinstance(first, dict) else {}
        message, text = choice.get("message"), choice.get("text")
        if isinstance(message, dict):
            return _message_parts(message)
        if isinstance(text, str):
            return (RawPart("text", text),)  # a legacy completion
        raise _Unrecognised
    message, response = raw.get("message"), raw.get("response")
    if "content" not in raw and isinstance(message, dict):
        return _message_parts(message)  # Ollama /api/chat
    if "content" not in raw and isinstance(response, str):
        return (RawPart("text", response),)  # Ollama /api/generate
    return _message_parts(raw)


def _message_parts(message: Mapping[str, JsonValue]) -> tuple[RawPart, ...]:
    if not any(k in message for k in ("content", "tool_calls", "function_call")):
        raise _Unrecognised
    role = message.get("role")
    if role is not None and role != "assistant":
        raise _Unrecognised
    parts: list[RawPart] = []
    text = _content(message.get("content"))
    if text:
        parts.append(RawPart("text", text))
    parts += [RawPart("call", c) for c in _calls(message)]
    refusal = message.get("refusal")
    if refusal is not None:
        if not isinstance(refusal, str):
            raise _Unrecognised
        if refusal:
            parts.append(RawPart("refusal", refusal))
    for key in _REASONING_KEYS:
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            parts.append(RawPart("reasoning", value))
        elif value not in (None, ""):
            raise _Unrecognised
    other: dict[str, JsonValue] = {
        k: v for k, v in message.items() if k not in _HANDLED and v not in (None, "", [], {})
    }
    if other:
        parts.append(RawPart("other", json_text(other)))
    return tuple(parts) or (RawPart("text", EMPTY_ANSWER),)


def _content(content: JsonValue) -> str:
    """A message's text: a string, or the text parts of a list of parts."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list) and all(
        isinstance(p, dict) and isinstance(p.get("text"), str) for p in content
    ):
        return "".join(str(p["text"]) for p in content if isinstance(p, dict))
    raise _Unrecognised


def _calls(message: Mapping[str, JsonValue]) -> list[str]:
    calls = message.get("tool_calls")
    legacy = message.get("function_call")
    if calls is None:
        calls = []
    if not isinstance(calls, list):
        raise _Unrecognised
    functions = [c.get("function") if isinstance(c, dict) else None for c in calls]
    if legacy is not None:
        functions.append(legacy)
    return [_call(f) for f in functions]


def _call(function: JsonValue) -> str:
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise _Unrecognised
    name = str(function["name"])
    arguments = function.get("arguments")
    parsed = _arguments(arguments)
    if isinstance(parsed, dict):
        return f"{name}({args_text(parsed)})"
    # Malformed arguments are the interesting part of a parse error: show them as sent.
    shown = arguments if isinstance(arguments, str) else json_text(arguments)
    return f"{name}(<arguments not a JSON object: {shown}>)"


def _arguments(arguments: JsonValue) -> JsonValue:
    """OpenAI sends a JSON string (sometimes encoded twice, or empty); Ollama an object."""
    value = arguments
    for _ in range(2):
        if not isinstance(value, str):
            break
        if not value.strip():
            return {}
        try:
            value = clean_value(json.loads(value))
        except (ValueError, RecursionError):
            return None
    return value
