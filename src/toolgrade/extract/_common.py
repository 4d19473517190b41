"""Helpers every extractor shares: the bounds, the one bounded JSON decoder, error values."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable

from toolgrade._core.json_data import (
    JsonValue,
    clean_text,
    clean_value,
    has_surrogate,
    holds_surrogate,
)
from toolgrade._core.vocab import ToolCall
from toolgrade.extract._types import Extraction, ExtractionProblem, new_call

__all__ = [
    "JSON_DECODER",
    "MAX_CALLS",
    "MAX_DEPTH",
    "MAX_FAILED_DECODES",
    "MAX_INT_DIGITS",
    "INT_LIMIT",
    "MAX_OUTPUT_CHARS",
    "NumberTooLarge",
    "TooDeepError",
    "cap_error",
    "check_bounds",
    "clean_extraction",
    "decode_at",
    "error_for",
    "limit_calls",
    "loads_fast",
    "parse_error",
    "read_float",
    "read_int",
    "reject_constant",
    "skip_space",
]

MAX_OUTPUT_CHARS = 1_000_000
"""Outputs longer than this are refused (`too_large`) before any parsing."""
MAX_DEPTH = 100
"""JSON nested deeper than this is refused (`too_deep`)."""
MAX_FAILED_DECODES = 16
"""JSON bodies of one output a reader may fail to decode before it reads the rest as
plain text, or stops: each failed decode may scan far, so this keeps a 1 MB hostile
output linear (docs/extraction.md)."""
MAX_CALLS = 256
"""Calls kept per output, in every format: the first `MAX_CALLS` are kept, and a
`parse_error` says the cap was hit. No model answers with more; hostile output does."""
MAX_INT_DIGITS = 640
"""An integer written with more digits is not read as a number (a `parse_error`).

Python refuses to convert integers of over 4,300 digits to or from text by default
(`sys.get_int_max_str_digits`), and 640 is the lowest limit it can be set to: so a
number that extraction keeps can always be written back as JSON, and converting one
never costs more than a few microseconds, whatever the interpreter's setting.
"""


INT_LIMIT = 10**MAX_INT_DIGITS
"""The smallest integer (in absolute value) with more than `MAX_INT_DIGITS` digits."""


class NumberTooLarge(ValueError):
    """A number in model output that is not kept: too many digits, or not finite."""


def read_int(text: str) -> int:
    """An integer from its decimal digits (optionally signed), within `MAX_INT_DIGITS`.

    Raises:
        NumberTooLarge: more than `MAX_INT_DIGITS` digits.
    """
    if len(text) - (text[:1] in "-+") > MAX_INT_DIGITS:
        raise NumberTooLarge(f"an integer with more than {MAX_INT_DIGITS} digits")
    return int(text)


def read_float(text: str) -> float:
    """A finite float from its decimal text.

    Raises:
        NumberTooLarge: the number overflows to infinity.
    """
    value = float(text)
    if not math.isfinite(value):
        raise NumberTooLarge(f"a number too large for JSON ({text[:20]}...)")
    return value


def reject_constant(name: str) -> JsonValue:
    """Refuse `NaN`, `Infinity` and `-Infinity`: Python's json accepts them, JSON does not.

    Raises:
        ValueError: always (a JSONDecodeError subclass would be caught as invalid JSON too).
    """
    raise json.JSONDecodeError(f"{name} is not a JSON value", name, 0)


JSON_DECODER = json.JSONDecoder(
    parse_constant=reject_constant, parse_int=read_int, parse_float=read_float
)
"""The decoder every JSON format uses: no NaN or Infinity, no oversized numbers.

Its `NumberTooLarge` is a `ValueError` but not a `JSONDecodeError`, so callers catch
`ValueError`.
"""


class TooDeepError(ValueError):
    """JSON nested deeper than `MAX_DEPTH` levels."""


_WS = re.compile(r"\s*")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
r"""A JSON escape of a UTF-16 surrogate (`\ud83d`): only then can a decoded value hold one."""
_TOO_DEEP = f"JSON nested deeper than {MAX_DEPTH} levels"


def check_bounds(value: object) -> None:
    """Refuse a value nested deeper than `MAX_DEPTH`, or holding an integer of too many digits.

    `decode_at` checks every decoded value (its integers are bounded by the decoder
    already); the call reader checks arguments given as objects (a server's structured
    call), so that they are held to the bounds of text.

    Raises:
        TooDeepError: nested too deeply (arrays and objects count).
        NumberTooLarge: an integer of more than `MAX_INT_DIGITS` digits.
    """
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable[object] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            if type(item) is int and abs(item) >= INT_LIMIT:
                raise NumberTooLarge(f"an integer with more than {MAX_INT_DIGITS} digits")
            continue
        if depth > MAX_DEPTH:
            raise TooDeepError(_TOO_DEEP)
        for child in children:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
            elif type(child) is int and abs(child) >= INT_LIMIT:
                raise NumberTooLarge(f"an integer with more than {MAX_INT_DIGITS} digits")


def skip_space(text: str, pos: int) -> int:
    """The index of the first non-whitespace character at or after `pos`."""
    return _WS.match(text, pos).end()  # type: ignore[union-attr]


def decode_at(text: str, pos: int) -> tuple[JsonValue, int]:
    r"""Decode one JSON value starting at `pos` (leading whitespace allowed).

    The one bounded JSON decoder of extraction: the C decoder, then a depth check on
    the value (deep input makes the decoder raise RecursionError, which is caught). A
    lone surrogate written as an escape (`"\ud83d"`) is decoded as U+FFFD.

    Returns:
        The value and the index just after it.

    Raises:
        TooDeepError: nested deeper than `MAX_DEPTH`.
        ValueError: not valid JSON at `pos` (the message says where), or a number
            that is not kept (`NumberTooLarge`).
    """
    pos = skip_space(text, pos)
    try:
        value, end = JSON_DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} at char {exc.pos}") from None
    except RecursionError:
        raise TooDeepError(_TOO_DEEP) from None
    check_bounds(value)
    if _SURROGATE_ESCAPE.search(text, pos, end) is not None:
        value = clean_value(value)
    return value, end


def loads_fast(text: str) -> JsonValue:
    """Decode text that must be exactly one JSON value (surrounding whitespace allowed).

    Raises:
        TooDeepError: nested deeper than `MAX_DEPTH`.
        ValueError: not one valid JSON value.
    """
    value, end = decode_at(text, 0)
    if text[end:].strip():
        raise ValueError(f"invalid JSON: extra data at char {end}")
    return value


def error_for(exc: ValueError, where: str) -> ExtractionProblem:
    """Turn a decoding failure into an `ExtractionProblem` (`too_deep` or `parse_error`)."""
    if isinstance(exc, TooDeepError):
        return ExtractionProblem(reason="too_deep", message=f"{where}: {exc}")
    return parse_error(f"{where}: {exc}")


def parse_error(message: str) -> ExtractionProblem:
    """An `ExtractionProblem` with reason `parse_error`."""
    return ExtractionProblem(reason="parse_error", message=message)


def cap_error() -> ExtractionProblem:
    """The note added when an output holds more than `MAX_CALLS` calls."""
    return parse_error(
        f"more than {MAX_CALLS} tool calls in one output: only the first {MAX_CALLS} are kept"
    )


def limit_calls(found: Extraction) -> Extraction:
    """Keep the first `MAX_CALLS` calls, noting the cap when it cut calls off.

    A reader that stopped looking at blocks at its own bound has added the note already.
    """
    if len(found.calls) <= MAX_CALLS:
        return found
    note = cap_error()
    errors = found.errors if note in found.errors else (*found.errors, note)
    return found.model_copy(update={"calls": found.calls[:MAX_CALLS], "errors": errors})


def clean_extraction(found: Extraction) -> Extraction:
    r"""`found` with every lone UTF-16 surrogate in its calls and messages replaced by U+FFFD.

    Readers decode JSON and Python escapes (`\ud83d`, `\U0000dc00`), and a raw output
    may hold the code point itself: either gives a `str` that no UTF-8 writer, hash or
    RE2 pattern accepts. Every extraction passes here once; one without a surrogate is
    returned as it is (nothing is copied).

    Examples:
        >>> found = Extraction(calls=(ToolCall(name="f", arguments={"p": "a\ud83d"}),))
        >>> clean_extraction(found).calls[0].arguments
        {'p': 'a\ufffd'}
    """
    calls, errors = found.calls, found.errors
    if not calls and not errors:
        return found
    for index, call in enumerate(calls):
        name = call.name
        if (not name.isascii() and has_surrogate(name)) or holds_surrogate(call.arguments):
            calls = (*calls[:index], *map(_clean_call, calls[index:]))
            break
    if errors and any(has_surrogate(e.message) for e in errors):
        errors = tuple(e.model_copy(update={"message": clean_text(e.message)}) for e in errors)
    if calls is found.calls and errors is found.errors:
        return found
    return found.model_copy(update={"calls": calls, "errors": errors})


def _clean_call(call: ToolCall) -> ToolCall:
    name, arguments = clean_text(call.name), clean_value(call.arguments)
    if name is call.name and arguments is call.arguments:
        return call
    return new_call({"name": name, "arguments": arguments})
