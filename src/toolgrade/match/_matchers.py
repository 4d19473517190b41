r"""Matchers: expected values that describe a set of acceptable values.

An expected value that is a JSON object with a key starting with `$` is a matcher,
e.g. `{"$regex": "src/.*\\.py"}` or `{"$approx": 3.14, "tol": 0.01}`. This module
knows the vocabulary, checks that a matcher is well formed (`matcher_problems`, used
when a suite is loaded: a malformed matcher is a suite error, never a silent
mismatch), and parses a matcher into a `Matcher` that the comparison evaluates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, get_args

from toolgrade._json import JsonValue

__all__ = [
    "JSON_TYPES",
    "MATCHER_NAMES",
    "Matcher",
    "MatcherError",
    "MatcherName",
    "compiled",
    "is_matcher",
    "matcher_problems",
    "parse_matcher",
]

MatcherName = Literal[
    "$any_of",
    "$regex",
    "$contains",
    "$approx",
    "$type",
    "$present",
    "$absent",
    "$unordered",
    "$icase",
    "$literal",
]
MATCHER_NAMES: tuple[MatcherName, ...] = get_args(MatcherName)
"""Every matcher name, in the order the documentation lists them."""

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")
"""The type names `$type` accepts (JSON Schema's)."""

# Keys a matcher object may carry besides its `$name`.
_OPTION_KEYS: dict[str, frozenset[str]] = {"$approx": frozenset({"tol"})}
_DEFAULT_TOL = 1e-6


class MatcherError(ValueError):
    """A malformed matcher reached the comparison (suites are checked when loaded)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(problems))


@dataclass(frozen=True, slots=True)
class Matcher:
    """A parsed, well-formed matcher."""

    name: MatcherName
    """The matcher, e.g. `$regex`."""
    operand: JsonValue
    """The value after the name (a pattern, a list of alternatives, a number...)."""
    tol: float = _DEFAULT_TOL
    """For `$approx`: the largest accepted absolute difference."""


def is_matcher(value: object) -> bool:
    """Tell whether an expected value is meant as a matcher.

    A value is a matcher when it is a JSON object with at least one key starting with
    `$`. It may still be malformed: `matcher_problems` says how.

    Args:
        value: an expected value.

    Returns:
        True for a matcher (well formed or not).

    Examples:
        >>> is_matcher({"$regex": "a+"}), is_matcher({"path": "a"}), is_matcher("$x")
        (True, False, False)
    """
    return isinstance(value, Mapping) and any(
        isinstance(k, str) and k.startswith("$") for k in value
    )


def matcher_problems(value: object, path: str = "$") -> list[str]:
    """List every malformed matcher inside an expected value.

    Walks the value (objects, arrays and the operands of `$any_of` and `$unordered`)
    and reports each problem as `"path: problem"`.

    Args:
        value: an expected value (an argument value, or a whole arguments object).
        path: the JSON path of `value`, used as the prefix of each problem.

    Returns:
        The problems; empty when every matcher is well formed.

    Examples:
        >>> matcher_problems({"q": {"$regex": "("}}, "$.arguments")[0][:38]
        '$.arguments.q: $regex: invalid pattern'
        >>> matcher_problems({"n": {"$approx": 1, "tol": 0.1}})
        []
    """
    out: list[str] = []
    _walk(value, path, out, in_array=False)
    return out


def _walk(value: object, path: str, out: list[str], *, in_array: bool) -> None:
    if isinstance(value, Mapping):
        if is_matcher(value):
            _check_matcher(value, path, out, in_array=in_array)
        else:
            for key, item in value.items():
                _walk(item, f"{path}.{key}", out, in_array=False)
    elif isinstance(value, list | tuple):
        for k, item in enumerate(value):
            _walk(item, f"{path}[{k}]", out, in_array=True)


def _check_matcher(
    value: Mapping[str, object],
    path: str,
    out: list[str],
    *,
    in_array: bool,
    recurse: bool = True,
) -> None:
    names = [k for k in value if isinstance(k, str) and k.startswith("$")]
    if len(names) > 1:
        out.append(f"{path}: one matcher per object, found {', '.join(map(str, names))}")
        return
    name = names[0]
    if name not in MATCHER_NAMES:
        known = ", ".join(MATCHER_NAMES)
        out.append(f"{path}: unknown matcher {name} (known: {known})")
        return
    allowed = _OPTION_KEYS.get(name, frozenset())
    extra = [str(k) for k in value if k != name and k not in allowed]
    if extra:
        out.append(f"{path}: {name}: unexpected key(s) {', '.join(sorted(extra))}")
    problem = _operand_problem(name, value)
    if problem:
        out.append(f"{path}: {name}: {problem}")
    if name == "$absent" and in_array:
        out.append(f"{path}: $absent: only an object member can be absent, not an array item")
    if not recurse:
        return
    operand = value[name]
    if name in ("$any_of", "$unordered") and isinstance(operand, list):
        # An alternative stands where the matcher stands; an unordered item is an item.
        inside_array = in_array if name == "$any_of" else True
        for k, item in enumerate(operand):
            _walk(item, f"{path}.{name}[{k}]", out, in_array=inside_array)


def _operand_problem(name: str, value: Mapping[str, object]) -> str | None:
    operand = value[name]
    if name in ("$any_of", "$unordered"):
        if not isinstance(operand, list):
            return "needs an array"
        if name == "$any_of" and not operand:
            return "needs at least one alternative"
    elif name in ("$regex", "$contains", "$icase"):
        if not isinstance(operand, str):
            return "needs a string"
        if name == "$regex":
            try:
                re.compile(operand)
            except re.error as exc:
                return f"invalid pattern ({exc})"
    elif name == "$approx":
        return _approx_problem(operand, value.get("tol", _DEFAULT_TOL))
    elif name == "$type":
        if operand not in JSON_TYPES:
            return f"unknown type {operand!r} (known: {', '.join(JSON_TYPES)})"
    elif name in ("$present", "$absent") and operand is not True:
        return "the only accepted value is true"
    return None


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _approx_problem(operand: object, tol: object) -> str | None:
    if not _is_number(operand):
        return "needs a number"
    if not _is_number(tol) or tol < 0:  # type: ignore[operator]
        return "tol must be a non-negative number"
    return None


def parse_matcher(value: JsonValue) -> Matcher | None:
    """Parse an expected value into a `Matcher`, or None when it is a plain value.

    Malformed matchers are rejected when the suite loads (`matcher_problems`); one
    that still reaches the comparison raises, because comparing against it would be
    a silent wrong verdict.

    Raises:
        MatcherError: the value is a malformed matcher.
    """
    if not isinstance(value, dict) or not is_matcher(value):
        return None
    problems: list[str] = []
    # Operands that are matchers themselves are checked when the comparison reaches them.
    _check_matcher(dict(value), "$", problems, in_array=False, recurse=False)
    if problems:
        raise MatcherError(problems)
    name: MatcherName = next(n for n in MATCHER_NAMES if n in value)
    tol = value.get("tol", _DEFAULT_TOL)
    return Matcher(name, value[name], float(tol) if isinstance(tol, int | float) else 0.0)


@lru_cache(maxsize=512)
def compiled(pattern: str) -> re.Pattern[str]:
    """Compile a `$regex` pattern once."""
    return re.compile(pattern)
