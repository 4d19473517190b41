"""Google's compact call syntax: FunctionGemma and Gemma 4.

Both write `call:NAME{key:value,...}` between special tokens. Keys are bare; strings are
wrapped in an escape token (`<escape>` for FunctionGemma, `<|"|>` for Gemma 4); numbers,
booleans, nested `{...}` objects and `[...]` arrays are written as they are::

    <start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>
    <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>
"""

from __future__ import annotations

import re

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.extract._build import Finder, Found, is_tool_name
from toolgrade.extract._common import MAX_DEPTH, NumberTooLarge, read_float, read_int
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat

__all__ = ["FORMATS", "parse_functiongemma", "parse_gemma4"]

_INTEGER = re.compile(r"-?\d+")
# Unambiguous (each part starts with its own character), so it cannot backtrack.
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_BARE_WORDS: dict[str, JsonValue] = {"true": True, "false": False, "null": None}


class _Malformed(ValueError):
    """The argument text does not follow the syntax."""


class _Reader:
    """Recursive-descent reader of `key:value,...` with a string escape token."""

    def __init__(self, text: str, quote: str) -> None:
        self.text = text
        self.quote = quote
        self.pos = 0

    def _skip(self, chars: str = " \t\r\n") -> None:
        while self.pos < len(self.text) and self.text[self.pos] in chars:
            self.pos += 1

    def members(self, closer: str, depth: int) -> JsonObject:
        """Read `key:value` pairs up to `closer` (or the end when `closer` is empty)."""
        result: JsonObject = {}
        while True:
            self._skip(" \t\r\n,")
            if self.pos >= len(self.text):
                if closer:
                    raise _Malformed(f"missing {closer!r}")
                return result
            if closer and self.text.startswith(closer, self.pos):
                self.pos += len(closer)
                return result
            colon = self.text.find(":", self.pos)
            if colon == -1:
                raise _Malformed(f"expected key:value at char {self.pos}")
            key = self.text[self.pos : colon].strip().strip('"')
            if self.quote in key or not key:
                raise _Malformed(f"bad key at char {self.pos}")
            self.pos = colon + 1
            result[key] = self.value(depth)

    def value(self, depth: int) -> JsonValue:
        """Read one value: escaped string, object, array, or a bare word or number."""
        if depth > MAX_DEPTH:
            raise _Malformed(f"nested deeper than {MAX_DEPTH} levels")
        self._skip()
        text = self.text
        if text.startswith(self.quote, self.pos):
            start = self.pos + len(self.quote)
            end = text.find(self.quote, start)
            if end == -1:
                raise _Malformed("string not closed")
            self.pos = end + len(self.quote)
            return text[start:end]
        if text.startswith("{", self.pos):
            self.pos += 1
            return self.members("}", depth + 1)
        if text.startswith("[", self.pos):
            self.pos += 1
            return self.items(depth + 1)
        start = self.pos
        while self.pos < len(text) and text[self.pos] not in ",}]":
            self.pos += 1
        return _bare(text[start : self.pos].strip())

    def items(self, depth: int) -> list[JsonValue]:
        """Read array items up to `]`.

        Every item must be followed by `,` or `]`: a `}` there (`[1}`) is malformed, and
        each turn of the loop consumes text, so no input can keep it from ending.
        """
        result: list[JsonValue] = []
        while True:
            self._skip(" \t\r\n,")
            if self.pos >= len(self.text):
                raise _Malformed("missing ']'")
            if self.text[self.pos] == "]":
                self.pos += 1
                return result
            result.append(self.value(depth))
            self._skip()
            if not self.text.startswith((",", "]"), self.pos):
                # A bare value stops before `}` without consuming it: `[}` must end here.
                raise _Malformed(f"expected ',' or ']' at char {self.pos}")


def _bare(word: str) -> JsonValue:
    """A bare word: true/false/null, a number, or (leniently) the word as text.

    A word that is a number but cannot be kept (too many digits, or infinite) is
    malformed, as it is in JSON.
    """
    if word in _BARE_WORDS:
        return _BARE_WORDS[word]
    try:
        if _INTEGER.fullmatch(word):
            return read_int(word)
        if _NUMBER.fullmatch(word):
            return read_float(word)
    except NumberTooLarge as exc:
        raise _Malformed(str(exc)) from None
    return word


def parse_arguments(text: str, quote: str) -> JsonObject | str:
    """Decode the inside of `{...}`; return the problem as a string when malformed."""
    reader = _Reader(text, quote)
    try:
        return reader.members("", 0)
    except (_Malformed, RecursionError) as exc:
        return f"malformed arguments ({exc})"


def _gemma(
    text: str, ctx: ExtractContext, *, fmt: str, tokens: tuple[str, str], quote: str
) -> Extraction | None:
    start_token, end_token = tokens
    finder = Finder(text)
    found = Found(fmt)
    pos = 0
    while (start := finder.find(start_token, pos)) != -1 and not found.full:
        body_start = start + len(start_token)
        end = finder.find(end_token, body_start)
        if end == -1:
            found.error(f"call is not closed with {end_token} (output truncated?)")
            break
        pos = end + len(end_token)
        body = text[body_start:end].strip()
        brace = body.find("{")
        name = body[len("call:") : brace].strip() if brace != -1 else ""
        if not body.startswith("call:") or not body.endswith("}") or not is_tool_name(name):
            found.error(f"expected call:NAME{{...}} inside {start_token}")
            continue
        decoded = parse_arguments(body[brace + 1 : -1], quote)
        if isinstance(decoded, str):
            found.error(f"call of '{name}': {decoded}")
        else:
            found.call(name, decoded, ctx)
    return found.result()


_FG_TOKENS = ("<start_function_call>", "<end_function_call>")
_G4_TOKENS = ("<|tool_call>", "<tool_call|>")


def parse_functiongemma(text: str, ctx: ExtractContext) -> Extraction | None:
    """`<start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>`."""
    return _gemma(text, ctx, fmt="functiongemma", tokens=_FG_TOKENS, quote="<escape>")


def parse_gemma4(text: str, ctx: ExtractContext) -> Extraction | None:
    """`<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>`."""
    return _gemma(text, ctx, fmt="gemma4", tokens=_G4_TOKENS, quote='<|"|>')


FORMATS: list[TextFormat] = [
    TextFormat(
        name="functiongemma",
        stage="marker",
        markers=(_FG_TOKENS[0],),
        parse=parse_functiongemma,
        description="<start_function_call>call:NAME{k:<escape>v<escape>} (FunctionGemma)",
    ),
    TextFormat(
        name="gemma4",
        stage="marker",
        markers=(_G4_TOKENS[0],),
        parse=parse_gemma4,
        description='<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|> (Gemma 4)',
    ),
]
