"""Structured calls: a server already parsed them into `tool_calls` or `function_call`.

Handles OpenAI-compatible messages (arguments as a JSON string, sometimes malformed or
encoded twice), the legacy `function_call`, and Ollama messages (arguments as an
object). When a message has no structured calls, its text `content` goes to text
extraction: servers leave calls there when their parser does not know the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from toolgrade._core.vocab import ToolCall
from toolgrade.extract._common import MAX_DEPTH, MAX_OUTPUT_CHARS, parse_error
from toolgrade.extract._json_scan import call_from_object
from toolgrade.extract._types import Extraction, ExtractionProblem

__all__ = ["STRUCTURED", "Shape", "StructuredFormat", "parse_structured", "shape_of"]


@dataclass(frozen=True, slots=True)
class StructuredFormat:
    """A structured (already parsed) call format, listed beside the text formats."""

    name: str
    """Format name reported in `Extraction.format`."""
    description: str
    """One line for `toolgrade extract --list-formats`."""
    stage: Literal["structured"] = "structured"
    """Always tried first."""
    markers: tuple[str, ...] = ()
    """Structured formats have no text markers."""


STRUCTURED: tuple[StructuredFormat, ...] = (
    StructuredFormat("openai", "OpenAI-compatible message.tool_calls (arguments a JSON string)"),
    StructuredFormat("openai_function_call", "Legacy OpenAI message.function_call"),
    StructuredFormat("ollama", "Ollama message.tool_calls (arguments a JSON object)"),
)


@dataclass(frozen=True, slots=True)
class Shape:
    """An output reduced to a message (if structured) and its text."""

    text: str
    message: Mapping[str, object] | None = None
    ollama: bool = False
    """Whether the output came in Ollama's native `/api/chat` shape."""


def _content_text(content: object) -> str | None:
    """A message's content as text: a string, or the text parts of a parts list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "".join(p for p in parts if isinstance(p, str))
    return None


def _too_big(value: object) -> ExtractionProblem | None:
    """Refuse mappings nested deeper than `MAX_DEPTH` or holding over `MAX_OUTPUT_CHARS`."""
    stack: list[tuple[object, int]] = [(value, 0)]
    chars = 0
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            chars += len(item)
            if chars > MAX_OUTPUT_CHARS:
                return ExtractionProblem(
                    reason="too_large", message=f"output over {MAX_OUTPUT_CHARS} characters"
                )
            continue
        children: list[object]
        if isinstance(item, Mapping):
            children = [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple):
            children = list(item)
        else:
            continue
        if depth >= MAX_DEPTH:
            return ExtractionProblem(
                reason="too_deep", message=f"output nested deeper than {MAX_DEPTH} levels"
            )
        stack.extend((child, depth + 1) for child in children)
    return None


def _message_shape(message: Mapping[str, object], *, ollama: bool) -> Shape | ExtractionProblem:
    text = _content_text(message.get("content"))
    if text is None:
        return parse_error("message content is neither text nor a list of parts")
    return Shape(text=text, message=message, ollama=ollama)


def shape_of(output: Mapping[str, object]) -> Shape | ExtractionProblem:
    """Find the assistant message (or text) in a message or a whole response mapping.

    Accepted: an OpenAI chat completion (`choices[0].message`), a legacy completion
    (`choices[0].text`), an Ollama `/api/chat` response (`message`) or `/api/generate`
    response (`response`), or an assistant message itself.
    """
    problem = _too_big(output)
    if problem is not None:
        return problem
    choices = output.get("choices")
    if isinstance(choices, Sequence) and not isinstance(choices, str):
        first = choices[0] if choices else None
        if not isinstance(first, Mapping):
            return parse_error("response has no choices")
        message = first.get("message")
        if isinstance(message, Mapping):
            return _message_shape(message, ollama=False)
        if isinstance(first.get("text"), str):
            return Shape(text=str(first["text"]))
        return parse_error("choices[0] has neither a message nor text")
    message = output.get("message")
    if isinstance(message, Mapping):
        return _message_shape(message, ollama=True)
    if isinstance(output.get("response"), str):
        return Shape(text=str(output["response"]))
    if {"content", "tool_calls", "function_call", "role"} & output.keys():
        return _message_shape(output, ollama=False)
    return parse_error("not a chat message or response: no content, tool_calls or choices")


def _one_call(item: object, where: str) -> tuple[ToolCall | None, ExtractionProblem | None, bool]:
    """Read one structured call; the flag says whether its arguments were an object."""
    if not isinstance(item, Mapping):
        return None, parse_error(f"{where}: a tool call must be an object"), False
    function = item.get("function", item)
    if not isinstance(function, Mapping):
        return None, parse_error(f"{where}: 'function' must be an object"), False
    result = call_from_object(dict(function))
    if result.call is None:
        return None, result.error(where), False
    raw = function.get("arguments", function.get("parameters"))
    return result.call, None, isinstance(raw, Mapping)


def parse_structured(shape: Shape) -> Extraction | None:
    """Calls from `tool_calls` or `function_call`; None when the message has none."""
    message = shape.message
    if message is None:
        return None
    tool_calls = message.get("tool_calls")
    legacy = message.get("function_call")
    if tool_calls:
        if not isinstance(tool_calls, Sequence) or isinstance(tool_calls, str):
            return Extraction(format="openai", errors=(parse_error("tool_calls is not a list"),))
        calls: list[ToolCall] = []
        errors: list[ExtractionProblem] = []
        objects = shape.ollama
        for index, item in enumerate(tool_calls):
            call, error, as_object = _one_call(item, f"tool_calls[{index}]")
            objects = objects or as_object
            calls.extend([call] if call else [])
            errors.extend([error] if error else [])
        name = "ollama" if objects else "openai"
        return Extraction(calls=tuple(calls), format=name, errors=tuple(errors))
    if legacy:
        call, error, _ = _one_call(legacy, "function_call")
        return Extraction(
            calls=(call,) if call else (),
            format="openai_function_call",
            errors=(error,) if error else (),
        )
    return None
