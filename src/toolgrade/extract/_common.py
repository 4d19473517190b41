"""Helpers every extractor shares: bounded JSON decoding and error values."""

from __future__ import annotations

import json

from toolgrade._json import JsonValue
from toolgrade.extract._types import ExtractionError

__all__ = [
    "MAX_DEPTH",
    "MAX_OUTPUT_CHARS",
    "json_depth",
    "loads_bounded",
    "parse_error",
    "reject_constant",
]

MAX_OUTPUT_CHARS = 1_000_000
"""Outputs longer than this are refused (`too_large`) before any parsing."""
MAX_DEPTH = 100
"""JSON nested deeper than this is refused (`too_deep`)."""


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


def reject_constant(name: str) -> JsonValue:
    """Refuse `NaN`, `Infinity` and `-Infinity`: Python's json accepts them, JSON does not.

    Raises:
        ValueError: always (a JSONDecodeError subclass would be caught as invalid JSON too).
    """
    raise json.JSONDecodeError(f"{name} is not a JSON value", name, 0)


def loads_bounded(text: str) -> JsonValue:
    """Decode JSON text whose nesting is at most `MAX_DEPTH`.

    Raises:
        ValueError: invalid JSON or nesting too deep (the message says which).
    """
    if json_depth(text) > MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        value: JsonValue = json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} at char {exc.pos}") from None
    return value


def parse_error(message: str) -> ExtractionError:
    """An `ExtractionError` with reason `parse_error`."""
    return ExtractionError(reason="parse_error", message=message)
