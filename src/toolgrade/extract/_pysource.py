r"""Python source cut into code and strings, and rewritten so that parsing it never warns.

Python's parser warns about text it accepts but deprecates: an invalid escape (`"\d"`),
an octal escape over 255 (`"\777"`), a number run into a keyword (`1if`). Under a
warnings filter of "error" (`python -W error`, pytest's `filterwarnings = error`) the
warning is raised as a SyntaxError, so the same model output would read differently
from one process to the next. `warnings.catch_warnings` cannot help: it changes the
filters of the whole process, and extraction runs in worker threads. `quiet_source`
instead writes each such construct as Python reads it (`"\\d"`, `"\u01ff"`, `1 if`)
before the text is parsed: the tree is the one Python builds, without a warning.
"""

from __future__ import annotations

import re

__all__ = ["quiet_source", "segments", "string_end"]

_TRIPLE_QUOTES = ("'" * 3, '"' * 3)
_QUOTE = re.compile("['\"]")
_PREFIX = re.compile(r"(?<![\w])[A-Za-z]{1,2}\Z")
_STRING_PREFIXES = frozenset({"r", "u", "f", "b", "br", "rb", "fr", "rf"})

_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.DOTALL)
_STR_ESCAPES = frozenset("\n\\'\"abfnrtvxNuU")
r"""What may follow a backslash in a str literal (`\x`, `\N`, `\u`, `\U` are checked by
the parser itself: malformed, they are errors under any filter)."""
_BYTES_ESCAPES = frozenset("\n\\'\"abfnrtvx")
"""What may follow a backslash in a bytes literal."""

_NUMBER = r"""
    0[xX](?:_?[0-9a-fA-F])+ | 0[oO](?:_?[0-7])+ | 0[bB](?:_?[01])+
    | (?: (?:[0-9](?:_?[0-9])*)? \. [0-9](?:_?[0-9])* | [0-9](?:_?[0-9])* \.? )
      (?: [eE][+-]?[0-9](?:_?[0-9])* )? [jJ]?
"""
_NUMBER_THEN_KEYWORD = re.compile(
    rf"(?<![\w.])(?:{_NUMBER})(?=and|else|for|if|in|is|not|or)", re.VERBOSE
)
"""A number literal run into a keyword, which Python's tokenizer warns about (and then
reads as if a space stood between them). The keywords are the tokenizer's own list."""


def segments(text: str, *, limit: int | None = None) -> list[tuple[str, str]]:
    """Split text into (code, quoted string) pairs; the last string may be empty.

    With `limit`, stop after that many strings (the rest is returned as one code part).
    """
    pairs: list[tuple[str, str]] = []
    code_start = 0
    while (match := _QUOTE.search(text, code_start)) is not None:
        if limit is not None and len(pairs) > limit:
            break
        start = match.start()
        quote = (
            text[start : start + 3] if text[start : start + 3] in _TRIPLE_QUOTES else text[start]
        )
        end = string_end(text, start + len(quote), quote)
        pairs.append((text[code_start:start], text[start:end]))
        code_start = end
    pairs.append((text[code_start:], ""))
    return pairs


def string_end(text: str, pos: int, quote: str) -> int:
    """Index just past the closing quote of a string whose body starts at `pos`."""
    while (end := text.find(quote, pos)) != -1:
        backslashes = 0
        while end - backslashes > pos and text[end - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return end + len(quote)
        pos = end + 1
    return len(text)


def quiet_source(text: str) -> str:
    r"""`text` with what Python's parser warns about written as Python reads it.

    In str and bytes literals (not raw ones), an invalid escape becomes an escaped
    backslash (`"\d"` is a backslash and `d`), and an octal escape over 255 the `\u`
    escape of the same character; in code, a space goes between a number and a keyword
    run into it (`1if`). Text without any of these is returned as it is.

    Examples:
        >>> print(quiet_source(r"f(a='\d', b=r'\d', c=[1if x else 2])"))
        f(a='\\d', b=r'\d', c=[1 if x else 2])
    """
    has_escape = "\\" in text
    if not has_escape and _NUMBER_THEN_KEYWORD.search(text) is None:
        return text
    out: list[str] = []
    for code, string in segments(text):
        out.append(_NUMBER_THEN_KEYWORD.sub(r"\g<0> ", code))
        out.append(_quiet_string(code, string) if has_escape and "\\" in string else string)
    return "".join(out)


def _quiet_string(code: str, string: str) -> str:
    """One string literal (quotes included) with its warned-about escapes rewritten."""
    prefix_match = _PREFIX.search(code)
    prefix = prefix_match.group().lower() if prefix_match else ""
    if prefix not in _STRING_PREFIXES:
        prefix = ""  # an identifier before the quote: not a prefix (a syntax error anyway)
    if "r" in prefix:
        return string  # raw: backslashes are themselves, nothing to warn about
    allowed = _BYTES_ESCAPES if "b" in prefix else _STR_ESCAPES
    is_bytes = "b" in prefix

    def rewrite(match: re.Match[str]) -> str:
        escaped = match.group(1)
        if escaped[0] in "01234567":
            if int(escaped, 8) <= 0o377:
                return match.group()
            # Python reads it as the character of that code point, with a warning.
            code = int(escaped, 8)
            return f"\\x{code & 0xFF:02x}" if is_bytes else f"\\u{code:04x}"
        return match.group() if escaped in allowed else "\\" + match.group()

    return _ESCAPE.sub(rewrite, string)
