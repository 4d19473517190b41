"""Reading what an agent's test has at hand, for both assertions and the `judge` tool.

The calls of one reply come as `ToolCall`s, call mappings, an OpenAI or Ollama assistant
message, a whole chat-completion response or raw text; a trajectory as an agent's message
list (or a mapping holding it under `messages`, or the calls themselves). Expected calls
are one call, a list of calls or None; tools are definitions in any accepted form;
forbidden calls are patterns. Whatever is malformed raises `InputError`, naming the
argument.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from toolgrade._core.transcript import Step
from toolgrade._core.vocab import ToolCall
from toolgrade.calls import as_call, as_calls
from toolgrade.errors import ConfigError, InputError
from toolgrade.extract import Extraction, extract_calls, is_trajectory, steps_from_messages
from toolgrade.suite import CallPattern, Case, ToolSpec, TrajectoryMode

__all__ = [
    "MODES",
    "expected_calls",
    "fraction_bound",
    "max_calls_bound",
    "open_specs",
    "read_case",
    "read_messages",
    "read_patterns",
    "read_reply",
    "tool_specs",
]

MODES: tuple[TrajectoryMode, ...] = get_args(TrajectoryMode)
"""The trajectory modes, in the order a message lists them."""


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


def max_calls_bound(value: object) -> int | None:
    """`max_calls`: None, or a whole number from 0.

    Raises:
        InputError: anything else.
    """
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise InputError(f"max_calls: must be a whole number from 0, got {value!r}")


def read_reply(
    actual: object, tools: Sequence[ToolSpec] | None
) -> Extraction | tuple[ToolCall, ...]:
    """The calls of one reply: text and messages are extracted, calls read as calls.

    Raises:
        InputError: a list holding something that is not a call.
    """
    if isinstance(actual, Extraction):
        return actual
    if isinstance(actual, str | Mapping):
        return extract_calls(actual, tools=list(tools) if tools else None)
    if isinstance(actual, ToolCall):
        return (actual,)
    return as_calls(actual, side="actual")


def _plain(item: object) -> object:
    dump = getattr(item, "model_dump", None)
    if callable(dump) and not isinstance(item, ToolCall):
        return dump(mode="json")  # an SDK's message object
    return item


def _is_call(item: object) -> bool:
    return isinstance(item, ToolCall) or (isinstance(item, Mapping) and "role" not in item)


def read_messages(messages: object) -> tuple[tuple[Step, ...], str | None]:
    """An agent's trajectory as the steps of one turn, and its final reply.

    Messages are read step by step as a conversation's turn is
    (`toolgrade.extract.steps_from_messages`): each assistant message is a step, a
    malformed call a step's extraction error. A plain list of calls is one step per
    call, with no reply.

    Raises:
        InputError: `messages` is not a list (or a mapping holding one under
            `messages`), or a list of calls holds something that is not a call.
    """
    if isinstance(messages, Mapping) and "messages" in messages:
        messages = messages["messages"]  # an agent's state, e.g. LangGraph's
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise InputError(
            f"messages: expected a list of messages or calls, got {type(messages).__name__}"
        )
    items = [_plain(m) for m in messages]
    if items and not is_trajectory(items) and all(map(_is_call, items)):
        calls = as_calls(items, side="messages")
        return tuple(Step(calls=(c,)) for c in calls), None
    return steps_from_messages(items)  # type: ignore[arg-type]


def expected_calls(expected: object) -> tuple[ToolCall, ...]:
    """The expected calls: one call, a list of calls, or None (no call).

    Raises:
        InputError: anything else, or a malformed call (named `expected[i]`).
    """
    exp: Any = [] if expected is None else expected
    if isinstance(exp, ToolCall | Mapping):
        exp = [exp]
    if not isinstance(exp, Sequence) or isinstance(exp, str | bytes):
        raise InputError("expected: must be a call, a list of calls, or None")
    return tuple(as_call(c, where=f"expected[{i}]") for i, c in enumerate(exp))


def tool_specs(tools: object) -> list[ToolSpec]:
    """Tool definitions (OpenAI or flat form, or `ToolSpec`) as `ToolSpec`s.

    Raises:
        InputError: not a list, or a malformed definition.
    """
    if not isinstance(tools, Sequence) or isinstance(tools, str | bytes):
        raise InputError("tools: must be a list of tool definitions")
    specs = []
    for i, tool in enumerate(tools):
        try:
            specs.append(tool if isinstance(tool, ToolSpec) else ToolSpec.model_validate(tool))
        except ValueError as exc:
            raise InputError(f"tools[{i}]: {exc}") from None
    return specs


def open_specs(names: set[str]) -> list[ToolSpec]:
    """Every tool named, with an open schema: values are compared without schemas."""
    return [ToolSpec(name=n, parameters={"type": "object"}) for n in sorted(names)]


def read_case(case: Case | Mapping[str, Any]) -> Case:
    """A case, or a mapping read as one.

    Raises:
        InputError: a malformed case.
    """
    if isinstance(case, Case):
        return case
    try:
        return Case.model_validate(dict(case))
    except ValueError as exc:
        raise InputError(f"case: {exc}") from None


def read_patterns(forbidden: object) -> tuple[CallPattern, ...]:
    """Forbidden call patterns: one pattern or a list (`{"name"|"tool": ..., "arguments": ...}`).

    Raises:
        InputError: not a list, or a malformed pattern.
    """
    if isinstance(forbidden, CallPattern | Mapping):
        forbidden = [forbidden]
    if not isinstance(forbidden, Sequence) or isinstance(forbidden, str | bytes):
        raise InputError("forbidden: must be a list of call patterns")
    try:
        return tuple(
            p if isinstance(p, CallPattern) else CallPattern.model_validate(p) for p in forbidden
        )
    except ValueError as exc:
        raise InputError(f"forbidden: {exc}") from None
