"""Value equality: do the actual arguments of a call equal the expected ones?

The comparison returns the list of differences (`Mismatch`), each with the JSON path
of the argument, so that a failed case says exactly what was wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from toolscore._json import JsonObject, JsonValue

__all__ = [
    "DEEP_EQUALITY",
    "MatchOptions",
    "Mismatch",
    "MismatchReason",
    "compare_arguments",
    "compare_values",
    "json_kind",
]

MismatchReason = Literal["missing", "unexpected", "type", "value", "schema"]


class Mismatch(BaseModel):
    """One difference between an expected and an actual argument value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    """JSON path of the argument, e.g. `$.options.recursive` or `$.files[2]`."""
    reason: MismatchReason
    """Why it differs: `missing`, `unexpected`, `type`, `value` or `schema`."""
    expected: JsonValue = None
    """The expected value (or matcher); null for `unexpected`."""
    actual: JsonValue = None
    """The actual value; null for `missing`."""
    message: str = ""
    """A sentence for people, when the reason alone is not enough."""

    def describe(self) -> str:
        """Render the difference in one line, e.g. `$.q: expected "a", got "b"`."""
        if self.reason == "missing":
            text = f"{self.path}: missing (expected {_show(self.expected)})"
        elif self.reason == "unexpected":
            text = f"{self.path}: unexpected argument (got {_show(self.actual)})"
        else:
            text = f"{self.path}: expected {_show(self.expected)}, got {_show(self.actual)}"
        return f"{text} [{self.message}]" if self.message else text


def _show(value: JsonValue) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """How strictly values compare."""

    strict: bool = False
    """Fail on arguments the expectation does not mention."""


DEEP_EQUALITY = MatchOptions(strict=True)
"""Plain deep equality (score_calls): every key must be present on both sides."""


def json_kind(value: object) -> str:
    """Name the JSON type of a Python value (`boolean` is never a `number`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def compare_arguments(
    expected: JsonObject,
    actual: JsonObject,
    *,
    options: MatchOptions = DEEP_EQUALITY,
) -> list[Mismatch]:
    """Compare the arguments of two calls.

    Args:
        expected: the expected arguments.
        actual: the actual arguments.
        options: how strictly to compare.

    Returns:
        The differences; an empty list means the arguments match.

    Examples:
        >>> compare_arguments({"n": 1}, {"n": 1.0})
        []
        >>> [m.reason for m in compare_arguments({"n": 1}, {"n": "1"})]
        ['type']
    """
    out: list[Mismatch] = []
    _compare_object(expected, actual, "$", options, out)
    return out


def compare_values(
    expected: JsonValue,
    actual: JsonValue,
    *,
    options: MatchOptions = DEEP_EQUALITY,
    path: str = "$",
) -> list[Mismatch]:
    """Compare two JSON values; see `compare_arguments`."""
    out: list[Mismatch] = []
    _compare(expected, actual, path, options, out)
    return out


def _compare(
    expected: JsonValue, actual: JsonValue, path: str, options: MatchOptions, out: list[Mismatch]
) -> None:
    if json_kind(expected) != json_kind(actual):
        out.append(Mismatch(path=path, reason="type", expected=expected, actual=actual))
    elif isinstance(expected, dict) and isinstance(actual, dict):
        _compare_object(expected, actual, path, options, out)
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            out.append(
                Mismatch(
                    path=path,
                    reason="value",
                    expected=expected,
                    actual=actual,
                    message=f"{len(actual)} items instead of {len(expected)}",
                )
            )
            return
        for k, (e, a) in enumerate(zip(expected, actual, strict=True)):
            _compare(e, a, f"{path}[{k}]", options, out)
    elif expected != actual:
        out.append(Mismatch(path=path, reason="value", expected=expected, actual=actual))


def _compare_object(
    expected: JsonObject,
    actual: JsonObject,
    path: str,
    options: MatchOptions,
    out: list[Mismatch],
) -> None:
    for key, value in expected.items():
        sub = f"{path}.{key}"
        if key not in actual:
            out.append(Mismatch(path=sub, reason="missing", expected=value))
        else:
            _compare(value, actual[key], sub, options, out)
    if options.strict:
        for key, value in actual.items():
            if key not in expected:
                out.append(Mismatch(path=f"{path}.{key}", reason="unexpected", actual=value))
