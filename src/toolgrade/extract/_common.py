"""Helpers every extractor shares: the bounds, bounded JSON decoding and error values."""

from __future__ import annotations

import json
import math

from toolgrade._json import JsonValue
from toolgrade.extract._types import Extraction, ExtractionError

__all__ = [
    "JSON_DECODER",
    "MAX_CALLS",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_OUTPUT_CHARS",
    "NumberTooLarge",
    "cap_error",
    "json_depth",
    "limit_calls",
    "loads_bounded",
    "parse_error",
    "read_float",
    "read_int",
    "reject_constant",
]

MAX_OUTPUT_CHARS = 1_000_000
"""Outputs longer than this are refused (`too_large`) before any parsing."""
MAX_DEPTH = 100
"""JSON nested deeper than this is refused (`too_deep`)."""
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


def json_depth(text: str) -> int:
    """Upper bound of the bracket nesting depth of JSON text, ignoring string contents."""
    depth = best = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def loads_bounded(text: str) -> JsonValue:
    """Decode JSON text whose nesting is at most `MAX_DEPTH`.

    Raises:
        ValueError: invalid JSON, nesting too deep or a number too large (the message
            says which).
    """
    if json_depth(text) > MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        value: JsonValue = JSON_DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} at char {exc.pos}") from None
    return value


def parse_error(message: str) -> ExtractionError:
    """An `ExtractionError` with reason `parse_error`."""
    return ExtractionError(reason="parse_error", message=message)


def cap_error() -> ExtractionError:
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
