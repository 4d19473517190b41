"""The assertions an agent's own tests make: on one reply, and on a whole trajectory.

`assert_tool_calls` judges one reply as a suite judges a case; `assert_trajectory` judges
the message list of an agent that runs its own tools as a suite judges a conversation of
one turn (`toolgrade.agent._judging`). Both fail with the same message layout
(`toolgrade.agent._failure`).
"""

from __future__ import annotations

from typing import Literal

from toolgrade._core.json_data import JsonValue
from toolgrade._core.vocab import Rubric
from toolgrade.agent._failure import format_failure
from toolgrade.agent._inputs import (
    MODES,
    expected_calls,
    fraction_bound,
    max_calls_bound,
    read_messages,
    read_patterns,
    tool_specs,
)
from toolgrade.agent._judging import judge_calls, judge_trajectory
from toolgrade.errors import InputError
from toolgrade.judging import TrajectoryMatch
from toolgrade.results import CaseResult, Status
from toolgrade.suite import Case, TrajectoryMode

__all__ = ["assert_tool_calls", "assert_trajectory"]


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
        AssertionError: the calls do not match; the message lists the expected calls
            and the calls made with how they paired, and the argument differences
            (path, expected, actual).
        ConfigError: `min_score` is not a number from 0 to 1.
        InputError: `actual`, `expected` or `tools` are malformed.
        SuiteError: an expected call holds a malformed matcher.

    Examples:
        >>> assert_tool_calls([{"name": "read_file", "arguments": {"path": "./a.md"}}],
        ...                   {"name": "read_file", "arguments": {"path": "a.md"}}).status
        <Status.CORRECT: 'correct'>
    """
    __tracebackhide__ = True  # pytest shows the failing test, not toolgrade's frames
    if min_score is not None:
        min_score = fraction_bound("min_score", min_score)
    case = Case(id="assert_tool_calls", prompt="", expected=expected_calls(expected), order=order)
    result = judge_calls(actual, case, tools=tools, rubric=rubric, strict=strict)
    ok = result.status is Status.CORRECT if min_score is None else result.score >= min_score
    if not ok:
        raise AssertionError(format_failure(result, min_score=min_score, order=order))
    return result


def assert_trajectory(
    messages: object,
    expected: object,
    mode: TrajectoryMode = "in_order",
    *,
    tools: object = None,
    forbidden: object = (),
    reply: JsonValue = None,
    max_calls: int | None = None,
) -> TrajectoryMatch:
    """Assert that an agent's trajectory made the expected tool calls.

    The trajectory is judged as a suite judges a conversation of one turn whose checks
    are `trajectory` (the expected calls under `mode`), `forbidden`, `max_calls` and the
    turn's `reply`: an assertion and a suite's check never disagree.

    Args:
        messages: the agent's messages (OpenAI style: assistant messages with
            `tool_calls`, arguments a JSON string or an object; `tool` results; SDK
            message objects with `model_dump`; Anthropic `tool_use` blocks), a mapping
            holding them under `messages`, or the calls themselves (`ToolCall`s or call
            mappings). Every call of every assistant message counts, in order.
        expected: one call, a list of calls, or None (no call); values may use matchers
            such as `{"$regex": "..."}`.
        mode: `exact` (the same calls in the same order, nothing else), `in_order` (the
            expected calls in this order, others allowed between), `unordered` (the same
            calls in any order), `subset` (no call outside the expected ones, some may be
            left out), `superset` (every expected call made, others allowed).
        tools: tool definitions (OpenAI or flat form, or `ToolSpec`) whose schemas guide
            value comparison; by default values are compared without schemas.
        forbidden: call patterns that must never be made: `{"name": ..., "arguments":
            {...}}`, matching a call of that tool whose named arguments all match.
        reply: the agent's final text: a string (equal after stripping) or a matcher
            such as `{"$contains": "3 files"}`; None leaves it unchecked.
        max_calls: the most calls allowed in all.

    Returns:
        The trajectory verdict (which calls matched which expected calls), when the
        assertion holds.

    Raises:
        AssertionError: the trajectory does not hold; the message names every failing
            check, lists the expected calls and the calls made with how they paired,
            and the argument differences (path, expected, actual).
        InputError: `messages`, `expected`, `mode`, `tools`, `forbidden` or
            `max_calls` are malformed.
        SuiteError: an expected call, a pattern or the reply holds a malformed matcher.

    Examples:
        >>> messages = [
        ...     {"role": "user", "content": "Fix a.md"},
        ...     {"role": "assistant", "tool_calls": [{"id": "1", "type": "function",
        ...         "function": {"name": "read", "arguments": '{"path": "a.md"}'}}]},
        ...     {"role": "tool", "tool_call_id": "1", "content": "helo"},
        ...     {"role": "assistant", "tool_calls": [{"id": "2", "type": "function",
        ...         "function": {"name": "write", "arguments": '{"path": "a.md"}'}}]},
        ...     {"role": "tool", "tool_call_id": "2", "content": "ok"},
        ...     {"role": "assistant", "content": "Fixed."}]
        >>> assert_trajectory(messages, [{"name": "write", "arguments": {"path": "a.md"}}],
        ...                   forbidden=[{"name": "delete"}], reply="Fixed.").matched
        ((0, 1),)
    """
    __tracebackhide__ = True  # pytest shows the failing test, not toolgrade's frames
    if mode not in MODES:
        raise InputError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
    steps, final = read_messages(messages)
    outcome = judge_trajectory(
        steps,
        final,
        expected_calls(expected),
        mode,
        tools=tool_specs(tools) if tools is not None else None,
        forbidden=read_patterns(forbidden),
        expected_reply=reply,
        max_calls=max_calls_bound(max_calls),
    )
    if not outcome.passed:
        raise AssertionError(format_failure(outcome))
    return outcome.match
