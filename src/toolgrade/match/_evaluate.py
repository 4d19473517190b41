"""Evaluating a matcher against an actual value.

Each matcher reports through the comparison that reached it (the `_Walker` of
`_values`), so paths, options and the list of differences stay one thing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from toolgrade._core.json_data import JsonObject, JsonValue, clean_text, shown_json
from toolgrade.match._matchers import (
    MAX_MATCHER_DEPTH,
    TOO_DEEP,
    Matcher,
    MatcherError,
    find_matcher,
    parse_matcher,
)
from toolgrade.match._reasons import EXPECTS_LEFT_OUT, type_phrase
from toolgrade.match._regex import compiled
from toolgrade.match._unordered import unordered_problem

if TYPE_CHECKING:
    from toolgrade.match._values import MismatchReason, _Walker

__all__ = ["MatchContext", "Problem", "accepts_absent", "evaluate", "type_matches"]

Problem: TypeAlias = "tuple[MismatchReason, str]"
"""Why a matcher failed: the reason code (`value`, `type`...) and a message."""
_Problem: TypeAlias = Problem


@dataclass(frozen=True, slots=True)
class MatchContext:
    """Where a matcher is evaluated: the comparison that reached it, and the place."""

    walker: _Walker
    """The comparison (its options, and `trial` to compare a nested expected value)."""
    expected: JsonValue
    """The whole matcher object, as the suite wrote it."""
    path: str
    """The JSON path of the value, e.g. `$.path`."""
    schema: JsonObject | None
    """The value's JSON Schema, when the tool has one."""
    name: str | None
    """The argument's name."""


def accepts_absent(matcher: Matcher, _depth: int = 0, *, null_too: bool = False) -> bool:
    """Whether a matcher is met by an argument that is not there at all.

    Args:
        matcher: the matcher.
        null_too: a `null` for this argument is read as it being left out
            (docs/matching.md), so a matcher that names null (`{"$type": "null"}`,
            `{"$literal": null}`, a `null` among `$any_of`'s alternatives) accepts
            leaving it out too, and `{"$not": null}` demands it.

    Raises:
        MatcherError: matchers nested deeper than `MAX_MATCHER_DEPTH`.
    """
    if _depth >= MAX_MATCHER_DEPTH:
        raise MatcherError([TOO_DEEP])
    spec = find_matcher(matcher.name)
    if spec is None:
        return False
    if spec.absent or (null_too and _names_null(matcher)):
        return True
    operand = matcher.operand
    if spec.nested == "negated":
        # The reverse of the operand's verdict on a missing argument: `{"$not": "w"}`
        # accepts leaving it out, `{"$not": {"$absent": true}}` demands it.
        if null_too and operand is None:
            return False
        inner = parse_matcher(operand) if isinstance(operand, dict) else None
        return inner is None or not accepts_absent(inner, _depth + 1, null_too=null_too)
    if spec.nested == "alternatives" and isinstance(operand, list):
        for alternative in operand:
            if null_too and alternative is None:
                return True
            inner = parse_matcher(alternative) if isinstance(alternative, dict) else None
            if inner is not None and accepts_absent(inner, _depth + 1, null_too=null_too):
                return True
    return False


def _names_null(matcher: Matcher) -> bool:
    """`{"$type": "null"}` or `{"$literal": null}`: the matchers that accept null only."""
    if matcher.name == "$type":
        return matcher.operand == "null"
    return matcher.name == "$literal" and matcher.operand is None


def type_matches(type_name: str, value: JsonValue) -> bool:
    """JSON Schema's type test: `integer` accepts `5.0`, booleans are never numbers."""
    if type_name == "null":
        return value is None
    if type_name == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if type_name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if type_name == "number":
        return isinstance(value, int | float)
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "array":
        return isinstance(value, list)
    return type_name == "object" and isinstance(value, dict)


def evaluate(
    walker: _Walker,
    matcher: Matcher,
    *,
    expected: JsonValue,
    actual: JsonValue,
    path: str,
    schema: JsonObject | None,
    name: str | None,
) -> None:
    """Check a present actual value against a matcher, recording any difference.

    Raises:
        MatcherError: the matcher is nested deeper than `MAX_MATCHER_DEPTH` in others.
    """
    if walker.depth >= MAX_MATCHER_DEPTH:
        raise MatcherError([f"{path}: {TOO_DEEP}"])
    spec = find_matcher(matcher.name)
    if spec is None:  # pragma: no cover - parse_matcher refuses an unknown matcher
        return
    ctx = MatchContext(walker, expected, path, schema, name)
    problem = spec.evaluate(matcher, actual, ctx)
    if problem is not None:
        walker.add(path, problem[0], expected=expected, actual=actual, message=problem[1])


def eval_absent(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$absent` with a value present (a schema violation of it is added by the judge)."""
    return ("unexpected", f"{shown_json(actual)} given where {EXPECTS_LEFT_OUT}")


def eval_present(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$present`: any present value."""
    return None


def eval_literal(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$literal`: the operand compared as a plain value (never as a matcher)."""
    literal = ctx.walker.literal()
    literal.value(matcher.operand, actual, ctx.path, schema=ctx.schema, name=ctx.name)
    ctx.walker.out.extend(literal.out)
    return None


def eval_any_of(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$any_of`: one of the alternatives."""
    op = matcher.operand
    if not isinstance(op, list):
        return None
    return _any_of(ctx.walker, op, actual, path=ctx.path, schema=ctx.schema, name=ctx.name)


def eval_not(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$not`: the operand (a value or a matcher) does not match."""
    if ctx.walker.trial(matcher.operand, actual, ctx.path, schema=ctx.schema, name=ctx.name):
        return None
    return ("value", f"matches {shown_json(matcher.operand, 60)}, which it must not")


def eval_unordered(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$unordered`: the items in any order."""
    op = matcher.operand
    if not isinstance(op, list):
        return None
    return unordered_problem(
        ctx.walker, op, actual, path=ctx.path, schema=ctx.schema, name=ctx.name
    )


def eval_type(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$type`: JSON Schema's type test."""
    op = matcher.operand
    if type_matches(str(op), actual):
        return None
    return ("type", f"{shown_json(actual)} is not {type_phrase(str(op))}")


def eval_approx(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$approx`: a number within `tol`."""
    return _approx(matcher, actual)


def eval_range(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$range`: a number from `min` to `max`, both included."""
    if isinstance(actual, bool) or not isinstance(actual, int | float):
        return ("type", f"{shown_json(actual)} is not a number")
    bounds = matcher.operand if isinstance(matcher.operand, dict) else {}
    low, high = bounds.get("min"), bounds.get("max")
    if isinstance(low, int | float) and actual < low:
        return ("value", f"{shown_json(actual)} is less than the least accepted, {shown_json(low)}")
    if isinstance(high, int | float) and actual > high:
        return (
            "value",
            f"{shown_json(actual)} is greater than the most accepted, {shown_json(high)}",
        )
    return None


def eval_text(matcher: Matcher, actual: JsonValue, ctx: MatchContext) -> Problem | None:
    """`$regex`, `$contains` and `$icase`."""
    return _text(ctx.walker, matcher, actual, schema=ctx.schema, name=ctx.name)


def _any_of(
    walker: _Walker,
    alternatives: list[JsonValue],
    actual: JsonValue,
    *,
    path: str,
    schema: JsonObject | None,
    name: str | None,
) -> _Problem | None:
    for alternative in alternatives:
        if not walker.trial(alternative, actual, path, schema=schema, name=name):
            return None
    return ("value", f"matches none of the {len(alternatives)} alternatives")


def _approx(matcher: Matcher, actual: JsonValue) -> _Problem | None:
    if isinstance(actual, bool) or not isinstance(actual, int | float):
        return ("type", f"{shown_json(actual)} is not a number")
    target = matcher.operand
    if not isinstance(target, int | float):
        return ("value", "malformed $approx")
    if _within(actual, target, matcher.tol):
        return None
    return ("value", f"differs by more than {matcher.tol:g}")


def _within(actual: int | float, target: int | float, tol: float) -> bool:
    """Whether two numbers differ by at most `tol`, never raising.

    An integer too large for a float (a model may write one) is compared exactly with
    an integer, and is far from any float.
    """
    try:
        return math.isfinite(actual) and abs(actual - target) <= tol
    except OverflowError:
        both_ints = isinstance(actual, int) and isinstance(target, int)
        return both_ints and abs(actual - target) <= tol


def _text(
    walker: _Walker,
    matcher: Matcher,
    actual: JsonValue,
    *,
    schema: JsonObject | None,
    name: str | None,
) -> _Problem | None:
    if not isinstance(actual, str):
        return ("type", f"{shown_json(actual)} is not a string")
    op = str(matcher.operand)
    text = walker.text(actual, schema, name) if walker.options.semantic else actual
    if matcher.name == "$regex":
        ok = compiled(op).fullmatch(clean_text(text)) is not None  # RE2 reads UTF-8
        return None if ok else ("value", f"does not match /{op}/")
    if matcher.name == "$contains":
        ok = op.casefold() in text.casefold()
        return None if ok else ("value", f"does not contain {op!r} (any case)")
    wanted = walker.text(op, schema, name) if walker.options.semantic else op
    ok = wanted.casefold() == text.casefold()
    return None if ok else ("value", "differs beyond letter case")
