"""Shortcuts for the two commonest outputs: a plain call list, a message with tool calls.

Plain call lists: text that auto-detection would hand to the pythonic reader.

BFCL's prompting style and Llama's pythonic template answer with nothing but a plain call
list (`[f(a=1, b='x')]`). Auto-detection reaches the pythonic reader last, after every
format whose marker the text holds and the marker-less JSON formats. When the text
holds no marker (but `"`, which only the JSON formats look for), no reasoning tag and
no `<|` wrapper, and the JSON formats evidently read nothing in it, detection would
get to `parse_pythonic` and its plain reader; `plain_shortcut` reads it there directly.
Anything else (a marker, prose, a call list the plain reader declines) returns None,
and `extract_calls` takes the full path. tests/extract/test_plain_shortcut.py holds the
shortcut to the full path.

Messages: an OpenAI-style assistant message holding nothing but `tool_calls` (what
function-calling servers and `import bfcl-results` give) is read by `message_shortcut`
as `parse_structured` reads it; any other shape, and any call that is not a name with
JSON-object arguments, goes the full path.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import cache
from json.scanner import make_scanner
from typing import Any

from toolgrade._core.json_data import JsonObject
from toolgrade._core.vocab import ToolCall
from toolgrade.extract._common import (
    INT_LIMIT,
    MAX_CALLS,
    MAX_OUTPUT_CHARS,
    limit_calls,
    loads_fast,
)
from toolgrade.extract._json_generic import FORMATS as _JSON_GENERIC
from toolgrade.extract._json_generic import reads_no_json
from toolgrade.extract._pyliteral import MAX_ELEMENTS
from toolgrade.extract._pythonic import parse_pythonic, read_plain
from toolgrade.extract._reasoning import REASONING_TAGS
from toolgrade.extract._registry import formats_version, text_formats
from toolgrade.extract._types import ExtractContext, Extraction, new_call, new_extraction

__all__ = ["message_shortcut", "plain_shortcut"]

_XLAM, _JSON = (next(f.parse for f in _JSON_GENERIC if f.name == n) for n in ("xlam", "json"))
_QUOTE = '"'


def plain_shortcut(text: str, ctx: ExtractContext) -> Extraction | None:
    """The extraction auto-detection would give `text`, when it is a plain call list.

    Returns:
        The extraction (format `pythonic`), or None: the text may be anything else, and
        the full path decides.
    """
    if len(text) > MAX_ELEMENTS:
        return None
    whole = text.strip()
    if not whole.endswith((")", "]")):
        return None  # prose, as most outputs that are not a call list are
    blockers = _blockers_of(formats_version())
    if blockers is None or blockers.found(text):
        return None
    if _QUOTE in text and not reads_no_json(text):
        return None
    found = read_plain(whole, ctx)
    if found is None or len(found.calls) <= MAX_CALLS:
        return found
    return limit_calls(found)


class _Blockers:
    """Finds any of some markers in a text, cheaply when the text holds none.

    Most markers hold a character plain call lists seldom hold (`<`, `>`, a backtick,
    `|`, non-ASCII): one scan for those characters rules them all out, and only when
    one occurs is the text searched for the markers. The few markers made of common
    characters only are searched for one by one.
    """

    __slots__ = ("_all", "_ascii", "_common", "_rare")

    def __init__(self, markers: set[str]) -> None:
        by_length = sorted(markers, key=len, reverse=True)
        self._all = re.compile("|".join(map(re.escape, by_length)))
        rare = {next(c for c in m if c not in _COMMON) for m in markers if not set(m) <= _COMMON}
        self._rare = re.compile(f"[{re.escape(''.join(sorted(rare)))}]" if rare else "(?!)")
        # In ASCII text, the ASCII ones, each looked for with `in` (cheaper than a regex).
        self._ascii = tuple(sorted(c for c in rare if c.isascii()))
        self._common = tuple(m for m in by_length if set(m) <= _COMMON)

    def found(self, text: str) -> bool:
        """Whether any marker occurs in `text`."""
        if text.isascii():
            for char in self._ascii:
                if char in text:
                    return self._all.search(text) is not None
        elif self._rare.search(text) is not None:
            return self._all.search(text) is not None
        for marker in self._common:  # noqa: SIM110 (a loop: cheaper than `any`)
            if marker in text:
                return True
        return False


# The characters of plain call lists and ordinary text.
_COMMON = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _,.=()[]{}:;'\"+-/?!"
)


@cache
def _blockers_of(version: int) -> _Blockers | None:
    """What stops the shortcut: any marker of a format tried before pythonic, but `"`.

    For one state of the format registry (`formats_version`). None when the formats
    tried before pythonic are not the built-ins the shortcut knows (a plug-in without
    markers, or one marked by `"`): then there is no shortcut.
    """
    # `<|` starts the wrappers `parse_pythonic` removes and gpt-oss's analysis channel.
    blockers = {"<|"}
    for open_tag, close_tag, _ in REASONING_TAGS:
        blockers.update((open_tag, close_tag))
    for fmt in text_formats():
        if fmt.parse is parse_pythonic:
            return _Blockers(blockers)
        if not fmt.markers and fmt.parse is not _XLAM:
            return None
        for marker in fmt.markers:
            if marker != _QUOTE:
                blockers.add(marker)
            elif fmt.parse is not _JSON:
                return None
    return None


_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls"})
_CALL_KEYS = frozenset({"id", "type", "function"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})


def message_shortcut(output: object) -> Extraction | None:
    """The extraction of an assistant message holding only plain tool calls, or None.

    Plain: `{"role", "content": null or text, "tool_calls": [{"id", "type",
    "function": {"name", "arguments": "<JSON object>"}}]}`, every key and value a string
    but `content` and `tool_calls`; what `extract_calls` gives it (format `openai`).
    """
    if type(output) is not dict or not output.keys() <= _MESSAGE_KEYS:
        return None
    tool_calls = output.get("tool_calls")
    if type(tool_calls) is not list or not tool_calls:
        return None
    # The characters `shape_of` counts (keys and strings), against the same bound:
    # at most this many in the keys, which are counted exactly only near the bound.
    chars = _MESSAGE_KEY_CHARS + len(tool_calls) * _CALL_KEY_CHARS
    role, content = output.get("role"), output.get("content")
    if type(role) is str:
        chars += len(role)
    elif role is not None:
        return None
    if type(content) is str:
        chars += len(content)
    elif content is not None:
        return None
    calls: list[ToolCall] = []
    for item in tool_calls:
        # One plain call: a name and JSON-object arguments; anything else goes the full
        # path (which reads it, or reports it).
        if type(item) is not dict or not item.keys() <= _CALL_KEYS:
            return None
        function = item.get("function")
        if type(function) is not dict or function.keys() != _FUNCTION_KEYS:
            return None
        name, raw = function["name"], function["arguments"]
        call_id, kind = item.get("id", ""), item.get("type", "")
        if type(name) is not str or type(raw) is not str:
            return None
        if type(call_id) is not str or type(kind) is not str:
            return None
        name = name.strip()
        if not name:
            return None
        chars += len(function["name"]) + len(raw) + len(call_id) + len(kind)
        arguments = _json_object(raw) if raw.strip() else {}
        if arguments is None:
            return None
        calls.append(new_call({"name": name, "arguments": arguments}))
    if chars > MAX_OUTPUT_CHARS and _exact_chars(output) > MAX_OUTPUT_CHARS:
        return None
    found = new_extraction({"calls": tuple(calls), "format": "openai", "errors": ()})
    return found if len(calls) <= MAX_CALLS else limit_calls(found)


_MESSAGE_KEY_CHARS = sum(map(len, _MESSAGE_KEYS))
_CALL_KEY_CHARS = sum(map(len, _CALL_KEYS)) + len("namearguments")


def _exact_chars(output: dict[str, Any]) -> int:
    """The characters `shape_of` counts in a plain message (keys and strings)."""
    chars = sum(map(len, output)) + len(output.get("role") or "")
    chars += len(output.get("content") or "")
    for item in output["tool_calls"]:
        function = item["function"]
        chars += sum(map(len, item)) + len("namearguments")
        chars += len(function["name"]) + len(function["arguments"])
        chars += len(item.get("id", "")) + len(item.get("type", ""))
    return chars


def _json_object(raw: str) -> JsonObject | None:
    """What `loads_fast` reads in `raw` when it is a JSON object, else None.

    Python's own JSON scanner first, on the whole text (no surrounding space):
    `loads_fast` is that decoder bounded (no NaN or Infinity, no number out of bounds, no
    deep nesting), so where every value of the object it gives is a string, a boolean,
    null or a number within those bounds, `loads_fast` gives the same object. Anything
    else is decoded again by `loads_fast`.
    """
    try:
        value, end = _SCAN(raw, 0)
    except (StopIteration, ValueError, RecursionError):
        value = end = None
    if type(value) is dict and end == len(raw):
        for item in value.values():
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if (kind is int and -INT_LIMIT < item < INT_LIMIT) or (
                kind is float and math.isfinite(item)
            ):
                continue
            break
        else:
            return value
    try:
        value = loads_fast(raw)
    except ValueError:
        return None
    return value if type(value) is dict else None


# The C scanner: one value at an index, no more (typeshed mistypes its argument).
_SCAN: Callable[[str, int], tuple[object, int]] = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
