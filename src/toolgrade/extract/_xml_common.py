"""Shared by the XML-tag formats: typing text values, and `<invoke name=...>` blocks.

XML-style formats write each argument value as bare text. The tool's JSON Schema, when
known, says what the text means (`42` is an integer only if the parameter is one);
without a schema the text is decoded as JSON when it is JSON, and kept as a string
otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.extract._build import Found, is_tool_name, json_arguments
from toolgrade.extract._common import NumberTooLarge, loads_fast, read_float, read_int
from toolgrade.extract._pyliteral import NotLiteral, parse_python_literal
from toolgrade.extract._types import ExtractContext, Extraction

__all__ = [
    "InvokeSyntax",
    "attribute",
    "param_schema",
    "parse_invokes",
    "trim_newlines",
    "typed_value",
    "untyped_value",
    "wrapped_invokes",
]

_INTEGER = re.compile(r"[-+]?\d+")
# Each part starts with a character of its own, so a failed match cannot backtrack: the
# old `\d{1,400}\.?\d{0,400}` tried every split of a long digit run (10 ms per value).
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_JSON_START = frozenset('{["-0123456789tfn')
_MAX_SCHEMA_DEPTH = 8
_FAILED = object()


def param_schema(ctx: ExtractContext, tool: str, param: str) -> tuple[bool, JsonObject | None]:
    """Whether the tool's schema is known, and the parameter's schema (None if undeclared)."""
    schema = ctx.schemas.get(tool)
    if schema is None:
        return False, None
    props = schema.get("properties")
    prop = props.get(param) if isinstance(props, dict) else None
    return True, prop if isinstance(prop, dict) else None


def trim_newlines(value: str) -> str:
    """Drop the one newline templates put after an opening and before a closing tag."""
    if value.startswith("\n"):
        value = value[1:]
    if value.endswith("\n"):
        value = value[:-1]
    return value


def untyped_value(raw: str) -> JsonValue:
    """A value without a schema: JSON (or a Python literal container) if it is one, else text."""
    text = raw.strip()
    if not text or text[0] not in _JSON_START:
        return raw
    try:
        return loads_fast(text)
    except ValueError:
        pass
    if text[0] in "{[":
        try:
            return parse_python_literal(text)
        except NotLiteral:
            pass
    return raw


def typed_value(raw: str, *, known: bool, schema: JsonObject | None) -> JsonValue:
    """Type a bare-text value by its parameter schema.

    Args:
        raw: the text between the value tags.
        known: whether the tool's schema is known at all (if not, `untyped_value` rules).
        schema: the parameter's schema; None when the tool does not declare it.

    Returns:
        The value as the schema's type when the text converts, else the text itself.

    Raises:
        NumberTooLarge: the schema asks for a number (or a container) and the text is
            one that is not kept (more than `MAX_INT_DIGITS` digits, or infinite).
    """
    if not known:
        return untyped_value(raw)
    types = _schema_types(schema, 0) if schema is not None else set()
    text = raw.strip()
    if "null" in types and text in ("null", "None"):
        return None
    for kind in ("integer", "number", "boolean", "object", "array"):
        if kind in types:
            value = _convert(text, kind)
            if value is not _FAILED:
                return value  # type: ignore[return-value]
    return raw


def _schema_types(schema: JsonObject, depth: int) -> set[str]:
    types: set[str] = set()
    if depth > _MAX_SCHEMA_DEPTH:
        return types
    declared = schema.get("type")
    if isinstance(declared, str):
        types.add(declared)
    elif isinstance(declared, list):
        types.update(t for t in declared if isinstance(t, str))
    for key in ("anyOf", "oneOf", "allOf"):
        options = schema.get(key)
        if isinstance(options, list):
            for option in options:
                if isinstance(option, dict):
                    types |= _schema_types(option, depth + 1)
    enum = schema.get("enum")
    if not types and isinstance(enum, list):
        types.update(_json_type(v) for v in enum)
    return types


def _json_type(value: JsonValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _convert(text: str, kind: str) -> object:
    if kind in ("integer", "number"):
        if _INTEGER.fullmatch(text):
            return read_int(text)
        if not _NUMBER.fullmatch(text):
            return _FAILED
        number = read_float(text)
        if kind == "number":
            return number
        return int(number) if number.is_integer() else _FAILED
    if kind == "boolean":
        lowered = text.lower()
        return lowered == "true" if lowered in ("true", "false") else _FAILED
    wanted = dict if kind == "object" else list
    for decode in (loads_fast, parse_python_literal):
        try:
            value = decode(text)
        except NumberTooLarge:
            raise
        except ValueError:
            continue
        if isinstance(value, wanted):
            return value
    return _FAILED


def attribute(tag: str, name: str) -> str | None:
    """The value of `name="..."` (or single-quoted) inside a tag's text, or None."""
    pos = 0
    needle = name + "="
    while (pos := tag.find(needle, pos)) != -1:
        if pos == 0 or tag[pos - 1] in " \t\n":
            quote_pos = pos + len(needle)
            quote = tag[quote_pos : quote_pos + 1]
            if quote in ('"', "'"):
                end = tag.find(quote, quote_pos + 1)
                return tag[quote_pos + 1 : end] if end != -1 else None
            return None
        pos += len(needle)
    return None


@dataclass(frozen=True, slots=True)
class InvokeSyntax:
    """Tag names of one `<invoke name="X"><parameter name="p">v</parameter></invoke>` dialect."""

    prefix: str = ""
    """Namespace before the tag names: empty, `antml:`, `steptml:`, or DeepSeek's DSML."""

    @property
    def invoke(self) -> str:
        return f"<{self.prefix}invoke"

    @property
    def invoke_end(self) -> str:
        return f"</{self.prefix}invoke>"

    @property
    def param(self) -> str:
        return f"<{self.prefix}parameter"

    @property
    def param_end(self) -> str:
        return f"</{self.prefix}parameter>"


def parse_invokes(body: str, found: Found, ctx: ExtractContext, *, syntax: InvokeSyntax) -> int:
    """Read every invoke block in `body` into `found`; return how many were seen."""
    seen = 0
    pos = 0
    while (start := body.find(syntax.invoke, pos)) != -1 and not found.full:
        seen += 1
        tag_end = body.find(">", start)
        if tag_end == -1:
            found.error("invoke tag is not closed")
            break
        name = attribute(body[start + len(syntax.invoke) : tag_end], "name")
        if name is None or not is_tool_name(name.strip()):
            found.error("invoke tag without a usable name attribute")
            pos = tag_end + 1
            continue
        pos = _read_invoke_body(
            body, tag_end + 1, name=name.strip(), found=found, ctx=ctx, syntax=syntax
        )
        if pos == -1:
            break
    return seen


def _read_invoke_body(
    body: str, pos: int, *, name: str, found: Found, ctx: ExtractContext, syntax: InvokeSyntax
) -> int:
    """Read parameters up to `</invoke>`; return the position after it, or -1 if truncated."""
    arguments: JsonObject = {}
    while True:
        while pos < len(body) and body[pos] in " \t\r\n":
            pos += 1
        if body.startswith(syntax.invoke_end, pos):
            found.call(name, arguments, ctx)
            return pos + len(syntax.invoke_end)
        if body.startswith(syntax.param, pos):
            try:
                pos = _read_parameter(
                    body, pos, tool=name, arguments=arguments, ctx=ctx, syntax=syntax
                )
            except NumberTooLarge as exc:
                found.error(f"invoke of '{name}': {exc}")
                close = body.find(syntax.invoke_end, pos)
                return -1 if close == -1 else close + len(syntax.invoke_end)
            if pos == -1:
                found.error(f"parameter of '{name}' is not closed (output truncated?)")
                return -1
            continue
        close = body.find(syntax.invoke_end, pos)
        if close == -1:
            found.error(f"invoke of '{name}' is not closed (output truncated?)")
            return -1
        decoded = json_arguments(body[pos:close])
        if isinstance(decoded, str):
            found.error(f"invoke of '{name}': {decoded}")
        else:
            arguments.update(decoded)
            found.call(name, arguments, ctx)
        return close + len(syntax.invoke_end)


def _read_parameter(
    body: str,
    pos: int,
    *,
    tool: str,
    arguments: JsonObject,
    ctx: ExtractContext,
    syntax: InvokeSyntax,
) -> int:
    tag_end = body.find(">", pos)
    if tag_end == -1:
        return -1
    tag = body[pos + len(syntax.param) : tag_end]
    end = body.find(syntax.param_end, tag_end)
    if end == -1:
        return -1
    key = attribute(tag, "name") or ""
    raw = trim_newlines(body[tag_end + 1 : end])
    flag = attribute(tag, "string")
    if flag == "true":
        arguments[key] = raw
    elif flag == "false":
        arguments[key] = untyped_value(raw)
    else:
        known, schema = param_schema(ctx, tool, key)
        arguments[key] = typed_value(raw, known=known, schema=schema)
    return end + len(syntax.param_end)


def wrapped_invokes(
    text: str, ctx: ExtractContext, *, fmt: str, wrappers: tuple[tuple[str, str, InvokeSyntax], ...]
) -> Extraction | None:
    """Invoke blocks inside wrapper tags (a missing closing wrapper is tolerated)."""
    found = Found(fmt)
    seen = 0
    for opening, closing, syntax in wrappers:
        pos = 0
        while (start := text.find(opening, pos)) != -1 and not found.full:
            body_start = start + len(opening)
            end = text.find(closing, body_start)
            body = text[body_start : end if end != -1 else len(text)]
            seen += parse_invokes(body, found, ctx, syntax=syntax)
            if end == -1:
                break
            pos = end + len(closing)
    return found.result() if seen else None
