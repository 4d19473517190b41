"""Fast, bounded JSON decoding and call-object reading for the JSON-family extractors.

Everything here runs the C JSON decoder and bounds its work: nesting is checked on the
decoded value (deep input makes the decoder raise RecursionError, which is caught), and
callers limit how many failed decode attempts one output may cost. That keeps a 1 MB
hostile output well under 100 ms, where a pure-Python bracket scan would not.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from toolgrade._json import JsonObject, JsonValue
from toolgrade.calls import ToolCall
from toolgrade.extract._common import JSON_DECODER, MAX_CALLS, MAX_DEPTH, parse_error
from toolgrade.extract._types import ExtractContext, Extraction, ExtractionError

__all__ = [
    "SINGLE_INPUT",
    "CallResult",
    "Found",
    "TooDeepError",
    "as_extraction",
    "call_from_object",
    "calls_from_payload",
    "decode_at",
    "decode_sequence",
    "error_for",
    "json_until",
    "loads_fast",
    "looks_like_call_text",
    "skip_space",
]

_WS = re.compile(r"\s*")
# A call's name inside JSON text that failed to decode: used only to decide whether broken
# JSON was meant as a call (then it is a parse_error) or is unrelated prose.
_NAME_IN_TEXT = re.compile(r'"(?:name|tool_name|tool)"\s*:\s*"([^"\\\n]{1,200})"')
_ARGS_IN_TEXT = re.compile(r'"(?:arguments|parameters|tool_input)"\s*:')


class TooDeepError(ValueError):
    """JSON nested deeper than `MAX_DEPTH` levels."""


def _check_depth(value: JsonValue) -> None:
    stack: list[tuple[JsonValue, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[JsonValue] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            raise TooDeepError(f"JSON nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))


def decode_at(text: str, pos: int) -> tuple[JsonValue, int]:
    """Decode one JSON value starting at `pos` (leading whitespace allowed).

    Returns:
        The value and the index just after it.

    Raises:
        TooDeepError: nested deeper than `MAX_DEPTH`.
        ValueError: not valid JSON at `pos` (the message says where), or a number
            that is not kept (`NumberTooLarge`).
    """
    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
    try:
        value, end = JSON_DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} at char {exc.pos}") from None
    except RecursionError:
        raise TooDeepError(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    _check_depth(value)
    return value, end


def skip_space(text: str, pos: int) -> int:
    """The index of the first non-whitespace character at or after `pos`."""
    return _WS.match(text, pos).end()  # type: ignore[union-attr]


def json_until(
    text: str, pos: int, close: str, *, max_values: int
) -> tuple[list[JsonValue], int] | None:
    """JSON values from `pos` up to the `close` tag, reading strings as strings.

    A closing tag (or fence) written inside a JSON string is text, not the end of the
    block: the values are decoded first and the tag is looked for only after them.

    Returns:
        The values (one or more, at most `max_values`, separated by whitespace) and the
        index of `close` right after them; None when the text from `pos` is not that
        (invalid or too deep JSON, other text after a value, no `close`), and the caller
        then reads the block as plain text.
    """
    values: list[JsonValue] = []
    while len(values) < max_values:
        try:
            value, pos = decode_at(text, pos)
        except ValueError:
            return None
        values.append(value)
        pos = skip_space(text, pos)
        if text.startswith(close, pos):
            return values, pos
        if text[pos : pos + 1] not in ("{", "["):
            return None
    return None


def loads_fast(text: str) -> JsonValue:
    """Decode text that must be exactly one JSON value (surrounding whitespace allowed).

    Raises:
        TooDeepError: nested deeper than `MAX_DEPTH`.
        ValueError: not one valid JSON value.
    """
    value, end = decode_at(text, 0)
    if text[end:].strip():
        raise ValueError(f"invalid JSON: extra data at char {end}")
    return value


def decode_sequence(text: str, separators: str) -> list[JsonValue]:
    """Decode JSON values separated by whitespace and any of `separators` (e.g. `;`).

    Raises:
        TooDeepError: a value is nested too deeply.
        ValueError: something other than JSON values and separators.
    """
    values: list[JsonValue] = []
    pos, n = 0, len(text)
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= n:
            return values
        value, pos = decode_at(text, pos)
        values.append(value)
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if pos < n and text[pos] in separators:
            pos += 1
        elif pos < n:
            raise ValueError(f"invalid JSON: unexpected text at char {pos}")


def error_for(exc: ValueError, where: str) -> ExtractionError:
    """Turn a decoding failure into an `ExtractionError` naming the format."""
    if isinstance(exc, TooDeepError):
        return ExtractionError(reason="too_deep", message=f"{where}: {exc}")
    return parse_error(f"{where}: {exc}")


def _decode_arguments(raw: JsonValue) -> JsonObject | str:
    """Arguments as an object; a JSON string (double encoding) is decoded up to twice."""
    for _ in range(3):
        if raw is None:
            return {}
        if isinstance(raw, dict):
            return raw
        if not isinstance(raw, str):
            return f"arguments must be an object, got {type(raw).__name__}"
        if not raw.strip():
            return {}
        try:
            raw = loads_fast(raw)
        except ValueError as exc:
            return f"arguments are not valid JSON ({exc})"
    return "arguments are encoded too many times"


@dataclass(frozen=True, slots=True)
class CallResult:
    """A call read from a JSON object, or why the object is not a well-formed call."""

    call: ToolCall | None
    problem: str = ""


_NAME_KEYS = ("name", "tool_name")
_ARG_KEYS = ("arguments", "parameters", "args")
SINGLE_INPUT = "__arg1"
"""The argument name of a LangChain `tool_input` written as plain text (LangChain's own)."""


def call_from_object(obj: JsonValue) -> CallResult:
    """Read a call from `{"name", "arguments"|"parameters"}` or `{"function": {...}}`.

    LangChain's `{"tool": NAME, "tool_input": {...}}` is read too; a `tool_input` that
    is plain text rather than an object is one input, `{"__arg1": text}` (see
    `_json_generic` for the tool's only parameter). Arguments given as a JSON string
    (once or twice encoded) are decoded.
    """
    if not isinstance(obj, dict):
        return CallResult(None, f"a call must be an object, got {type(obj).__name__}")
    function = obj.get("function")
    if isinstance(function, dict):
        obj = function
    if "tool_input" in obj and "name" not in obj:
        return _langchain_call(obj)
    name = next((obj[k] for k in _NAME_KEYS if k in obj), None)
    if not isinstance(name, str) or not name.strip():
        return CallResult(None, "a call needs a non-empty string 'name'")
    raw_args = next((obj[k] for k in _ARG_KEYS if k in obj), None)
    arguments = _decode_arguments(raw_args)
    if isinstance(arguments, str):
        return CallResult(None, f"call '{name}': {arguments}")
    return CallResult(ToolCall.model_construct(name=name.strip(), arguments=arguments))


def _langchain_call(obj: JsonObject) -> CallResult:
    """`{"tool": NAME, "tool_input": ...}`, LangChain's agent action."""
    name = obj.get("tool")
    if not isinstance(name, str) or not name.strip():
        return CallResult(None, "a call needs a non-empty string 'tool'")
    raw = obj["tool_input"]
    arguments = _decode_arguments(raw)
    if isinstance(arguments, str):
        if not isinstance(raw, str):
            return CallResult(None, f"call '{name}': {arguments}")
        # Old single-input agents pass the tool one string, not an object.
        arguments = {SINGLE_INPUT: raw}
    return CallResult(ToolCall.model_construct(name=name.strip(), arguments=arguments))


def calls_from_payload(
    value: JsonValue, where: str
) -> tuple[list[ToolCall], list[ExtractionError]]:
    """Calls from a decoded payload that must be a call object or a list of them."""
    items = value if isinstance(value, list) else [value]
    calls: list[ToolCall] = []
    errors: list[ExtractionError] = []
    for item in items:
        result = call_from_object(item)
        if result.call is not None:
            calls.append(result.call)
        else:
            errors.append(parse_error(f"{where}: {result.problem}"))
    return calls, errors


def looks_like_call_text(text: str, ctx: ExtractContext, *, any_name: bool = False) -> bool:
    """Whether JSON text that failed to decode was evidently meant as a tool call.

    Args:
        text: the start of the broken JSON.
        ctx: the offered tools.
        any_name: the JSON is the whole reply or a whole fenced block, where a call to a
            tool that is not offered is still a call.
    """
    name = _NAME_IN_TEXT.search(text)
    if name is None or _ARGS_IN_TEXT.search(text) is None:
        return False
    return any_name or ctx.tools is None or name.group(1) in ctx.tools


@dataclass(slots=True)
class Found:
    """Calls and errors accumulated by one parser."""

    calls: list[ToolCall]
    errors: list[ExtractionError]

    @classmethod
    def empty(cls) -> Found:
        """Nothing found yet."""
        return cls([], [])

    def add(self, calls: list[ToolCall], errors: list[ExtractionError]) -> None:
        """Append calls and errors, keeping output order."""
        self.calls.extend(calls)
        self.errors.extend(errors)

    @property
    def full(self) -> bool:
        """More than `MAX_CALLS` calls: reading on is pointless (`limit_calls` cuts them)."""
        return len(self.calls) > MAX_CALLS

    @property
    def anything(self) -> bool:
        """Whether a call or an error was found."""
        return bool(self.calls or self.errors)


def as_extraction(found: Found, name: str) -> Extraction | None:
    """An `Extraction` in format `name`, or None when nothing was found."""
    if not found.anything:
        return None
    return Extraction(calls=tuple(found.calls), format=name, errors=tuple(found.errors))
