"""The built-in matchers, one `MatcherSpec` each (registered lazily by `_matchers`).

Each spec is the whole matcher: its name, the check of its operand when a suite loads,
its evaluation (in `_evaluate`), and its one-line description.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolgrade._core.json_data import JsonValue
from toolgrade.match import _evaluate as ev
from toolgrade.match._matchers import _DEFAULT_TOL, JSON_TYPES, MatcherSpec, _is_number
from toolgrade.match._regex import compiled

__all__ = [
    "ABSENT",
    "ANY_OF",
    "APPROX",
    "CONTAINS",
    "ICASE",
    "LITERAL",
    "NOT",
    "PRESENT",
    "RANGE",
    "REGEX",
    "TYPE",
    "UNORDERED",
]


def _array(operand: JsonValue, value: Mapping[str, object]) -> str | None:
    return None if isinstance(operand, list) else "needs an array"


def _alternatives(operand: JsonValue, value: Mapping[str, object]) -> str | None:
    if not isinstance(operand, list):
        return "needs an array"
    return None if operand else "needs at least one alternative"


def _string(operand: JsonValue, value: Mapping[str, object]) -> str | None:
    return None if isinstance(operand, str) else "needs a string"


def _pattern(operand: JsonValue, value: Mapping[str, object]) -> str | None:
    if not isinstance(operand, str):
        return "needs a string"
    try:
        compiled(operand)
    except ValueError as exc:
        return f"invalid pattern ({exc})"
    return None


def _approx(operand: JsonValue, value: Mapping[str, object]) -> str | None:
    tol = value.get("tol", _DEFAULT_TOL)
    if not _is_number(operand):
        return "needs a number"
    if not _is_number(tol) or tol < 0:  # type: ignore[operator]
        return "tol must be a non-negative number"
    return None


def _range(operand: JsonValue, value: Mapping[str, object]) -> str | None:
    if not isinstance(operand, dict) or not operand:
        return 'needs an object with "min", "max" or both'
    unknown = sorted(set(operand) - {"min", "max"})
    if unknown:
        return f"unknown bound {unknown[0]!r} (known: min, max)"
    if not all(_is_number(bound) for bound in operand.values()):
        return "min and max must be numbers"
    low, high = operand.get("min"), operand.get("max")
    if low is not None and high is not None and low > high:  # type: ignore[operator]
        return "min is greater than max"
    return None


def _type(operand: JsonValue, value: Mapping[str, object]) -> str | None:
    if operand not in JSON_TYPES:
        return f"unknown type {operand!r} (known: {', '.join(JSON_TYPES)})"
    return None


def _true(operand: JsonValue, value: Mapping[str, object]) -> str | None:
    return None if operand is True else "the only accepted value is true"


def _anything(operand: JsonValue, value: Mapping[str, object]) -> str | None:
    return None


ANY_OF = MatcherSpec(
    "$any_of",
    _alternatives,
    ev.eval_any_of,
    "any one of the alternatives (values or matchers)",
    nested="alternatives",
)
REGEX = MatcherSpec("$regex", _pattern, ev.eval_text, "a string the RE2 pattern fully matches")
CONTAINS = MatcherSpec("$contains", _string, ev.eval_text, "a string containing it, any case")
APPROX = MatcherSpec(
    "$approx", _approx, ev.eval_approx, "a number within `tol`", options=frozenset({"tol"})
)
RANGE = MatcherSpec(
    "$range",
    _range,
    ev.eval_range,
    "a number from `min` to `max`, both included (either may be left out)",
)
TYPE = MatcherSpec("$type", _type, ev.eval_type, "any value of that JSON type")
PRESENT = MatcherSpec("$present", _true, ev.eval_present, "any value, as long as it is there")
ABSENT = MatcherSpec("$absent", _true, ev.eval_absent, "the argument is not there", absent=True)
UNORDERED = MatcherSpec(
    "$unordered", _array, ev.eval_unordered, "an array of these items in any order", nested="items"
)
ICASE = MatcherSpec("$icase", _string, ev.eval_text, "a string equal to it up to letter case")
LITERAL = MatcherSpec("$literal", _anything, ev.eval_literal, "exactly this value, never a matcher")
NOT = MatcherSpec(
    "$not",
    _anything,
    ev.eval_not,
    "any value the operand (a value or a matcher) does not match",
    nested="negated",
)
