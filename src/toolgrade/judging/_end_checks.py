"""The end-of-conversation checks, one function each, every one a `CheckResult`.

`final_state` compares the environment's state with an expectation (what it mentions,
or all of it), `unchanged` reads state paths (JSON Pointers) at the start and the end,
`trajectory` compares all calls with a reference list, `forbidden` looks for calls
that must never be made, `max_calls` bounds their number, and `turns` says whether
every turn held what it stated. Values compare as the judge compares arguments
(`toolgrade.match`: trimmed strings, matchers such as `{"$regex": ...}`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.transcript import CheckResult, TurnResult
from toolgrade._core.vocab import Mismatch, ToolCall
from toolgrade.environments import get_pointer, path_step, pointer_to_path
from toolgrade.judging._trajectory import (
    TrajectoryMatch,
    compare_trajectory,
    describe_call,
)
from toolgrade.match import (
    MatchOptions,
    accepts_absent,
    compare_arguments,
    compare_values,
    is_matcher,
    parse_matcher,
)
from toolgrade.suite import (
    CallPattern,
    Case,
    FinalStateCheck,
    SuiteDefaults,
    ToolSpec,
    TrajectoryCheck,
)

__all__ = [
    "ForbiddenHit",
    "check_final_state",
    "check_forbidden",
    "check_max_calls",
    "check_trajectory",
    "check_turns",
    "check_unchanged",
    "find_forbidden",
    "forbidden_result",
    "trajectory_result",
]


def _options(
    defaults: SuiteDefaults | None,
    *,
    strict: bool = False,
    matchers: bool = True,
    arguments: bool = False,
) -> MatchOptions:
    trim = defaults.trim_strings if defaults else True
    null = arguments and defaults is not None and defaults.null_is_absent  # calls, not states
    return MatchOptions(
        strict=strict, semantic=True, matchers=matchers, trim=trim, null_is_absent=null
    )


def _summary(what: str, details: Sequence[Mismatch]) -> str:
    more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
    return f"{what}: {details[0].describe()}{more}"


def check_final_state(
    spec: FinalStateCheck,
    state: JsonValue,
    *,
    defaults: SuiteDefaults | None = None,
    reference: JsonObject | None = None,
) -> CheckResult:
    """Compare the state at the end with the expected state.

    As a subset (the default), only what the expectation mentions is checked: objects
    key by key, recursively; any other value (arrays included) compares whole, and may
    be a matcher (`{"$absent": true}` for a key that must not be there). With `exact`,
    the whole state must equal it, with no other key anywhere. A check `from_reference`
    expects `reference`, the state the reference leaves, read literally (an object with
    `$` keys in it is data, not a matcher).

    Args:
        spec: the check.
        state: the environment's state at the end.
        defaults: the suite's defaults (`trim_strings`).
        reference: the state the reference leaves (for a check `from_reference`; None:
            not known, and the check fails).

    Returns:
        The result; `details` holds each difference with its JSON path
        (`$.files["a.md"]`).

    Raises:
        MatcherError: the expectation holds a malformed matcher.

    Examples:
        >>> spec = FinalStateCheck(state={"files": {"a.md": {"$contains": "usage"}}})
        >>> check_final_state(spec, {"files": {"a.md": "Usage: x", "b": ""}}).passed
        True
        >>> check_final_state(spec, {"files": {}}).message
        'state differs: $.files["a.md"]: missing (expected {"$contains": "usage"})'
    """
    expected = reference if spec.from_reference else spec.state
    if expected is None:
        message = "the state the reference leaves is not known"
        return CheckResult(name="final_state", passed=False, message=message)
    options = _options(defaults, strict=spec.exact, matchers=not spec.from_reference)
    out: list[Mismatch] = []
    _compare_state(expected, state, "$", out, options=options)
    if not out:
        return CheckResult(name="final_state", passed=True)
    return CheckResult(
        name="final_state",
        passed=False,
        message=_summary("state differs", out),
        details=tuple(out),
    )


def _compare_state(
    expected: JsonValue, actual: JsonValue, path: str, out: list[Mismatch], *, options: MatchOptions
) -> None:
    """Objects key by key (paths with quoted keys); anything else by `compare_values`."""
    matcher = options.matchers and is_matcher(expected)
    if not isinstance(expected, dict) or matcher or not isinstance(actual, dict):
        out.extend(compare_values(expected, actual, options=options, path=path))
        return
    for key, value in expected.items():
        sub = path + path_step(key)
        if key in actual:
            _compare_state(value, actual[key], sub, out, options=options)
        elif not (options.matchers and _absent_ok(value)):
            out.append(Mismatch(path=sub, reason="missing", expected=value))
    if options.strict:
        for key, value in actual.items():
            if key not in expected:
                out.append(Mismatch(path=path + path_step(key), reason="unexpected", actual=value))


def _absent_ok(expected: JsonValue) -> bool:
    matcher = parse_matcher(expected) if isinstance(expected, dict) else None
    return matcher is not None and accepts_absent(matcher)


def check_unchanged(paths: Sequence[str], initial: JsonValue, final: JsonValue) -> CheckResult:
    """Check that state paths hold at the end what they held at the start.

    A path missing at both ends is unchanged; one that appears or disappears changed.
    Values compare exactly (`1 == 1.0`, nothing trimmed).

    Args:
        paths: JSON Pointers (RFC 6901) into the state, e.g. `/files/README.md`.
        initial: the state at the start.
        final: the state at the end.

    Returns:
        The result; `details` holds one difference per changed path.

    Raises:
        ValueError: a malformed pointer (suites are validated when loaded).

    Examples:
        >>> check_unchanged(["/a", "/b"], {"a": 1, "b": 2}, {"a": 1, "b": 3}).message
        'changed: $.b: expected 2, got 3'
    """
    out: list[Mismatch] = []
    for pointer in paths:
        had, before = get_pointer(initial, pointer)
        has, after = get_pointer(final, pointer)
        where = pointer_to_path(pointer)
        if had and has:
            if compare_values(before, after):
                out.append(Mismatch(path=where, reason="value", expected=before, actual=after))
        elif had:
            out.append(Mismatch(path=where, reason="missing", expected=before, message="removed"))
        elif has:
            out.append(Mismatch(path=where, reason="unexpected", actual=after, message="added"))
    if not out:
        return CheckResult(name="unchanged", passed=True)
    return CheckResult(
        name="unchanged", passed=False, message=_summary("changed", out), details=tuple(out)
    )


def check_trajectory(
    spec: TrajectoryCheck,
    calls: Sequence[ToolCall],
    *,
    tools: Mapping[str, ToolSpec] | None = None,
    defaults: SuiteDefaults | None = None,
) -> CheckResult:
    """Compare every call of the conversation with the reference list, under its mode.

    Raises:
        MatcherError: a reference call holds a malformed matcher.

    Examples:
        >>> spec = TrajectoryCheck(calls=[{"name": "ls"}], mode="exact")
        >>> check_trajectory(spec, [ToolCall(name="ls"), ToolCall(name="ls")]).message
        'exact: 2 calls instead of 1: call 2 (ls) is not in the reference'
    """
    match = compare_trajectory(calls, spec.calls, spec.mode, tools=tools, defaults=defaults)
    return trajectory_result(spec, match)


def trajectory_result(spec: TrajectoryCheck, match: TrajectoryMatch) -> CheckResult:
    """The `CheckResult` of a trajectory already compared (`compare_trajectory`)."""
    if match.passed:
        return CheckResult(name="trajectory", passed=True)
    return CheckResult(name="trajectory", passed=False, message=f"{spec.mode}: {match.message}")


@dataclass(frozen=True, slots=True)
class ForbiddenHit:
    """A forbidden call: where it was made and which pattern it matches."""

    turn: int
    """The turn, from 0."""
    step: int
    """The step within the turn, from 0."""
    call: ToolCall
    """The call."""
    pattern: int
    """The index of the first pattern it matches."""


def find_forbidden(
    patterns: Sequence[CallPattern],
    calls: Sequence[tuple[int, int, ToolCall]],
    *,
    tools: Mapping[str, ToolSpec] | None = None,
    defaults: SuiteDefaults | None = None,
) -> tuple[ForbiddenHit, ...]:
    """Every call that matches a forbidden pattern, in the order made.

    A call matches a pattern when it names the same tool and every argument the
    pattern names matches (values or matchers, compared as the judge compares, the
    call's arguments coerced by the tool's schema); arguments it does not name are
    not looked at.

    Args:
        patterns: the forbidden patterns.
        calls: `(turn, step, call)` for each call made, in order.
        tools: the tools by name, for their schemas.
        defaults: the suite's defaults (`trim_strings`, `null_is_absent`).

    Returns:
        The forbidden calls.

    Raises:
        MatcherError: a pattern holds a malformed matcher.
    """
    options = _options(defaults, arguments=True)
    hits: list[ForbiddenHit] = []
    for turn, step, call in calls:
        for k, pattern in enumerate(patterns):
            if pattern.name != call.name:
                continue
            tool = (tools or {}).get(call.name)
            schema = tool.parameters if tool is not None else None
            if not compare_arguments(
                pattern.arguments, call.arguments, options=options, schema=schema
            ):
                hits.append(ForbiddenHit(turn, step, call, k))
                break
    return tuple(hits)


def check_forbidden(
    patterns: Sequence[CallPattern],
    calls: Sequence[tuple[int, int, ToolCall]],
    *,
    tools: Mapping[str, ToolSpec] | None = None,
    defaults: SuiteDefaults | None = None,
) -> CheckResult:
    """Check that no call matches a forbidden pattern (see `find_forbidden`).

    Examples:
        >>> pattern = CallPattern(name="rm", arguments={"path": {"$not": {"$regex": "tmp/.*"}}})
        >>> calls = [(0, 0, ToolCall(name="rm", arguments={"path": "tmp/x"})),
        ...          (1, 2, ToolCall(name="rm", arguments={"path": "src"}))]
        >>> check_forbidden([pattern], calls).message
        'forbidden call rm({"path": "src"}) in turn 2, step 3'
    """
    return forbidden_result(find_forbidden(patterns, calls, tools=tools, defaults=defaults))


def forbidden_result(hits: Sequence[ForbiddenHit]) -> CheckResult:
    """The `CheckResult` of forbidden calls already found (`find_forbidden`)."""
    if not hits:
        return CheckResult(name="forbidden", passed=True)
    first = hits[0]
    message = (
        f"forbidden call {describe_call(first.call)} in turn {first.turn + 1}, "
        f"step {first.step + 1}"
    )
    if len(hits) > 1:
        message += f" (and {len(hits) - 1} more)"
    return CheckResult(name="forbidden", passed=False, message=message)


def check_max_calls(n: int, count: int) -> CheckResult:
    """Check that the conversation made at most `n` calls.

    Examples:
        >>> check_max_calls(3, 4).message
        '4 calls, more than the 3 allowed'
    """
    if count <= n:
        return CheckResult(name="max_calls", passed=True)
    return CheckResult(
        name="max_calls", passed=False, message=f"{count} calls, more than the {n} allowed"
    )


def check_turns(
    turn_results: Sequence[TurnResult], *, conversation: Case | None = None
) -> CheckResult:
    """Check that every turn held what it stated, and that none hit its step limit.

    Args:
        turn_results: the turns reached, judged.
        conversation: the conversation, to count the turns never reached (after a
            failed request) that state something as failed.

    Returns:
        The result; its message names the first failing turn (from 1).
    """
    failing = [t for t in turn_results if not t.passed and (t.checked or t.cause == "step_limit")]
    reached = {t.index for t in turn_results}
    unreached = [
        i
        for i, turn in enumerate(conversation.turns if conversation is not None else ())
        if i not in reached and turn.states_anything
    ]
    if not failing and not unreached:
        return CheckResult(name="turns", passed=True)
    if failing:
        first = failing[0]
        what = f"turn {first.index + 1}: {first.cause}"
        message = f"{what}: {first.message}" if first.message else what
    else:
        message = f"turn {unreached[0] + 1} was never reached"
    count = len(failing) + len(unreached)
    if count > 1:
        message += f" (and {count - 1} more failing turns)"
    return CheckResult(name="turns", passed=False, message=message)
