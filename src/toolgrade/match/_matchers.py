r"""Matchers: expected values that describe a set of acceptable values.

An expected value that is a JSON object with a key starting with `$` is a matcher,
e.g. `{"$regex": "src/.*\\.py"}` or `{"$approx": 3.14, "tol": 0.01}`. This module
knows the vocabulary, checks that a matcher is well formed (`matcher_problems`, used
when a suite is loaded: a malformed matcher is a suite error, never a silent
mismatch), and parses a matcher into a `Matcher` that the comparison evaluates.

`$regex` patterns are compiled by RE2 (google-re2, `_regex.py`), whose matching time is linear in
the text: a pattern such as `(a+)+b` cannot stall a run. RE2 has no backreferences and
no lookaround; a pattern it cannot compile is a suite error when the suite loads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from toolgrade._core.json_data import JsonValue
from toolgrade._core.registry import Registry
from toolgrade.errors import ConfigError

if TYPE_CHECKING:
    from toolgrade.match._evaluate import MatchContext, Problem


__all__ = [
    "JSON_TYPES",
    "MATCHERS",
    "MATCHER_NAMES",
    "MAX_MATCHER_DEPTH",
    "MAX_NESTING",
    "Matcher",
    "MatcherError",
    "MatcherName",
    "MatcherSpec",
    "TOO_DEEP",
    "find_matcher",
    "is_matcher",
    "matcher_names",
    "matcher_problems",
    "parse_matcher",
    "register_matcher",
]

MatcherName = Literal[
    "$any_of",
    "$regex",
    "$contains",
    "$approx",
    "$range",
    "$type",
    "$present",
    "$absent",
    "$unordered",
    "$icase",
    "$literal",
    "$not",
]
MATCHER_NAMES: tuple[MatcherName, ...] = get_args(MatcherName)
"""Every matcher name, in the order the documentation lists them."""

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")
"""The type names `$type` accepts (JSON Schema's)."""

_DEFAULT_TOL = 1e-6


MAX_MATCHER_DEPTH = 32
"""The most matchers nested one in another (`$not` in `$any_of` in `$unordered`...)."""
MAX_NESTING = 100
"""The deepest expected value (objects, arrays, operands), as deep as answers are read."""
TOO_DEEP = f"matchers nested deeper than {MAX_MATCHER_DEPTH} levels"


class MatcherError(ValueError):
    """A malformed matcher reached the comparison (suites are checked when loaded)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(problems))


@dataclass(frozen=True, slots=True)
class Matcher:
    """A parsed, well-formed matcher."""

    name: str
    """The matcher, e.g. `$regex` (a `MatcherName`, or a registered matcher's)."""
    operand: JsonValue
    """The value after the name (a pattern, a list of alternatives, a number...)."""
    tol: float = _DEFAULT_TOL
    """For `$approx`: the largest accepted absolute difference."""
    options: tuple[tuple[str, JsonValue], ...] = ()
    """The matcher object's other keys (those its spec declares), as pairs."""

    def option(self, key: str, default: JsonValue = None) -> JsonValue:
        """The value of one of the matcher's other keys (`tol`), or `default`."""
        return next((v for k, v in self.options if k == key), default)


@dataclass(frozen=True, slots=True)
class MatcherSpec:
    """Everything about one matcher: name, operand check, evaluation, description.

    The check runs when a suite loads; the evaluation when a value is compared.

    Examples:
        >>> even = MatcherSpec(
        ...     "$even",
        ...     check=lambda operand, obj: None if operand is True else "needs true",
        ...     evaluate=lambda m, actual, ctx: None if actual % 2 == 0 else ("value", "odd"),
        ...     description="an even number",
        ... )
        >>> even.name
        '$even'
    """

    name: str
    """The key that makes an object this matcher, starting with `$`."""
    check: Callable[[JsonValue, Mapping[str, object]], str | None]
    """The operand's problem (`needs a string`) or None; gets the operand and the whole
    matcher object (for its options). Runs when the suite loads."""
    evaluate: Callable[[Matcher, JsonValue, MatchContext], Problem | None]
    """Why a present actual value does not match, as `(reason, message)` (reason: a
    `MismatchReason` such as `value` or `type`), or None when it matches."""
    description: str
    """One line for documentation: what values the matcher accepts."""
    options: frozenset[str] = frozenset()
    """Keys the matcher object may carry besides its name (`tol` for `$approx`)."""
    nested: Literal["alternatives", "items", "negated"] | None = None
    """Its operand holds expected values, checked too: a list of alternatives standing
    where the matcher stands (`$any_of`), a list of array items (`$unordered`), or one
    value standing where the matcher stands whose verdict is reversed (`$not`)."""
    absent: bool = False
    """An argument that is not there matches (`$absent`); it cannot be an array item."""


def _check_spec(name: str, value: object) -> MatcherSpec:
    if not isinstance(value, MatcherSpec) or value.name != f"${name}":
        raise ConfigError(f"matcher entry {name!r} is not a MatcherSpec named ${name}")
    return value


MATCHERS: Registry[MatcherSpec] = Registry("matcher", "toolgrade.matchers", check=_check_spec)
"""Name without the `$` -> spec; built-ins are lazy, plug-ins come from the
`toolgrade.matchers` entry points (entry point `foo` -> a `MatcherSpec` named `$foo`)."""
for _name in MATCHER_NAMES:
    MATCHERS.register(_name[1:], f"toolgrade.match._builtin_matchers:{_name[1:].upper()}")


def register_matcher(spec: MatcherSpec) -> None:
    """Make `{spec.name: ...}` a matcher in expected values.

    Raises:
        ConfigError: the name does not start with `$`, or is a built-in matcher's.
    """
    if not spec.name.startswith("$") or len(spec.name) < 2 or spec.name in MATCHER_NAMES:
        raise ConfigError(f"cannot register a matcher named {spec.name!r}")
    MATCHERS.register(spec.name[1:], spec)


def find_matcher(name: str) -> MatcherSpec | None:
    """The spec of the matcher called `name` (with its `$`), or None."""
    return MATCHERS.find(name[1:]) if name.startswith("$") else None


def matcher_names() -> list[str]:
    """Every matcher name: the built-ins in documentation order, then plug-ins."""
    return [f"${name}" for name in MATCHERS.names()]


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

    Walks the value (objects, arrays and the operands of `$any_of`, `$unordered` and `$not`)
    and reports each problem as `"path: problem"`. Matchers nested more than
    `MAX_MATCHER_DEPTH` deep, and values nested more than `MAX_NESTING` deep, are problems
    (the walk stops there).

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
        >>> deep = "x"
        >>> for _ in range(40):
        ...     deep = {"$not": deep}
        >>> [p.split(": ", 1)[1] for p in matcher_problems(deep)]
        ['matchers nested deeper than 32 levels']
    """
    out: list[str] = []
    _walk(value, path, out, in_array=False)
    return out


def _walk(
    value: object, path: str, out: list[str], *, in_array: bool, depth: int = 0, matchers: int = 0
) -> None:
    if depth > MAX_NESTING:
        out.append(f"{path}: nested deeper than {MAX_NESTING} levels")
        return
    if isinstance(value, Mapping):
        if is_matcher(value):
            _check_matcher(value, path, out, in_array=in_array, depth=depth, matchers=matchers)
        else:
            for key, item in value.items():
                _walk(
                    item, f"{path}.{key}", out, in_array=False, depth=depth + 1, matchers=matchers
                )
    elif isinstance(value, list | tuple):
        for k, item in enumerate(value):
            _walk(item, f"{path}[{k}]", out, in_array=True, depth=depth + 1, matchers=matchers)


def _check_matcher(
    value: Mapping[str, object],
    path: str,
    out: list[str],
    *,
    in_array: bool,
    recurse: bool = True,
    depth: int = 0,
    matchers: int = 0,
) -> None:
    if matchers >= MAX_MATCHER_DEPTH:
        out.append(f"{path}: {TOO_DEEP}")
        return
    names = [k for k in value if isinstance(k, str) and k.startswith("$")]
    if len(names) > 1:
        out.append(f"{path}: one matcher per object, found {', '.join(map(str, names))}")
        return
    name = names[0]
    spec = find_matcher(name)
    if spec is None:
        known = ", ".join(matcher_names())
        out.append(f"{path}: unknown matcher {name} (known: {known})")
        return
    extra = [str(k) for k in value if k != name and k not in spec.options]
    if extra:
        out.append(f"{path}: {name}: unexpected key(s) {', '.join(sorted(extra))}")
    problem = spec.check(value[name], value)  # type: ignore[arg-type]
    if problem:
        out.append(f"{path}: {name}: {problem}")
    if spec.absent and in_array:
        out.append(f"{path}: {name}: only an object member can be absent, not an array item")
    if not recurse:
        return
    operand, depth, matchers = value[name], depth + 1, matchers + 1  # levels, matchers around
    if spec.nested == "negated":
        _walk(operand, f"{path}.{name}", out, in_array=in_array, depth=depth, matchers=matchers)
    elif spec.nested is not None and isinstance(operand, list):
        # An alternative stands where the matcher stands; an unordered item is an item.
        inside = in_array if spec.nested == "alternatives" else True
        for k, item in enumerate(operand):
            _walk(item, f"{path}.{name}[{k}]", out, in_array=inside, depth=depth, matchers=matchers)


def _is_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    # An integer is finite, however large (`math.isfinite` cannot convert some to floats).
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


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
    name = next(k for k in value if k.startswith("$"))
    tol = value.get("tol", _DEFAULT_TOL)
    options = tuple((k, v) for k, v in value.items() if k != name)
    return Matcher(name, value[name], float(tol) if isinstance(tol, int | float) else 0.0, options)
