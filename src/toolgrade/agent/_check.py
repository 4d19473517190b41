"""Judging calls outside a suite: what `assert_tool_calls` and the `judge` tool share.

Accepts the forms an agent's test has at hand: `ToolCall`s, call mappings, an OpenAI or
Ollama assistant message, a whole chat-completion response, or raw text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from toolgrade._core.vocab import Rubric, ToolCall
from toolgrade.calls import as_call, as_calls
from toolgrade.errors import ConfigError, InputError
from toolgrade.extract import Extraction, extract_calls
from toolgrade.results import CaseResult, Status
from toolgrade.suite import Case, ToolSpec

__all__ = ["assert_tool_calls", "fraction_bound", "format_failure", "judge_calls"]


def fraction_bound(name: str, value: object) -> float:
    """A score or accuracy bound: a number from 0 to 1 (0.9 means 90%).

    A bound over 1 could never be reached and one under 0 could never fail, so both
    are refused, as are booleans, NaN and anything not a number.

    Args:
        name: the option, for the message (`min_accuracy`, `min_score`).
        value: the value given.

    Returns:
        The bound as a float.

    Raises:
        ConfigError: the value is not a number from 0 to 1.

    Examples:
        >>> fraction_bound("min_score", 0.5)
        0.5
        >>> fraction_bound("bound", 90)
        Traceback (most recent call last):
        ...
        toolgrade.errors.ConfigError: bound must be a fraction from 0 to 1 (0.9 for 90%), got 90
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        bound = float(value)
        if 0.0 <= bound <= 1.0:  # NaN is neither
            return bound
    raise ConfigError(f"{name} must be a fraction from 0 to 1 (0.9 for 90%), got {value!r}")


def _actual(actual: object, tools: Sequence[ToolSpec] | None) -> Extraction | tuple[ToolCall, ...]:
    if isinstance(actual, Extraction):
        return actual
    if isinstance(actual, str | Mapping):
        return extract_calls(actual, tools=list(tools) if tools else None)
    if isinstance(actual, ToolCall):
        return (actual,)
    return as_calls(actual, side="actual")


def _specs(tools: object) -> list[ToolSpec]:
    if not isinstance(tools, Sequence) or isinstance(tools, str):
        raise InputError("tools: must be a list of tool definitions")
    return [t if isinstance(t, ToolSpec) else ToolSpec.model_validate(t) for t in tools]


def _open_specs(names: set[str]) -> list[ToolSpec]:
    # No definitions given: offer every tool named on either side, with open schemas,
    # so the verdict rests on names and values alone.
    return [ToolSpec(name=n, parameters={"type": "object"}) for n in sorted(names)]


def _case(case: Case | Mapping[str, Any]) -> Case:
    if isinstance(case, Case):
        return case
    try:
        return Case.model_validate(dict(case))
    except ValueError as exc:
        raise InputError(f"case: {exc}") from None


def judge_calls(
    actual: object,
    case: Case | Mapping[str, Any],
    *,
    tools: object = None,
    rubric: Rubric | None = None,
    strict: bool = False,
) -> CaseResult:
    """Judge actual calls (in any accepted form) against a case.

    Raises:
        InputError: the case, the tools or the calls are malformed.
    """
    from toolgrade.judging import judge

    the_case = _case(case)
    specs = _specs(tools) if tools is not None else None
    found = _actual(actual, specs)
    if specs is None:
        calls = found.calls if isinstance(found, Extraction) else found
        named = {c.name for alt in (the_case.expected, *the_case.alternatives) for c in alt}
        specs = _open_specs(named | {c.name for c in calls})
    return judge(the_case, found, tools=specs, rubric=rubric, strict=strict)


def assert_tool_calls(
    actual: object,
    expected: object,
    *,
    rubric: Rubric = "binary",
    order: Literal["any", "strict"] = "any",
    min_score: float | None = None,
    tools: object = None,
    strict: bool = False,
) -> CaseResult:
    """Assert that an agent made the expected tool calls.

    Args:
        actual: the calls made: `ToolCall`s or mappings, an assistant message (OpenAI or
            Ollama shape), a whole chat-completion response, or raw model text.
        expected: one call, a list of calls, or None (no call must be made); values may
            use matchers such as `{"$regex": "..."}`.
        rubric: `binary`, `partial` or `f1`.
        order: `any`, or `strict` when the calls must come in order.
        min_score: pass when the rubric's score reaches this bound (from 0 to 1)
            instead of requiring an exactly correct case.
        tools: tool definitions (OpenAI or flat form, or `ToolSpec`) whose schemas guide
            value comparison; by default every named tool is offered with an open schema.
        strict: fail on arguments the expectation does not mention.

    Returns:
        The judge's verdict, when the assertion holds.

    Raises:
        AssertionError: the calls do not match; the message shows which calls matched,
            which arguments differ (path, expected, actual), and what is missing or extra.
        ConfigError: `min_score` is not a number from 0 to 1.

    Examples:
        >>> assert_tool_calls([{"name": "read_file", "arguments": {"path": "./a.md"}}],
        ...                   {"name": "read_file", "arguments": {"path": "a.md"}}).status
        <Status.CORRECT: 'correct'>
    """
    __tracebackhide__ = True  # pytest shows the failing test, not toolgrade's frames
    if min_score is not None:
        min_score = fraction_bound("min_score", min_score)
    exp: Any = [] if expected is None else expected
    if isinstance(exp, ToolCall | Mapping):
        exp = [exp]
    calls = [as_call(c, where=f"expected[{i}]").to_dict() for i, c in enumerate(exp)]
    case = Case(id="assert_tool_calls", prompt="", expected=calls, order=order)
    result = judge_calls(actual, case, tools=tools, rubric=rubric, strict=strict)
    ok = result.status is Status.CORRECT if min_score is None else result.score >= min_score
    if not ok:
        raise AssertionError(format_failure(result, min_score=min_score))
    return result


def _show(call: ToolCall) -> str:
    args = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
    return f"{call.name}({args})"


def format_failure(result: CaseResult, *, min_score: float | None = None) -> str:
    """Render a failed verdict the way pytest shows a diff: matched, differing, missing, extra."""
    bound = f" < min_score {min_score}" if min_score is not None else ""
    lines = [
        f"tool calls do not match: {result.status.value} "
        f"(score {result.score:.3f}{bound} under the {result.rubric} rubric)"
    ]
    sections: dict[str, list[str]] = {"matched": [], "wrong": [], "missing": [], "extra": []}
    for pair in result.pairs:
        exp = result.expected[pair.expected_index] if pair.expected_index is not None else None
        act = result.actual[pair.actual_index] if pair.actual_index is not None else None
        if pair.verdict == "correct" and act is not None:
            sections["matched"].append(_show(act))
        elif pair.verdict in ("wrong_args", "wrong_tool") and exp is not None and act is not None:
            sections["wrong"].append(f"{_show(act)}  (expected {_show(exp)})")
        elif exp is not None and act is None:
            sections["missing"].append(_show(exp))
        elif act is not None:
            sections["extra"].append(_show(act))
    titles = {
        "matched": "matched",
        "wrong": "wrong calls",
        "missing": "missing (expected, not made)",
        "extra": "extra (made, not expected)",
    }
    for key, entries in sections.items():
        if entries:
            lines.append(f"  {titles[key]}:")
            lines.extend(f"    {e}" for e in entries)
    if result.details:
        lines.append("  argument differences:")
        lines.extend(f"    {m.describe()}" for m in result.details)
    if result.extraction_errors:
        lines.append("  malformed calls in the output:")
        lines.extend(f"    {e}" for e in result.extraction_errors)
    if not result.expected and not result.actual:
        lines.append("  (no call expected and none made)")
    return "\n".join(lines)
