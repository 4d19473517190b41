r"""JSON Schema's regular expressions (ECMA-262) on RE2: linear time, whatever the text.

A tool schema's `pattern` and `patternProperties` are ECMA-262 regular expressions that
run on model output. Python's `re` backtracks: `^([a-zA-Z0-9]+\s?)*$` against a sentence
that ends in `!` takes minutes, in one C call that no timeout or signal interrupts. Here
each schema pattern is translated to RE2 syntax (`ecma_to_re2`) and compiled by RE2
(`schema_regex`), whose matching time is linear in the text.

The translation keeps ECMA-262's meaning where RE2's differs: `\s` and `\S` are
ECMA's whitespace (the no-break space and the other Unicode spaces, `\v`, U+FEFF), `.`
matches no line terminator (`\n`, `\r`, U+2028, U+2029), and `\uHHHH` (a surrogate pair
joined), `\u{...}`, `\cX` and `\0` become RE2 escapes. `\d`, `\w` and `\b` are ASCII in
both. A pattern RE2 cannot run (lookaround, backreferences) raises `ValueError`: the
schema is refused, never matched by a backtracking engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from toolgrade._core.json_data import clean_text
from toolgrade.match._regex import (
    FALLBACK_MAX_PATTERN,
    FALLBACK_MAX_TEXT,
    re2_error,
    re2_module,
    re2_options,
)

__all__ = ["SchemaRegex", "ecma_to_re2", "schema_regex", "schema_search"]

_WHITESPACE = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)
r"""ECMA-262's `\s`: WhiteSpace and LineTerminator, as code point ranges."""
_SURROGATES = (0xD800, 0xDFFF)
_MAX_CODE_POINT = 0x10FFFF


def _ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\x{{{lo:X}}}" + (f"-\\x{{{hi:X}}}" if hi > lo else "") for lo, hi in ranges)


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    start = 0
    for lo, hi in sorted((*ranges, _SURROGATES)):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX_CODE_POINT:
        out.append((start, _MAX_CODE_POINT))
    return tuple(out)


_SPACE_ITEMS = _ranges(_WHITESPACE)
_NON_SPACE_ITEMS = _ranges(_complement(_WHITESPACE))
_DOT = r"[^\n\r\x{2028}\x{2029}]"
_HEX = frozenset("0123456789abcdefABCDEF")
_HINT = "; schema patterns run on RE2: no lookaround, no backreferences"


def ecma_to_re2(pattern: str) -> str:
    r"""Translate an ECMA-262 regular expression into RE2 syntax with the same meaning.

    Constructs RE2 lacks (lookaround, backreferences) are left as they are: RE2 then
    refuses the pattern.

    Examples:
        >>> ecma_to_re2(r"^\u00e9\d+$")
        '^\\x{00E9}\\d+$'
        >>> ecma_to_re2(r"a.b") == r"a[^\n\r\x{2028}\x{2029}]b"
        True
    """
    out: list[str] = []
    in_class = False
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            text, i = _escape(pattern, i + 1, in_class=in_class)
            out.append(text)
            continue
        if in_class:
            if char == "]":
                in_class = False
        elif char == "[":
            negated = pattern.startswith("^", i + 1)
            start = i + 2 if negated else i + 1
            if pattern.startswith("]", start):  # ECMA's `[]` matches nothing, `[^]` anything
                out.append(r"[\x00-\x{10FFFF}]" if negated else r"[^\x00-\x{10FFFF}]")
                i = start + 1
                continue
            in_class = True
            out.append(pattern[i:start])
            i = start
            continue
        elif char == ".":
            char = _DOT
        out.append(char)
        i += 1
    return "".join(out)


def _escape(pattern: str, i: int, *, in_class: bool) -> tuple[str, int]:
    """The RE2 text for the escape whose letter is at `i`, and the index after it."""
    letter = pattern[i]
    if letter in "sS":
        items = _SPACE_ITEMS if letter == "s" else _NON_SPACE_ITEMS
        return (items if in_class else f"[{items}]"), i + 1
    if letter == "u":
        return _unicode_escape(pattern, i)
    control = pattern[i + 1 : i + 2]
    if letter == "c" and control.isascii() and control.isalpha():
        return f"\\x{{{ord(control) % 32:02X}}}", i + 2
    if letter == "0" and not pattern[i + 1 : i + 2].isdigit():
        return "\\x00", i + 1
    if letter == "/":
        return "/", i + 1
    return "\\" + letter, i + 1


def _hex_at(pattern: str, i: int, width: int) -> int | None:
    digits = pattern[i : i + width]
    if len(digits) == width and all(c in _HEX for c in digits):
        return int(digits, 16)
    return None


def _unicode_escape(pattern: str, i: int) -> tuple[str, int]:
    r"""`\uHHHH` (a surrogate pair joined, a lone surrogate as U+FFFD) or `\u{X...}`."""
    if pattern.startswith("{", i + 1):
        end = pattern.find("}", i + 2)
        digits = pattern[i + 2 : end] if end > 0 else ""
        if digits and len(digits) <= 6 and all(c in _HEX for c in digits):
            return f"\\x{{{digits}}}", end + 1
        return "\\u", i + 1  # RE2 refuses it, as ECMA does
    code = _hex_at(pattern, i + 1, 4)
    if code is None:
        return "\\u", i + 1
    end = i + 5
    if 0xD800 <= code <= 0xDBFF and pattern.startswith("\\u", end):
        low = _hex_at(pattern, end + 2, 4)
        if low is not None and 0xDC00 <= low <= 0xDFFF:
            joined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            return f"\\x{{{joined:X}}}", end + 6
    if _SURROGATES[0] <= code <= _SURROGATES[1]:
        code = 0xFFFD  # a lone half of a pair, as `clean_text` makes it in the text
    return f"\\x{{{code:04X}}}", end


class SchemaRegex(Protocol):
    """A compiled schema pattern: `search`, as JSON Schema's `pattern` applies it."""

    def search(self, text: str, /) -> object | None:
        """A match anywhere in the text, or None."""


@dataclass(frozen=True, slots=True)
class _BoundedSearch:
    """Python's `re` (only without RE2), held to short texts as `$regex` is."""

    pattern: re.Pattern[str]

    def search(self, text: str, /) -> object | None:
        if len(text) > FALLBACK_MAX_TEXT:
            return None
        return self.pattern.search(text)


@lru_cache(maxsize=1024)
def schema_regex(pattern: str) -> SchemaRegex:
    r"""Compile a JSON Schema pattern (ECMA-262) for RE2, once per pattern.

    Raises:
        ValueError: RE2 cannot run the pattern (lookaround, a backreference, a syntax
            error); the message says why.

    Examples:
        >>> schema_regex(r"^([a-zA-Z0-9]+\s?)*$").search("a" * 5_000 + "!") is None
        True
    """
    translated = ecma_to_re2(clean_text(pattern))
    module = re2_module()
    if module is None:  # pragma: no cover - exercised by monkeypatching `re2` away
        return _fallback(translated)
    try:
        return module.compile(translated, re2_options())  # type: ignore[no-any-return]
    except module.error as exc:
        raise ValueError(re2_error(exc, _HINT)) from None


def schema_search(pattern: str, text: str) -> bool:
    """Whether the schema pattern matches somewhere in `text` (lone surrogates as U+FFFD).

    Raises:
        ValueError: RE2 cannot run the pattern.
    """
    return schema_regex(pattern).search(clean_text(text)) is not None


def _fallback(translated: str) -> SchemaRegex:  # pragma: no cover - without google-re2
    if len(translated) > FALLBACK_MAX_PATTERN:
        raise ValueError(f"longer than {FALLBACK_MAX_PATTERN} characters")
    if re.search(r"\(\?(?:=|!|<=|<!|P=|>)|(?<!\\)(?:\\\\)*\\[1-9]", translated):
        raise ValueError("not RE2 syntax" + _HINT)
    python = re.sub(r"\\x\{([0-9A-Fa-f]+)\}", lambda m: f"\\U{int(m.group(1), 16):08X}", translated)
    try:
        return _BoundedSearch(re.compile(python))
    except re.error as exc:
        raise ValueError(str(exc)) from None
