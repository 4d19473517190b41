"""Pythonic tool calls: `[get_weather(city="Paris"), f(x=1)]` and Gemma's ```tool_code blocks.

Llama 3.2 and Llama 4 (pythonic template), BFCL's prompting style and many fine-tunes
write calls as Python. The text is parsed with `ast` and only literal arguments are
accepted (see `_pyliteral`); nothing is ever evaluated. A plain call list that is the
whole output (`[f(a=1, b='x')]`: keyword arguments, simple literals, one line) is read
by a small tokenizer instead (`read_simple_block`), several times faster than `ast`
and with the same result; it hands anything else to `ast`.

Where a call list may appear:

- the whole output (optionally inside `<|python_start|>...<|python_end|>`): a list of
  calls, one call, or one call per line. Positional or non-literal arguments there are
  a `parse_error`, as is broken syntax after `[name(`.
- a line of prose that starts with `[name(`: the bracketed list is read; one that does
  not parse, or passes positional arguments to a name that is not an offered tool, is
  prose (`[Note(s)]`), not a call.

With `tools` known, calls to names that are not tools are not calls at all (the block
is ignored) unless at least one call in it names a tool.
"""

from __future__ import annotations

import keyword
import re

from toolgrade._json import JsonObject, JsonValue
from toolgrade._trusted import construct_trusted
from toolgrade._vocab import ToolCall
from toolgrade.extract._build import Finder, Found, resolve_name
from toolgrade.extract._common import MAX_DEPTH, MAX_OUTPUT_CHARS
from toolgrade.extract._pyliteral import (
    MAX_ELEMENTS,
    CallBlock,
    matching_bracket,
    read_call_block,
)
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat

__all__ = [
    "FORMATS",
    "add_call_block",
    "parse_pythonic",
    "parse_tool_code",
    "read_simple_block",
]

# A pythonic call list inside prose is at most this long, and all candidates together
# scan at most _SCAN_BUDGET characters: hostile input stays cheap (the whole-output
# case has no such limit).
_MAX_BLOCK = 64_000
_SCAN_BUDGET = 128_000
_MAX_CANDIDATES = 16
_LINE_START_LIST = re.compile(r"^[ \t]*\[[ \t]*[A-Za-z_][\w.]*\(", re.MULTILINE)
_WHOLE_START = re.compile(r"\[?\s*[A-Za-z_][\w.]*\(")
# A call list that starts like one: `[name(` then a keyword argument or `)`.
_TRUNCATED_START = re.compile(r"\[\s*([A-Za-z_][\w.]*)\(\s*(?:[A-Za-z_]\w*\s*=|\))")
_WRAPPERS = ("<|python_start|>", "<|python_end|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>")
_TOOL_CODE_FENCES = ("```tool_code", "```tool_call")


def add_call_block(found: Found, text: str, ctx: ExtractContext, *, where: str) -> None:
    """Read a call block that a marker says is a call list; any problem is a parse_error."""
    block = read_call_block(text)
    if block.syntax_error:
        found.error(f"{where}: {block.syntax_error}")
        return
    if not block.shaped:
        found.error(f"{where}: not a list of calls")
        return
    _record(found, block, ctx, where=where)


def _record(found: Found, block: CallBlock, ctx: ExtractContext, *, where: str) -> None:
    for name, arguments in block.calls:
        found.call(name, arguments, ctx)
    for problem in block.problems:
        found.error(f"{where}: {problem}")


def _names_known(block: CallBlock, ctx: ExtractContext) -> bool:
    """True when tools are unknown or at least one call names an offered tool."""
    if ctx.tools is None:
        return True
    tools = ctx.tools
    return any(name in tools or name.rsplit(".", 1)[-1] in tools for name, _ in block.calls)


def _unwrap(text: str) -> str:
    stripped = text.strip()
    if "<|" not in stripped:
        return stripped  # every wrapper starts with `<|`
    for token in _WRAPPERS:
        if token in stripped:
            stripped = stripped.replace(token, " ")
    return stripped.strip()


def parse_pythonic(text: str, ctx: ExtractContext) -> Extraction | None:
    """Find pythonic calls in the whole output or in lines that start with `[name(`."""
    if len(text) > MAX_OUTPUT_CHARS or "(" not in text:
        return None
    whole = _unwrap(text)
    looks_whole = _WHOLE_START.match(whole) is not None and whole.endswith((")", "]"))
    block = read_simple_block(whole) if looks_whole else None
    if block is not None and _names_known(block, ctx):
        # A plain call list: what `_read_whole` would record, built directly.
        calls: list[ToolCall] = []
        for name, arguments in block.calls:
            call: dict[str, object] = {"name": resolve_name(name, ctx), "arguments": arguments}
            calls.append(construct_trusted(ToolCall, call))
        values: dict[str, object] = {"calls": tuple(calls), "format": "pythonic", "errors": ()}
        return construct_trusted(Extraction, values)
    found = Found("pythonic")
    if looks_whole and _read_whole(found, whole, ctx, block or read_call_block(whole)):
        return found.result()
    if not looks_whole and _truncated(whole, ctx):
        found.error("pythonic call list: the list is not closed (output truncated?)")
        return found.result()
    budget = _SCAN_BUDGET
    for count, match in enumerate(_LINE_START_LIST.finditer(text)):
        if count >= _MAX_CANDIDATES or budget <= 0:
            break
        start = text.index("[", match.start())
        limit = min(_MAX_BLOCK, budget, len(text) - start)
        end = matching_bracket(text, start, limit=limit)
        budget -= limit if end == -1 else end - start
        if end == -1:
            continue
        block = read_call_block(text[start : end + 1])
        if block.shaped and _names_known(block, ctx) and block.calls:
            _record(found, block, ctx, where="pythonic call")
    return found.result()


def _truncated(whole: str, ctx: ExtractContext) -> bool:
    """True when the whole output opens a call list (`[name(key=`) and never closes it.

    The calls before the cut are not kept: the list is one expression, and an output cut
    off inside it is reported as malformed, as a list with broken syntax is. Only an
    output up to `_MAX_BLOCK` characters is checked (bracket matching is a Python loop).
    """
    start = _TRUNCATED_START.match(whole)
    if start is None or len(whole) > _MAX_BLOCK:
        return False
    name = start.group(1)
    if ctx.tools is not None and name not in ctx.tools and name.rsplit(".", 1)[-1] not in ctx.tools:
        return False
    return matching_bracket(whole, 0, limit=len(whole)) == -1


def _read_whole(found: Found, whole: str, ctx: ExtractContext, block: CallBlock) -> bool:
    """Read the whole output (`block`) as calls; False when it is not meant as calls."""
    bracketed = whole.startswith("[")
    if block.syntax_error:
        # `[name(` opening the whole output is a call list gone wrong; a bare `f(x` is prose.
        if bracketed:
            found.error(f"pythonic call list: {block.syntax_error}")
            return True
        return False
    if not block.shaped or not _names_known(block, ctx):
        return False
    if not bracketed and not block.calls and not block.keyword_calls:
        return False  # `f(x)` alone reads as prose or maths, not as a call
    _record(found, block, ctx, where="pythonic call")
    return True


# The tokens of plain call lists: punctuation, names, strings without escapes or line
# breaks, decimal numbers short enough to stay finite (int() and float() read them as
# Python does); `.` makes any other character a token of its own, which the reader declines.
_TOKEN = re.compile(
    r"[ \t]*("
    r"[\[\](){}=,:.+-]"
    r"|[A-Za-z_][A-Za-z0-9_]*"
    r"|'[^'\\\n\r]*'"
    r'|"[^"\\\n\r]*"'
    r"|(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?(?:[eE][-+]?[0-9]{1,2})?"
    r"|.)",
    re.DOTALL,
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_DIGITS = frozenset("0123456789")
_QUOTES = frozenset("'\"")
_CONSTANTS: dict[str, JsonValue] = {
    "True": True,
    "False": False,
    "None": None,
    "true": True,
    "false": False,
    "null": None,
}
_KEYWORDS = frozenset(keyword.kwlist)


class _Decline(Exception):
    """The text is not a plain call list: the `ast` reader decides."""


def read_simple_block(text: str) -> CallBlock | None:
    """Read a plain call list (`[f(a=1, b='x')]` or `f(a=1)`) without `ast`, or decline.

    Plain means: ASCII names, keyword arguments, and literal values that are strings
    without escapes, short decimal numbers (optionally signed), the constants, lists and
    dicts with string keys, on one line. Anything else (and a repeated argument, a
    Python keyword as a name, nesting deeper than `MAX_DEPTH`, text past
    `MAX_ELEMENTS` characters) returns None, and `read_call_block` reads the text: where
    this reader answers, `read_call_block` gives the same `CallBlock`, several times slower.
    """
    text = text.strip()
    if len(text) > MAX_ELEMENTS or "\0" in text:
        return None
    if not text.isascii() and _SURROGATE.search(text) is not None:
        return None
    tokens = _TOKEN.findall(text)
    tokens.append("")
    calls: list[tuple[str, JsonObject]] = []
    try:
        if tokens[0] == "[":
            i = 1
            while tokens[i] != "]":
                i = _simple_call(tokens, i, calls)
                if tokens[i] == ",":
                    i += 1
                elif tokens[i] != "]":
                    return None
            if i == 1:
                return None  # `[]` is no call list
            i += 1
        else:
            i = _simple_call(tokens, 0, calls)
    except (_Decline, IndexError):
        return None
    if i != len(tokens) - 1:
        return None
    # Loops rather than generators, here and below: on this path they cost more than the work.
    keyword_calls = 0
    for _, arguments in calls:
        keyword_calls += bool(arguments)
    return CallBlock(calls, [], "", True, keyword_calls)


def _simple_name(name: str) -> str:
    if name[:1] not in _NAME_START or name in _KEYWORDS:
        raise _Decline
    return name


def _simple_call(tokens: list[str], i: int, calls: list[tuple[str, JsonObject]]) -> int:
    """Read the call at token `i` into `calls`; return the index after its `)`."""
    name = _simple_name(tokens[i])
    i += 1
    while tokens[i] == ".":
        name = f"{name}.{_simple_name(tokens[i + 1])}"
        i += 2
    if tokens[i] != "(":
        raise _Decline
    i += 1
    arguments: JsonObject = {}
    while tokens[i] != ")":
        key = tokens[i]
        if key[:1] not in _NAME_START or key in _KEYWORDS or tokens[i + 1] != "=":
            raise _Decline
        if key in arguments:
            raise _Decline
        token = tokens[i + 2]
        if token[:1] in _QUOTES and len(token) > 1:  # the commonest values, inline
            arguments[key] = token[1:-1]
            i += 3
        elif token[:1] in _DIGITS:
            arguments[key] = int(token) if token.isdigit() else float(token)
            i += 3
        else:
            arguments[key], i = _simple_value(tokens, i + 2, 3)
        if tokens[i] == ",":
            i += 1
        elif tokens[i] != ")":
            raise _Decline
    calls.append((name, arguments))
    return i + 1


def _simple_value(tokens: list[str], i: int, depth: int) -> tuple[JsonValue, int]:
    token = tokens[i]
    first = token[:1]
    if first in _DIGITS:
        return (int(token) if token.isdigit() else float(token)), i + 1
    if first in _QUOTES and len(token) > 1:
        return token[1:-1], i + 1
    if token in _CONSTANTS:
        return _CONSTANTS[token], i + 1
    if token in ("-", "+") and tokens[i + 1][:1] in _DIGITS:
        number, i = _simple_value(tokens, i + 1, depth)
        return (-number if token == "-" else number), i  # type: ignore[operator]
    if depth >= MAX_DEPTH or token not in ("[", "{"):
        raise _Decline
    closing = "]" if token == "[" else "}"
    items: list[JsonValue] = []
    result: JsonObject = {}
    i += 1
    while tokens[i] != closing:
        if token == "[":
            value, i = _simple_value(tokens, i, depth + 1)
            items.append(value)
        else:
            key = tokens[i]
            if key[:1] not in _QUOTES or len(key) < 2 or tokens[i + 1] != ":":
                raise _Decline
            result[key[1:-1]], i = _simple_value(tokens, i + 2, depth + 1)
        if tokens[i] == ",":
            i += 1
        elif tokens[i] != closing:
            raise _Decline
    return (items if token == "[" else result), i + 1


def parse_tool_code(text: str, ctx: ExtractContext) -> Extraction | None:
    """Read Gemma's ```tool_code fenced blocks (calls, possibly wrapped in a print call)."""
    found = Found("gemma_tool_code")
    finder = Finder(text)
    pos = 0
    while not found.full:
        starts = [(i, f) for f in _TOOL_CODE_FENCES if (i := finder.find(f, pos)) != -1]
        if not starts:
            break
        start, fence = min(starts)
        body_start = start + len(fence)
        end = finder.find("```", body_start)
        if end == -1:
            found.error("tool_code block is not closed with ```")
            break
        add_call_block(found, text[body_start:end], ctx, where="tool_code block")
        pos = end + 3
    return found.result()


FORMATS: list[TextFormat] = [
    TextFormat(
        name="gemma_tool_code",
        stage="fenced",
        markers=_TOOL_CODE_FENCES,
        parse=parse_tool_code,
        description="```tool_code fenced Python calls (Gemma 2/3 prompting)",
    ),
    TextFormat(
        name="pythonic",
        stage="pythonic",
        markers=(),
        parse=parse_pythonic,
        description="[f(a=1), g(b='x')] Python call lists (Llama 3.2/4, BFCL prompting)",
    ),
]
