r"""Matchers: expected values that describe a set of acceptable values.

An expected value that is a JSON object with a key starting with `$` is a matcher,
e.g. `{"$regex": "src/.*\\.py"}` or `{"$approx": 3.14, "tol": 0.01}`. This module
knows the vocabulary, checks that a matcher is well formed (`matcher_problems`, used
when a suite is loaded: a malformed matcher is a suite error, never a silent
mismatch), and parses a matcher into a `Matcher` that the comparison evaluates.

`$regex` patterns are compiled by RE2 (google-re2), whose matching time is linear in
the text: a pattern such as `(a+)+b` cannot stall a run. RE2 has no backreferences and
no lookaround; a pattern it cannot compile is a suite error when the suite loads.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Protocol, get_args

from toolgrade._json import JsonValue

try:
    import re2  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - google-re2 ships wheels for the supported platforms
    re2 = None

__all__ = [
    "JSON_TYPES",
    "MATCHER_NAMES",
    "Matcher",
    "MatcherError",
    "MatcherName",
    "RegexPattern",
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

logger = logging.getLogger(__name__)

_NEVER = "(?!)"
"""The usual never-matching pattern (BFCL imports write it); RE2 has no lookahead."""
_RE2_NEVER = r"[^\x00-\x{10FFFF}]"
"""What `(?!)` is compiled as by RE2: a character class no character is in."""
_RE2_HINT = "; $regex uses RE2 syntax: no lookaround, no backreferences"

FALLBACK_MAX_PATTERN = 1_000
"""Without RE2 (Python's `re`): the longest pattern accepted, in characters."""
FALLBACK_MAX_TEXT = 10_000
"""Without RE2: the longest text matched, in characters; a longer one does not match."""
# What RE2 refuses and Python accepts, so that a suite is valid on both: lookaround,
# backreferences (`\1`, `(?P=name)`) and atomic groups.
_NOT_RE2 = re.compile(r"\(\?(?:=|!|<=|<!|P=|>)|(?<!\\)(?:\\\\)*\\[1-9]")


class RegexPattern(Protocol):
    """A compiled `$regex`: RE2's, or Python's when RE2 cannot be imported."""

    def fullmatch(self, text: str, /) -> object | None:
        """A match of the whole text, or None."""


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
                compiled(operand)
            except ValueError as exc:
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


@lru_cache(maxsize=1024)
def compiled(pattern: str) -> RegexPattern:
    """Compile a `$regex` pattern once (RE2: matching time linear in the text).

    Raises:
        ValueError: the pattern is not valid RE2 syntax (the message says why).

    Examples:
        >>> compiled("(a+)+b").fullmatch("a" * 10_000) is None
        True
    """
    if re2 is None:  # pragma: no cover - exercised by monkeypatching `re2` away
        return _fallback(pattern)
    try:
        return re2.compile(_RE2_NEVER if pattern == _NEVER else pattern, _re2_options())  # type: ignore[no-any-return]
    except re2.error as exc:
        raw = exc.args[0] if exc.args else exc
        message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        what, _, where = message.partition(": ")  # RE2 says `missing ): (`
        hint = _RE2_HINT if "perl operator" in what or "escape sequence" in what else ""
        raise ValueError(f"{what} at '{where}'{hint}" if where else what + hint) from None


@lru_cache(maxsize=1)
def _re2_options() -> object:
    options = re2.Options()
    options.log_errors = False  # the error is reported as a suite problem instead
    return options


@dataclass(frozen=True, slots=True)
class _Bounded:
    """Python's `re`, which can take exponential time, held to short texts."""

    pattern: re.Pattern[str]

    def fullmatch(self, text: str, /) -> object | None:
        if len(text) > FALLBACK_MAX_TEXT:
            return None
        return self.pattern.fullmatch(text)


def _fallback(pattern: str) -> RegexPattern:
    logger.warning("google-re2 cannot be imported: $regex uses Python's re, with length bounds")
    if len(pattern) > FALLBACK_MAX_PATTERN:
        raise ValueError(f"longer than {FALLBACK_MAX_PATTERN} characters")
    if pattern != _NEVER and _NOT_RE2.search(pattern):
        raise ValueError("not RE2 syntax" + _RE2_HINT)
    try:
        return _Bounded(re.compile(pattern))
    except re.error as exc:
        raise ValueError(str(exc)) from None
