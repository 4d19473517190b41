"""Value equality: do the actual arguments of a call equal the expected ones?

One implementation serves both `score_calls` (plain deep equality, `DEEP_EQUALITY`)
and the judge (`SEMANTIC`: schema-guided coercion, trimmed strings, normalised paths,
schema defaults and `$`-matchers). The comparison returns the list of differences
(`Mismatch`), each with the JSON path of the argument, so that a failed case says
exactly what was wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.vocab import REQUIRED_BY_SCHEMA, Mismatch, MismatchReason
from toolgrade.match._coerce import (
    child_schema,
    coerce_value,
    is_exact,
    is_path,
    normalise_path,
    trim_rule,
)
from toolgrade.match._nulls import absent_null_reason, is_required, reads_as_absent

if TYPE_CHECKING:
    from toolgrade.match._evaluate import accepts_absent, evaluate
    from toolgrade.match._matchers import parse_matcher
else:
    # Stand-ins that import the matcher modules on first use and put the real functions
    # in their place (`_import_matchers`): plain equality (`score_calls`) never reads
    # matchers, and their modules (a registry, dataclasses) are a noticeable part of the
    # start of `toolgrade score`. After the first call, the names are the real functions.

    def parse_matcher(value):
        _import_matchers()
        return parse_matcher(value)

    def evaluate(*args, **kwargs):
        _import_matchers()
        return evaluate(*args, **kwargs)

    def accepts_absent(matcher, _depth=0, *, null_too=False):
        _import_matchers()
        return accepts_absent(matcher, _depth, null_too=null_too)


__all__ = [
    "DEEP_EQUALITY",
    "SEMANTIC",
    "REQUIRED_BY_SCHEMA",
    "MatchOptions",
    "Mismatch",
    "MismatchReason",
    "compare_arguments",
    "compare_values",
    "json_kind",
]


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """How values compare."""

    strict: bool = False
    """Fail on arguments the expectation does not mention."""
    semantic: bool = False
    """Trim strings, normalise paths, and, given a schema, coerce values to its types,
    compare `enum` values exactly and accept an omitted argument equal to its default."""
    matchers: bool = False
    """Read `$`-objects in expected values as matchers (`$regex`, `$any_of`, ...)."""
    trim: bool = True
    """Semantic comparison: ignore the surrounding whitespace of strings whose schema
    does not decide (`x-toolgrade-trim`, `contentMediaType`; docs/matching.md). A suite
    sets it with `defaults.trim_strings`."""
    null_is_absent: bool = False
    """Read a `null` member as the member left out, whatever its schema says (where
    the schema allows null, it is read so anyway: docs/matching.md). A suite sets it
    with `defaults.null_is_absent`."""


DEEP_EQUALITY = MatchOptions(strict=True)
"""Plain deep equality (score_calls): every key must be present on both sides, no
coercion, no trimming, no matchers; `1 == 1.0`, `1 != "1"`, `true != 1`."""

SEMANTIC = MatchOptions(semantic=True, matchers=True)
"""The judge's equality: schema-guided, trimmed, path-aware, with matchers."""


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
    schema: JsonObject | None = None,
) -> list[Mismatch]:
    """Compare the arguments of two calls.

    Args:
        expected: the expected arguments (may hold matchers when `options.matchers`).
        actual: the actual arguments.
        options: how to compare; the default is plain deep equality.
        schema: the tool's parameters JSON Schema; used only when `options.semantic`.

    Returns:
        The differences; an empty list means the arguments match.

    Examples:
        >>> compare_arguments({"n": 1}, {"n": 1.0})
        []
        >>> [m.reason for m in compare_arguments({"n": 1}, {"n": "1"})]
        ['type']
        >>> compare_arguments({"n": 1}, {"n": "1"}, options=SEMANTIC,
        ...     schema={"type": "object", "properties": {"n": {"type": "integer"}}})
        []
    """
    walker = _Walker(options)
    if options.semantic and schema:
        coerced = coerce_value(actual, schema)
        if isinstance(coerced, dict):
            actual = coerced
    walker.object(expected, actual, "$", schema=schema if options.semantic else None)
    return walker.out


def compare_values(
    expected: JsonValue,
    actual: JsonValue,
    *,
    options: MatchOptions = DEEP_EQUALITY,
    path: str = "$",
    schema: JsonObject | None = None,
    name: str | None = None,
) -> list[Mismatch]:
    """Compare two JSON values; see `compare_arguments`.

    Args:
        expected: the expected value (or matcher).
        actual: the actual value.
        options: how to compare.
        path: the JSON path of the value, the prefix of every reported path.
        schema: the value's JSON Schema (semantic comparison only).
        name: the argument name the value belongs to (decides whether it is a path).

    Returns:
        The differences; empty when the values match.
    """
    walker = _Walker(options)
    schema = schema if options.semantic else None
    if schema:
        actual = coerce_value(actual, schema)
    walker.value(expected, actual, path, schema=schema, name=name)
    return walker.out


class _Walker:
    """One comparison: the options, and the differences found so far.

    `depth` counts the matchers this comparison is inside (a matcher's operand is
    compared by a `trial` one level deeper): `evaluate` refuses a matcher deeper than
    `MAX_MATCHER_DEPTH` (`MatcherError`; suites are checked when loaded), so that no
    nesting reaches Python's recursion limit.
    """

    __slots__ = ("depth", "options", "out")

    def __init__(self, options: MatchOptions, depth: int = 0) -> None:
        self.options = options
        self.depth = depth
        self.out: list[Mismatch] = []

    def trial(
        self,
        expected: JsonValue,
        actual: JsonValue,
        path: str,
        *,
        schema: JsonObject | None,
        name: str | None,
    ) -> list[Mismatch]:
        """Compare a matcher's operand without recording: the differences it would report."""
        sub = _Walker(self.options, self.depth + 1)
        sub.value(expected, actual, path, schema=schema, name=name)
        return sub.out

    def literal(self) -> _Walker:
        """A comparison with the same options that reads `$`-objects literally."""
        return _Walker(replace(self.options, matchers=False), self.depth)

    def add(
        self,
        path: str,
        reason: MismatchReason,
        *,
        expected: JsonValue = None,
        actual: JsonValue = None,
        message: str = "",
    ) -> None:
        """Record one difference."""
        self.out.append(
            Mismatch(path=path, reason=reason, expected=expected, actual=actual, message=message)
        )

    def value(
        self,
        expected: JsonValue,
        actual: JsonValue,
        path: str,
        *,
        schema: JsonObject | None,
        name: str | None,
    ) -> None:
        if self.options.matchers and isinstance(expected, dict):
            matcher = parse_matcher(expected)
            if matcher is not None:
                evaluate(
                    self,
                    matcher,
                    expected=expected,
                    actual=actual,
                    path=path,
                    schema=schema,
                    name=name,
                )
                return
        if isinstance(expected, str) and isinstance(actual, str):
            same = (
                self.text(expected, schema, name) == self.text(actual, schema, name)
                if self.options.semantic
                else expected == actual
            )
            if not same:
                self.add(path, "value", expected=expected, actual=actual)
        elif json_kind(expected) != json_kind(actual):
            self.add(path, "type", expected=expected, actual=actual)
        elif isinstance(expected, dict) and isinstance(actual, dict):
            self.object(expected, actual, path, schema=schema)
        elif isinstance(expected, list) and isinstance(actual, list):
            self.array(expected, actual, path, schema=schema, name=name)
        elif expected != actual:
            self.add(path, "value", expected=expected, actual=actual)

    def text(self, value: str, schema: JsonObject | None, name: str | None) -> str:
        """A string as compared semantically: a normalised path, else trimmed or kept."""
        if is_exact(schema):
            return value
        if is_path(schema, name):
            return normalise_path(value)
        rule = trim_rule(schema)
        trim = self.options.trim if rule is None else rule
        return value.strip() if trim else value

    def array(
        self,
        expected: list[JsonValue],
        actual: list[JsonValue],
        path: str,
        *,
        schema: JsonObject | None,
        name: str | None,
    ) -> None:
        if len(expected) != len(actual):
            message = f"{len(actual)} items instead of {len(expected)}"
            self.add(path, "value", expected=expected, actual=actual, message=message)
            return
        for k, (e, a) in enumerate(zip(expected, actual, strict=True)):
            self.value(e, a, f"{path}[{k}]", schema=child_schema(schema, k), name=name)

    def object(
        self, expected: JsonObject, actual: JsonObject, path: str, *, schema: JsonObject | None
    ) -> None:
        everywhere = self.options.null_is_absent
        for key, value in expected.items():
            sub = f"{path}.{key}"
            sub_schema = child_schema(schema, key)
            required = is_required(schema, key)
            if key not in actual:
                if not self.absent_ok(value, sub, schema=sub_schema, name=key, required=required):
                    self.add(sub, "missing", expected=value)
            elif not reads_as_absent(
                actual[key], sub_schema, everywhere=everywhere, required=required
            ):
                self.value(value, actual[key], sub, schema=sub_schema, name=key)
            elif not self.absent_ok(value, sub, schema=sub_schema, name=key):
                self.add(sub, "missing", expected=value, message=absent_null_reason(sub_schema))
        if self.options.strict:
            for key, value in actual.items():
                if key not in expected and not reads_as_absent(
                    value,
                    child_schema(schema, key),
                    everywhere=everywhere,
                    required=is_required(schema, key),
                ):
                    self.add(f"{path}.{key}", "unexpected", actual=value)

    def absent_ok(
        self,
        expected: JsonValue,
        path: str,
        *,
        schema: JsonObject | None,
        name: str,
        required: bool = False,
    ) -> bool:
        """Whether an argument the model left out still meets the expectation.

        Where a `null` member is read as left out (`_nulls`; never a `required` one), an
        expected `null` (or a matcher naming null: `accepts_absent`) means "left out" as
        well.
        """
        everywhere = self.options.null_is_absent
        null_too = reads_as_absent(None, schema, everywhere=everywhere, required=required)
        if null_too and expected is None:
            return True
        if self.options.matchers and isinstance(expected, dict):
            matcher = parse_matcher(expected)
            if matcher is not None and accepts_absent(matcher, null_too=null_too):
                return True
        # The tool fills in its documented default, so leaving it out means the same.
        if self.options.semantic and schema and "default" in schema:
            sub = _Walker(self.options, self.depth)
            sub.value(expected, schema["default"], path, schema=schema, name=name)
            return not sub.out
        return False


def _import_matchers() -> None:
    """Replace the stand-ins `parse_matcher`, `evaluate` and `accepts_absent` by the real ones."""
    global parse_matcher, evaluate, accepts_absent
    from toolgrade.match._evaluate import accepts_absent, evaluate
    from toolgrade.match._matchers import parse_matcher
