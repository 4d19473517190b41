"""Marker-less JSON calls: xLAM lists, ```json fenced blocks, bare JSON objects in text.

Without a marker, JSON is only a call when it looks like one: an object with a string
`name` and an `arguments` or `parameters` object (or, when the tools are known, any
object whose `name` is one of them). An object whose `name` is not an offered tool, a
tool *definition* (`parameters` holding a JSON Schema), and JSON that is not a call at
all are prose, never errors. Broken JSON is a `parse_error` only when it evidently
meant a call (a `name` and an `arguments`/`parameters` key, and a known tool name).
"""

from __future__ import annotations

import re

from toolgrade._json import JsonValue
from toolgrade.calls import ToolCall
from toolgrade.extract._json_scan import (
    Found,
    as_extraction,
    call_from_object,
    decode_at,
    error_for,
    loads_fast,
    looks_like_call_text,
)
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat

__all__ = ["FORMATS", "fenced_blocks", "generic_calls"]

_FENCE_LANGS = frozenset(
    {"", "json", "jsonc", "json5", "tool_call", "tool_calls", "function_call", "functions"}
)
_MAX_FENCES = 64
_MAX_FAILED_DECODES = 16
"""Candidates that fail to decode before a bare scan gives up (bounds hostile input)."""
_BROKEN_WINDOW = 4096
_WRAPPER_KEYS = ("tool_calls", "function_call", "tool_call", "calls")
# Starts with a literal `{` so the regex engine skips ahead fast; a list's `[` is found by
# looking back (see `_candidate_start`).
_CANDIDATE = re.compile(
    r'\{\s*"(?:name|arguments|parameters|function|tool_calls|function_call|tool_call)"\s*:'
)


def _candidate_start(text: str, brace: int) -> int:
    """The start of the JSON value: the `[` just before the `{` (whitespace apart), if any."""
    low = max(0, brace - 64)
    before = text[low:brace].rstrip()
    return low + len(before) - 1 if before.endswith("[") else brace


def fenced_blocks(text: str) -> list[tuple[str, str, bool]]:
    """Markdown fenced blocks as (language, body, closed), in linear time."""
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


def _generic_call(value: JsonValue, ctx: ExtractContext) -> tuple[ToolCall, bool] | None:
    """A call (and whether it used `parameters`) when `value` looks like one; else None."""
    if not isinstance(value, dict):
        return None
    function = value.get("function")
    obj = function if isinstance(function, dict) else value
    name = obj.get("name")
    if not isinstance(name, str) or _is_definition(obj):
        return None
    has_arguments = "arguments" in obj or "parameters" in obj
    if ctx.tools is not None and name.strip() not in ctx.tools:
        return None
    if ctx.tools is None and not has_arguments:
        return None
    result = call_from_object(value)
    if result.call is None:
        return None
    return result.call, "parameters" in obj and "arguments" not in obj


def generic_calls(value: JsonValue, ctx: ExtractContext) -> tuple[list[ToolCall], bool] | None:
    """Calls in a decoded value: one call object, a list of them, or `{"tool_calls": [...]}`.

    Returns:
        The calls and whether all of them used the `parameters` key (Llama's shape), or
        None when the value is not calls (a list counts only when every item is a call).
    """
    if isinstance(value, dict):
        for key in _WRAPPER_KEYS:
            inner = value.get(key)
            if inner is not None and len(value) == 1:
                return generic_calls(inner, ctx)
    items = value if isinstance(value, list) else [value]
    if not items:
        return None
    read = [_generic_call(item, ctx) for item in items]
    if any(r is None for r in read):
        return None
    pairs = [r for r in read if r is not None]
    return [call for call, _ in pairs], all(uses_params for _, uses_params in pairs)


def _broken(text: str, ctx: ExtractContext, where: str, exc: ValueError) -> Found:
    found = Found.empty()
    if looks_like_call_text(text[:_BROKEN_WINDOW], ctx):
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
        return as_extraction(_broken(body, ctx, "xlam: JSON list", exc), "xlam")
    read = generic_calls(value, ctx) if isinstance(value, list) else None
    if read is None:
        return None
    return Extraction(calls=tuple(read[0]), format="xlam")


def _fenced_json(text: str, ctx: ExtractContext) -> Extraction | None:
    found = Found.empty()
    for index, (lang, body, _closed) in enumerate(fenced_blocks(text), start=1):
        stripped = body.strip()
        if lang not in _FENCE_LANGS or not stripped.startswith(("{", "[")):
            continue
        where = f"fenced_json: block #{index}"
        try:
            value = loads_fast(stripped)
        except ValueError as exc:
            broken = _broken(stripped, ctx, where, exc)
            found.add(broken.calls, broken.errors)
            continue
        read = generic_calls(value, ctx)
        if read is not None:
            found.calls.extend(read[0])
    return as_extraction(found, "fenced_json")


def _bare_json(text: str, ctx: ExtractContext) -> Extraction | None:
    found = Found.empty()
    all_params = True
    consumed = failures = 0
    # A broken list's error covers the broken items inside it, which are candidates too.
    in_broken_list = False
    if "{" not in text:
        return None
    for match in _CANDIDATE.finditer(text):
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
            if failures >= _MAX_FAILED_DECODES:
                break
            continue
        consumed = end
        read = generic_calls(value, ctx)
        if read is not None:
            found.calls.extend(read[0])
            all_params = all_params and read[1]
    name = "llama3_json" if found.calls and all_params else "json"
    return as_extraction(found, name)


FORMATS: list[TextFormat] = [
    TextFormat(
        "xlam",
        "fenced",
        (),
        _xlam,
        'Salesforce xLAM: the whole output is [{"name": ..., "arguments": ...}], bare or fenced',
    ),
    TextFormat(
        "fenced_json",
        "fenced",
        ("```",),
        _fenced_json,
        "A ```json fenced block holding a call object or a list of calls",
    ),
    TextFormat(
        "json",
        "bare",
        ('"',),
        _bare_json,
        'Bare JSON call objects in text: {"name": ..., "arguments"|"parameters": ...}',
    ),
]
