"""Plain pythonic call lists (`[f(a=1, b='x')]`) read without `ast`, or declined.

Most pythonic outputs (BFCL's prompting style, Llama's pythonic template) are a plain
call list: ASCII names, keyword arguments, and literal values on one line. Two readers
take them, each several times faster than `ast.parse`, and each declines (None) anything
it does not fully understand, for `read_call_block` (the `ast` reader) to decide:

- `_flat_calls`: calls whose arguments are scalars (strings on one line, escaping only
  a backslash, a quote, a newline, a tab or a carriage return; short decimal numbers;
  the constants) or flat (a list of scalars, a dict of string keys and scalars). One
  regex checks the whole text's shape, a second one lists its calls and arguments
  (C-level passes, no token loop).
- `_token_calls`: also lists and dicts nested deeper, up to `MAX_DEPTH`; a
  tokenizer regex and a loop over the tokens.

Where either answers, `read_call_block` gives the same calls (tests/extract/
test_pythonic_fast.py holds both to it, on data and on generated text).
"""

from __future__ import annotations

import keyword
import re

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.extract._common import MAX_DEPTH
from toolgrade.extract._pyliteral import MAX_ELEMENTS, CallBlock

__all__ = ["flat_calls", "plain_calls", "read_simple_block"]

Calls = list[tuple[str, JsonObject]]
"""Calls as read: name and keyword arguments, in order."""

# Possessive quantifiers (`*+`): a name, a string or a number is matched once, never
# re-tried shorter, so that a text that is not plain fails in linear time.
_NAME = r"[A-Za-z_][A-Za-z0-9_]*+"
# Decimal numbers short enough to stay finite; int() and float() read them as Python does.
_NUMBER = r"(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?+(?:[eE][-+]?[0-9]{1,2})?+"
_CONSTANT = r"(?:True|False|None|true|false|null)"
# Strings on one line, whose escapes are those of a path or a quote (`\\`, `\'`, `\"`,
# `\n`, `\t`, `\r`): any other backslash (`\x41`, `\N{...}`, `\d`) is `ast`'s to read.
# (Runs of plain characters between escapes: the regex engine reads a run in one step.)
_STRING = (
    r"""'[^'\\\n\r]*+(?:\\[\\'"ntr][^'\\\n\r]*+)*+'"""
    r"""|"[^"\\\n\r]*+(?:\\[\\'"ntr][^"\\\n\r]*+)*+\""""
)
_SCALAR = rf"{_STRING}|[-+]?[ \t]*+{_NUMBER}|{_CONSTANT}"
# A list of scalars, or a dict of string keys and scalars (one level, no deeper).
_FLAT = (
    rf"\[[ \t]*+(?:(?:{_SCALAR})[ \t]*+(?:,[ \t]*+|(?=\])))*+\]"
    rf"|\{{[ \t]*+(?:(?:{_STRING})[ \t]*+:[ \t]*+(?:{_SCALAR})[ \t]*+(?:,[ \t]*+|(?=\}})))*+\}}"
)
_ARGUMENT = rf"{_NAME}[ \t]*+=[ \t]*+(?:{_SCALAR}|{_FLAT})[ \t]*+"
# No space before `(`: a text of this shape then starts the way `parse_pythonic` wants
# a whole-output call list to start (`_WHOLE_START`), and `read_plain` need not check.
_CALL = rf"{_NAME}(?:\.{_NAME})*+\([ \t]*+(?:{_ARGUMENT}(?:,[ \t]*+|(?=\))))*+\)[ \t]*+"
_FLAT_SHAPE = re.compile(rf"\[[ \t]*+{_CALL}(?:,[ \t]*+{_CALL})*+,?+[ \t]*+\]|{_CALL}")
"""The whole text: a list of calls whose arguments are scalars or flat, or one such call."""
# In a text of that shape, each match is a call's name and `(` (group 2 set), or an
# argument: name, then its string (with quotes), sign and number, constant, or list or
# dict (as text, read by `_LIST_ITEM` or `_DICT_ITEM`). Between matches lie only
# separators, which cannot start one.
_PIECE = re.compile(
    rf"({_NAME}(?:\.{_NAME})*+)[ \t]*+(?:(\()|=[ \t]*+"
    rf"(?:({_STRING})|([-+]?)[ \t]*+({_NUMBER})|({_CONSTANT})|({_FLAT})))"
)
# The items of a flat list, and those of a flat dict (its key first): scalars as in
# `_PIECE`, found in order as there (the text is of `_FLAT`'s shape).
_VALUE = rf"(?:({_STRING})|([-+]?)[ \t]*+({_NUMBER})|({_CONSTANT}))"
_LIST_ITEM = re.compile(_VALUE)
_DICT_ITEM = re.compile(rf"({_STRING})[ \t]*+:[ \t]*+{_VALUE}")

# The tokens of plain call lists: punctuation, names, strings as above, decimal numbers
# as above; `.` makes any other character a token of its own, which the reader declines.
_TOKEN = re.compile(
    r"[ \t]*("
    r"[\[\](){}=,:.+-]"
    r"|[A-Za-z_][A-Za-z0-9_]*"
    rf"|{_STRING}"
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


_ESCAPE = re.compile(r"\\(.)")
_ESCAPED = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r"}


def _unquote(token: str) -> str:
    """A string token's value: without its quotes, its escapes (see `_STRING`) read."""
    body = token[1:-1]
    if "\\" not in body:
        return body
    return _ESCAPE.sub(lambda m: _ESCAPED[m.group(1)], body)


class _Decline(Exception):
    """The text is not a plain call list: the `ast` reader decides."""


def read_simple_block(text: str) -> CallBlock | None:
    """Read a plain call list (`[f(a=1, b='x')]` or `f(a=1)`) without `ast`, or decline.

    Plain means: ASCII names, keyword arguments, and literal values that are strings
    (escaping only a backslash, a quote, a newline, a tab or a carriage return), short
    decimal numbers (optionally signed), the constants, lists and
    dicts with string keys, on one line. Anything else (and a repeated argument, a
    Python keyword as a name, nesting deeper than `MAX_DEPTH`, text past
    `MAX_ELEMENTS` characters) returns None, and `read_call_block` reads the text: where
    this reader answers, `read_call_block` gives the same `CallBlock`, several times slower.
    """
    calls = plain_calls(text.strip())
    if calls is None:
        return None
    # Loops rather than generators, here and below: on this path they cost more than the work.
    keyword_calls = 0
    for _, arguments in calls:
        keyword_calls += bool(arguments)
    return CallBlock(calls, [], "", True, keyword_calls)


def plain_calls(text: str) -> Calls | None:
    """The calls of a plain call list (`text` already stripped), or None to decline.

    What `read_simple_block` reads, as a list of (name, arguments).
    """
    if not _readable(text):
        return None
    if _FLAT_SHAPE.fullmatch(text) is not None:
        return _flat_calls(text)
    return _token_calls(text)


def flat_calls(text: str) -> Calls | None:
    """`plain_calls` of a call list whose arguments are scalars or flat, else None.

    Flat: a list of scalars, or a dict of string keys and scalars. None does not say
    the text is not plain (`plain_calls` may still read it). A text read here starts
    with `[name(` or `name(`, no space before the `(`.
    """
    if not _readable(text) or _FLAT_SHAPE.fullmatch(text) is None:
        return None
    return _flat_calls(text)


def _readable(text: str) -> bool:
    """Within bounds, and free of what `ast` refuses (a null byte, a lone surrogate)."""
    if len(text) > MAX_ELEMENTS or "\0" in text:
        return False
    return text.isascii() or _SURROGATE.search(text) is None


def _flat_calls(text: str) -> Calls | None:
    """The calls of a text `_FLAT_SHAPE` matches (None: a keyword or a repeated name)."""
    calls: Calls = []
    arguments: JsonObject = {}
    for name, call, string, sign, number, constant, flat in _PIECE.findall(text):
        if call:
            if name in _KEYWORDS or ("." in name and not _KEYWORDS.isdisjoint(name.split("."))):
                return None
            arguments = {}
            calls.append((name, arguments))
        elif name in arguments or name in _KEYWORDS:
            return None
        elif string:
            arguments[name] = string[1:-1] if "\\" not in string else _unquote(string)
        elif number:
            value = int(number) if number.isdigit() else float(number)
            arguments[name] = -value if sign == "-" else value
        elif constant:
            arguments[name] = _CONSTANTS[constant]
        else:
            arguments[name] = _flat_value(flat)
    return calls


def _flat_value(text: str) -> JsonValue:
    """A flat list or dict (`_FLAT`), read item by item (inline: the commonest values)."""
    if text[0] == "[":
        items: list[JsonValue] = []
        for string, sign, number, constant in _LIST_ITEM.findall(text, 1, len(text) - 1):
            if string:
                items.append(string[1:-1] if "\\" not in string else _unquote(string))
            else:
                items.append(_scalar(sign, number, constant))
        return items
    entries: JsonObject = {}
    for key, string, sign, number, constant in _DICT_ITEM.findall(text, 1, len(text) - 1):
        name = key[1:-1] if "\\" not in key else _unquote(key)
        if string:
            entries[name] = string[1:-1] if "\\" not in string else _unquote(string)
        else:
            entries[name] = _scalar(sign, number, constant)
    return entries


def _scalar(sign: str, number: str, constant: str) -> JsonValue:
    """A number (with its sign) or a constant of `_VALUE`'s groups."""
    if number:
        read = int(number) if number.isdigit() else float(number)
        return -read if sign == "-" else read
    return _CONSTANTS[constant]


def _token_calls(text: str) -> Calls | None:
    tokens = _TOKEN.findall(text)
    tokens.append("")
    calls: Calls = []
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
    return calls


def _simple_name(name: str) -> str:
    if name[:1] not in _NAME_START or name in _KEYWORDS:
        raise _Decline
    return name


def _simple_call(tokens: list[str], i: int, calls: Calls) -> int:
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
            arguments[key] = _unquote(token)
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
        return _unquote(token), i + 1
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
            result[_unquote(key)], i = _simple_value(tokens, i + 2, depth + 1)
        if tokens[i] == ",":
            i += 1
        elif tokens[i] != closing:
            raise _Decline
    return (items if token == "[" else result), i + 1
