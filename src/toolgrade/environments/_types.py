"""The values that cross the conversation engine: environments and turns as run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.transcript import Exchange, Step
from toolgrade._core.vocab import ToolCall
from toolgrade.suite import ToolSpec

__all__ = ["EnvironmentFactory", "ToolEnvironment", "TurnRun"]


@runtime_checkable
class ToolEnvironment(Protocol):
    """Where a conversation's tool calls are executed: one instance per conversation run.

    Environments are deterministic: the same calls from the same initial state give the
    same results and the same state.
    """

    def execute(self, call: ToolCall, *, call_id: str, tool: ToolSpec | None) -> Exchange:
        """Execute one call (suite tool names) and say what the model sees.

        `tool` is the offered tool of that name (None: the model called a tool it was
        not offered). Never raises for anything the call holds: a bad call is an
        `Exchange` with an error result.
        """
        ...

    def state(self) -> JsonValue:
        """The state that checks read: plain JSON, a copy the caller may keep."""
        ...


EnvironmentFactory = Callable[[JsonObject], ToolEnvironment]
"""Builds a fresh environment from a conversation's `initial_state`."""


@dataclass(frozen=True, slots=True)
class TurnRun:
    """One user turn as it ran, before it is judged."""

    index: int
    """The turn's position, from 0."""
    user: str
    """The user's message."""
    steps: tuple[Step, ...]
    """The model's replies, each with its calls and their exchanges."""
    reply: str | None
    """The final text of the turn (the reply without calls), None when none came."""
    step_limit: bool = False
    """True when the turn used all its steps and the last reply still called tools."""
    error: str | None = None
    """The request failure that ended the conversation in this turn."""
    timeout: bool = False
    """True when that failure was a timeout."""
    forced: bool = False
    """True when the turn started from the reference's history and state."""
