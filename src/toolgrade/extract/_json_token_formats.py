"""Special-token formats with JSON call bodies: Apertus, LongCat, MiniMax-M1, GigaChat, Granite FC.

Hermes, Jamba, Granite 3 and the other JSON families are in `_json_formats`; these are
the remaining JSON-bodied formats that vLLM's and SGLang's tool parsers know.
"""

from __future__ import annotations

from toolgrade._core.json_data import JsonValue
from toolgrade.extract._build import Finder, Found, is_tool_name
from toolgrade.extract._common import (
    MAX_FAILED_DECODES,
    decode_at,
    error_for,
    loads_fast,
    skip_space,
)
from toolgrade.extract._json_scan import json_until
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat

__all__ = [
    "FORMATS",
    "json_list",
    "parse_apertus",
    "parse_gigachat3",
    "parse_granite_20b_fc",
    "parse_longcat",
    "parse_minimax_m1",
]

_MAX_VALUES = 64
"""JSON values read from one tag body at most."""


def json_list(body: str, found: Found, ctx: ExtractContext, *, where: str) -> None:
    """Record the calls of a JSON call object or list of them (`{"name", "arguments"}`)."""
    try:
        value = loads_fast(body)
    except ValueError as exc:
        found.problem(error_for(exc, where))
        return
    for item in value if isinstance(value, list) else [value]:
        found.json_item(item, ctx, where=where)


def _json_values(body: str) -> list[JsonValue]:
    """JSON values written one after the other (whitespace between).

    Raises:
        ValueError: not JSON values (`TooDeepError` for one nested too deeply).
    """
    values: list[JsonValue] = []
    pos = skip_space(body, 0)
    while pos < len(body):
        value, pos = decode_at(body, pos)
        values.append(value)
        pos = skip_space(body, pos)
    return values


_APERTUS_START = "<|tools_prefix|>"
_APERTUS_END = "<|tools_suffix|>"


def parse_apertus(text: str, ctx: ExtractContext) -> Extraction | None:
    """Apertus: `<|tools_prefix|>[{"NAME": {...arguments}}]<|tools_suffix|>`."""
    found = Found("apertus")
    pos = 0
    while (start := text.find(_APERTUS_START, pos)) != -1 and not found.full:
        body_start = start + len(_APERTUS_START)
        end = text.find(_APERTUS_END, body_start)
        if end == -1:
            found.error("Apertus tool calls are not closed with <|tools_suffix|>")
            break
        pos = end + len(_APERTUS_END)
        try:
            value = loads_fast(text[body_start:end])
        except ValueError as exc:
            found.error(f"Apertus tool calls: {exc}")
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and len(item) == 1:
                name, arguments = next(iter(item.items()))
                if is_tool_name(name) and isinstance(arguments, dict):
                    found.call(name, arguments, ctx)
                    continue
            found.error('Apertus tool call must be {"NAME": {arguments}}')
    return found.result()


def _tagged(
    text: str, ctx: ExtractContext, *, fmt: str, tags: tuple[str, str], several: bool
) -> Extraction | None:
    """JSON calls between tags; `several`: objects one after another rather than one value."""
    opening, closing = tags
    finder = Finder(text)
    found = Found(fmt)
    pos = failures = 0
    while (start := finder.find(opening, pos)) != -1 and not found.full:
        body_start = start + len(opening)
        if failures < MAX_FAILED_DECODES:
            # Decoded first, so a closing tag inside a JSON string stays text.
            first = skip_space(text, body_start)
            read = json_until(text, first, closing, max_values=_MAX_VALUES if several else 1)
            if read is not None:
                for value in read[0]:
                    found.json_item(value, ctx, where=fmt)
                pos = read[1] + len(closing)
                continue
            failures += 1
        end = finder.find(closing, body_start)
        if end == -1:
            found.error(f"{opening} is not closed with {closing} (output truncated?)")
            break
        pos = end + len(closing)
        body = text[body_start:end]
        if not several:
            json_list(body, found, ctx, where=fmt)
            continue
        try:
            values = _json_values(body)
        except ValueError as exc:
            found.problem(error_for(exc, fmt))
            continue
        for value in values:
            found.json_item(value, ctx, where=fmt)
    return found.result()


def parse_longcat(text: str, ctx: ExtractContext) -> Extraction | None:
    """LongCat-Flash: `<longcat_tool_call>{"name": ..., "arguments": ...}</longcat_tool_call>`."""
    tags = ("<longcat_tool_call>", "</longcat_tool_call>")
    return _tagged(text, ctx, fmt="longcat", tags=tags, several=False)


def parse_minimax_m1(text: str, ctx: ExtractContext) -> Extraction | None:
    """MiniMax-M1: `<tool_calls>` then one JSON call object per line, then `</tool_calls>`.

    A body holding a single JSON value is left to the `jamba` format (same tags).
    """
    start = text.find("<tool_calls>")
    end = text.find("</tool_calls>", start)
    if start == -1 or end == -1:
        return None
    body = text[start + len("<tool_calls>") : end]
    try:
        several = len(_json_values(body)) >= 2
    except ValueError:
        # Broken or refused JSON: one call per line is what makes it this format.
        several = sum(line.lstrip().startswith("{") for line in body.splitlines()) >= 2
    if not several:
        return None
    return _tagged(
        text, ctx, fmt="minimax_m1", tags=("<tool_calls>", "</tool_calls>"), several=True
    )


_GIGACHAT = "function call<|role_sep|>"


def parse_gigachat3(text: str, ctx: ExtractContext) -> Extraction | None:
    """GigaChat 3: `function call<|role_sep|>` then one `{"name": ..., "arguments": {...}}`."""
    start = text.find(_GIGACHAT)
    if start == -1:
        return None
    found = Found("gigachat3")
    body = text[start + len(_GIGACHAT) :].strip().removesuffix("</s>")
    if not body.startswith(("{", "[")):
        return None
    json_list(body, found, ctx, where="gigachat3")
    return found.result()


_GRANITE_FC = "<function_call>"


def parse_granite_20b_fc(text: str, ctx: ExtractContext) -> Extraction | None:
    """Granite 20B FunctionCalling: `<function_call> {"name": ..., "arguments": ...}`, repeated."""
    found = Found("granite_20b_fc")
    parts = text.split(_GRANITE_FC)[1:]
    for index, part in enumerate(parts, start=1):
        if found.full:
            break
        body = part.strip()
        if not body.startswith("{"):
            continue  # the tag named in prose, not a call
        try:
            value, _ = decode_at(body, 0)
        except ValueError as exc:
            found.problem(error_for(exc, f"granite_20b_fc call #{index}"))
            continue
        found.json_item(value, ctx, where=f"granite_20b_fc call #{index}")
    return found.result()


FORMATS: list[TextFormat] = [
    TextFormat(
        name="apertus",
        stage="marker",
        markers=(_APERTUS_START,),
        parse=parse_apertus,
        description='<|tools_prefix|>[{"NAME": {...}}]<|tools_suffix|> (Swiss AI Apertus)',
    ),
    TextFormat(
        name="longcat",
        stage="marker",
        markers=("<longcat_tool_call>",),
        parse=parse_longcat,
        description="<longcat_tool_call>{json}</longcat_tool_call> (Meituan LongCat-Flash)",
    ),
    TextFormat(
        name="minimax_m1",
        stage="marker",
        markers=("<tool_calls>",),
        parse=parse_minimax_m1,
        description="<tool_calls> one JSON call per line </tool_calls> (MiniMax-M1)",
    ),
    TextFormat(
        name="gigachat3",
        stage="marker",
        markers=(_GIGACHAT,),
        parse=parse_gigachat3,
        description="function call<|role_sep|> {json} (GigaChat 3)",
    ),
    TextFormat(
        name="granite_20b_fc",
        stage="marker",
        markers=(_GRANITE_FC,),
        parse=parse_granite_20b_fc,
        description="<function_call> {json}, repeated (Granite 20B FunctionCalling)",
    ),
]
