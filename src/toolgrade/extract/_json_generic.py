"""Marker-less JSON calls: xLAM lists and bare JSON objects in text (fences: `_json_fenced`).

Without a marker, JSON is only a call when it looks like one: a call object, that is an
object with a string `name` and an `arguments` or `parameters` key (also LangChain's
`tool`/`tool_input`, Llama 3.2's `{"type": "function", ...}` and OpenAI's `function`
shape), or a list of them. Where it sits decides the rest (docs/extraction.md, "Call or
prose"):

- the whole reply, or the whole body of a fenced block: a call whatever its name (a
  model that answers with nothing but a call object made a call, even to a tool it
  invented);
- JSON quoted inside prose: a call only when its name is an offered tool (when the
  tools are known; then `{"name": TOOL}` alone is a call too).

A tool *definition* (`parameters` holding a JSON Schema) and JSON that is not a call at
all are prose, never errors. Broken JSON is a `parse_error` only when it evidently
meant a call (a `name` and an `arguments`/`parameters` key, and in prose a known name).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.vocab import ARGUMENT_KEYS, NAME_KEYS, ToolCall
from toolgrade.extract._build import Found
from toolgrade.extract._common import (
    MAX_CALLS,
    MAX_FAILED_DECODES,
    decode_at,
    error_for,
    loads_fast,
)
from toolgrade.extract._json_scan import (
    SINGLE_INPUT,
    CallResult,
    call_from_object,
    looks_like_call_text,
)
from toolgrade.extract._types import ExtractContext, Extraction, ExtractionProblem, TextFormat

__all__ = [
    "FORMATS",
    "GenericCalls",
    "broken_block",
    "fenced_blocks",
    "generic_calls",
    "reads_no_json",
]

_MAX_FENCES = MAX_CALLS + 1
"""Fenced blocks read at most: reading one past the call cap shows it was hit."""
_BROKEN_WINDOW = 4096
_ANY_TOOLS = ExtractContext()
_WRAPPER_KEYS = ("tool_calls", "function_call", "tool_call", "calls")
# Starts with a literal `{` so the regex engine skips ahead fast; a list's `[` is found by
# looking back (see `_candidate_start`).
_CANDIDATE = re.compile(
    r'\{\s*(?:"(?:name|arguments|parameters|function|tool_calls|function_call|tool_call|tool)"'
    r'\s*:|"type"\s*:\s*"function")'
)


def _candidate_start(text: str, brace: int) -> int:
    """The start of the JSON value: the `[` just before the `{` (whitespace apart), if any."""
    low = max(0, brace - 64)
    before = text[low:brace].rstrip()
    return low + len(before) - 1 if before.endswith("[") else brace


def fenced_blocks(
    text: str, *, end_of: Callable[[str, int, int], int] | None = None
) -> list[tuple[str, str, bool]]:
    """Markdown fenced blocks as (language, body, closed), in linear time.

    Args:
        text: the text to scan.
        end_of: called with (language, body start, first closing fence or -1) for each
            block; returns where the block really ends (a reader that decodes JSON moves
            it past backticks inside a string), or -1 for the end of the text.
    """
    blocks: list[tuple[str, str, bool]] = []
    pos = text.find("```")
    while pos != -1 and len(blocks) < _MAX_FENCES:
        newline = text.find("\n", pos + 3)
        if newline == -1:
            break
        info = text[pos + 3 : newline].strip()
        if "`" in info:
            pos = text.find("```", newline)  # a line with an inline ```code``` span
            continue
        end = text.find("```", newline + 1)
        if end_of is not None:
            end = end_of(info.lower(), newline + 1, end)
        body = text[newline + 1 : end if end != -1 else len(text)]
        blocks.append((info.lower(), body, end != -1))
        if end == -1:
            break
        pos = text.find("```", end + 3)
    return blocks


def _is_definition(obj: dict[str, JsonValue]) -> bool:
    """A tool definition (`parameters` is a JSON Schema), quoted in prose or docs."""
    params = obj.get("parameters")
    return (
        "arguments" not in obj
        and isinstance(params, dict)
        and params.get("type") == "object"
        and ("properties" in params or "description" in obj)
    )


def _single_input(call: ToolCall, ctx: ExtractContext) -> ToolCall:
    """A LangChain text `tool_input` given to the tool's only parameter, when it has one."""
    props = ctx.schemas.get(call.name, {}).get("properties")
    if not isinstance(props, dict) or len(props) != 1:
        return call
    (param,) = props
    return ToolCall.model_construct(name=call.name, arguments={param: call.arguments[SINGLE_INPUT]})


def _call_shaped(obj: JsonObject) -> bool:
    """Written as a call: `arguments`, LangChain's `tool_input`, or a name and arguments key."""
    return (
        "arguments" in obj
        or "tool_input" in obj
        or (any(k in obj for k in NAME_KEYS) and any(k in obj for k in ARGUMENT_KEYS))
    )


def _generic_call(
    value: JsonValue, ctx: ExtractContext, *, whole: bool
) -> tuple[ToolCall, bool] | CallResult | None:
    """A call (and whether it used `parameters`) when `value` looks like one; else None.

    A whole reply or fenced block written as a call but malformed (no usable name,
    arguments that are not an object, too deep) is the reader's failed `CallResult`.
    """
    if not isinstance(value, dict):
        return None
    function = value.get("function")
    obj = function if isinstance(function, dict) else value
    if _is_definition(obj):
        return None
    langchain = "tool_input" in obj and "name" not in obj
    name = obj.get("tool" if langchain else "name")
    if not isinstance(name, str):
        malformed = whole and _call_shaped(obj)
        return call_from_object(value) if malformed else None
    offered = ctx.tools is not None and name.strip() in ctx.tools
    if not offered:
        # Without a known name it must be call-shaped; quoted in prose, it must name an
        # offered tool when the tools are known.
        if ctx.tools is not None and not whole:
            return None
        if not (langchain or "arguments" in obj or "parameters" in obj):
            return None
    result = call_from_object(value)
    if result.call is None:
        return result if whole else None
    call = result.call
    if langchain and isinstance(obj["tool_input"], str) and SINGLE_INPUT in call.arguments:
        call = _single_input(call, ctx)
    return call, "parameters" in obj and "arguments" not in obj


class GenericCalls(NamedTuple):
    """The calls of a decoded value, and the malformed calls among them."""

    calls: list[ToolCall]
    parameters: bool
    """Whether every call used the `parameters` key (Llama's shape)."""
    errors: list[ExtractionProblem]
    """Call objects that are malformed (only in a whole reply or a whole fenced block)."""


def generic_calls(
    value: JsonValue, ctx: ExtractContext, *, whole: bool = False, where: str = "json"
) -> GenericCalls | None:
    """Calls in a decoded value: one call object, a list of them, or `{"tool_calls": [...]}`.

    Args:
        value: decoded JSON.
        ctx: the offered tools.
        whole: the value is the whole reply or a whole fenced block, where a call object
            is a call whatever its name, and a malformed one is a problem; otherwise
            (JSON quoted in prose) its name must be an offered tool when the tools are
            known, and a malformed one is prose.
        where: how problems name the value.

    Returns:
        The calls, or None when the value is not calls (a list counts only when every
        item is a call or a malformed call).
    """
    if isinstance(value, dict):
        for key in _WRAPPER_KEYS:
            inner = value.get(key)
            if inner is not None and len(value) == 1:
                return generic_calls(inner, ctx, whole=whole, where=where)
    items = value if isinstance(value, list) else [value]
    if not items:
        return None
    read = [_generic_call(item, ctx, whole=whole) for item in items]
    if any(r is None for r in read):
        return None
    pairs = [r for r in read if isinstance(r, tuple)]
    errors = [r.error(where) for r in read if isinstance(r, CallResult)]
    return GenericCalls(
        [call for call, _ in pairs], all(uses_params for _, uses_params in pairs), errors
    )


def broken_block(text: str, ctx: ExtractContext, where: str, exc: ValueError) -> Found:
    """An error for a whole reply or fenced block of broken JSON that meant a call."""
    found = Found()
    if looks_like_call_text(text[:_BROKEN_WINDOW], ctx, any_name=True):
        found.errors.append(error_for(exc, where))
    return found


def _xlam(text: str, ctx: ExtractContext) -> Extraction | None:
    body = text.strip()
    blocks = fenced_blocks(body)
    if body.startswith("```") and len(blocks) == 1 and body.endswith("```"):
        body = blocks[0][1].strip()
    if not body.startswith("["):
        return None
    try:
        value = loads_fast(body)
    except ValueError as exc:
        return broken_block(body, ctx, "xlam: JSON list", exc).result("xlam")
    where = "xlam: JSON list"
    read = generic_calls(value, ctx, whole=True, where=where) if isinstance(value, list) else None
    if read is None:
        return None
    return Extraction(calls=tuple(read.calls), format="xlam", errors=tuple(read.errors))


def _whole_object(text: str, ctx: ExtractContext) -> Extraction | None:
    """The calls when the whole reply is one JSON call object (a list is `xlam`'s)."""
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return None
    try:
        value = loads_fast(stripped)
    except ValueError:
        return None  # the scan below reports broken JSON that meant a call
    read = generic_calls(value, ctx, whole=True)
    if read is None:
        return None  # not a call itself; calls quoted inside it are still looked for
    name = "llama3_json" if read.calls and read.parameters else "json"
    return Extraction(calls=tuple(read.calls), format=name, errors=tuple(read.errors))


def _bare_json(text: str, ctx: ExtractContext) -> Extraction | None:
    found = Found()
    all_params = True
    consumed = failures = 0
    # A broken list's error covers the broken items inside it, which are candidates too.
    in_broken_list = False
    if "{" not in text:
        return None
    whole = _whole_object(text, ctx)
    if whole is not None:
        return whole
    for match in _CANDIDATE.finditer(text):
        if found.full:
            break
        if match.start() < consumed:
            continue
        start = max(consumed, _candidate_start(text, match.start()))
        try:
            value, end = decode_at(text, start)
        except ValueError as exc:
            failures += 1
            window = text[start : start + _BROKEN_WINDOW]
            if not in_broken_list and looks_like_call_text(window, ctx):
                found.errors.append(error_for(exc, f"json: call at char {start}"))
                in_broken_list = text[start] == "["
            if failures >= MAX_FAILED_DECODES:
                break
            continue
        consumed = end
        read = generic_calls(value, ctx)
        if read is not None:
            found.calls.extend(read.calls)
            all_params = all_params and read.parameters
    name = "llama3_json" if found.calls and all_params else "json"
    return found.result(name)


def reads_no_json(text: str) -> bool:
    """Whether `xlam` and `json` both read nothing in `text`, which is not JSON.

    For text that holds no ``` fence and no JSON value at its start (a pythonic call
    list): `xlam` then reads something only when the text starts with `[` and looks like
    a broken call (an error), and `json` only from a call-shaped object it finds.
    """
    if _CANDIDATE.search(text) is not None:
        return False
    body = text.strip()
    if not body.startswith("["):
        return True
    return not looks_like_call_text(body[:_BROKEN_WINDOW], _ANY_TOOLS, any_name=True)


FORMATS: list[TextFormat] = [
    TextFormat(
        "xlam",
        "fenced",
        (),
        _xlam,
        'Salesforce xLAM: the whole output is [{"name": ..., "arguments": ...}], bare or fenced',
    ),
    TextFormat(
        "json",
        "bare",
        ('"',),
        _bare_json,
        'Bare JSON call objects in text: {"name": ..., "arguments"|"parameters": ...}',
    ),
]
