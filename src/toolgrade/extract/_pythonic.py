"""Pythonic tool calls: `[get_weather(city="Paris"), f(x=1)]` and Gemma's ```tool_code blocks.

Llama 3.2 and Llama 4 (pythonic template), BFCL's prompting style and many fine-tunes
write calls as Python. The text is parsed with `ast` and only literal arguments are
accepted (see `_pyliteral`); nothing is ever evaluated. A plain call list that is the
whole output (`[f(a=1, b='x')]`: keyword arguments, simple literals, one line) is read
by the plain readers instead (`read_plain`, see `_plain`), several times faster than
`ast` and with the same result; they hand anything else to `ast`.

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

import re

from toolgrade.extract._build import Finder, Found, resolve_name
from toolgrade.extract._common import MAX_OUTPUT_CHARS
from toolgrade.extract._plain import flat_calls, plain_calls, read_simple_block
from toolgrade.extract._pyliteral import CallBlock, matching_bracket, read_call_block
from toolgrade.extract._types import (
    ExtractContext,
    Extraction,
    TextFormat,
    new_call,
    new_extraction,
)

__all__ = [
    "FORMATS",
    "add_call_block",
    "parse_pythonic",
    "parse_tool_code",
    "read_plain",
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
    looks_whole = _looks_whole(whole)
    if looks_whole:
        plain = read_plain(whole, ctx)
        if plain is not None:
            return plain
    found = Found("pythonic")
    if looks_whole and _read_whole(found, whole, ctx, read_call_block(whole)):
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


def _looks_whole(whole: str) -> bool:
    """Whether the whole output (unwrapped) may be a call list: `[name(` ... `)` or `]`."""
    return _WHOLE_START.match(whole) is not None and whole.endswith((")", "]"))


def read_plain(whole: str, ctx: ExtractContext) -> Extraction | None:
    """The calls when the whole output (unwrapped) is a plain call list, else None.

    What `_read_whole` would record for it, read by the plain reader and built directly;
    None when the output is not plain (or names no offered tool): the `ast` reader decides.
    """
    found = flat_calls(whole)  # of the shape `_looks_whole` wants
    if found is None and _looks_whole(whole):
        found = plain_calls(whole)
    if found is None:
        return None
    tools = ctx.tools
    if tools is not None:
        if not any(name in tools or name.rsplit(".", 1)[-1] in tools for name, _ in found):
            return None
        found = [(resolve_name(name, ctx), arguments) for name, arguments in found]
    calls = tuple([new_call({"name": name, "arguments": args}) for name, args in found])
    return new_extraction({"calls": calls, "format": "pythonic", "errors": ()})


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
