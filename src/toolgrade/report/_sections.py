"""The optional sections of a case view: a conversation's turns, steps, checks and state.

A case view (`CaseView`) is the same for every case; a conversation adds these
sections (`CaseView.conversation`), built once from its `ConversationRecord`: the
turns numbered from 1 (the record counts from 0) with their steps and tool
exchanges, which turn failed first, the end checks, and the difference between the
environment's initial and final state. The values are whole: each format cuts and
escapes them for its medium (the text transcript to a glance, the HTML timeline to
its own bounds).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import (
    CheckResult,
    ConversationRecord,
    Exchange,
    Step,
    TurnResult,
)
from toolgrade._core.vocab import ToolCall
from toolgrade.report._describe import first_failure_text
from toolgrade.report._plain import clip, json_text, mode_label

__all__ = [
    "ConversationView",
    "StateChange",
    "StepView",
    "TurnView",
    "state_diff",
]

_STATE_CHANGES = 200
_VALUE_CHARS = 200

ChangeKind = Literal["added", "removed", "changed"]


@dataclass(frozen=True, slots=True)
class StepView:
    """One model reply of a turn."""

    number: int
    """From 1."""
    exchanges: tuple[Exchange, ...]
    """Each call with the result the model saw (outcome and note when not run normally)."""
    calls: tuple[ToolCall, ...]
    """Calls that were never sent to the environment (the request failed, say); empty
    when the step has exchanges."""
    extraction_errors: tuple[str, ...]
    """Malformed calls."""
    error: str | None
    """Why the request failed."""
    raw_response: JsonValue
    """The model's raw reply."""

    @property
    def problems(self) -> tuple[str, ...]:
        """`malformed call: ...` for each malformed call, then `request failed: ...`."""
        problems = [f"malformed call: {e}" for e in self.extraction_errors]
        if self.error:
            problems.append(f"request failed: {self.error}")
        return tuple(problems)


@dataclass(frozen=True, slots=True)
class TurnView:
    """One user turn."""

    number: int
    """From 1."""
    user: str
    """The user's message."""
    steps: tuple[StepView, ...]
    reply: str | None
    """The model's final answer in the turn."""
    passed: bool
    checked: bool
    """The turn had expectations to check."""
    forced: bool
    """Started from the reference's history and state (teacher forcing)."""
    cause: str | None
    """Why the turn failed."""
    message: str | None
    """What failed, in words."""
    first_failure: bool
    """The conversation first failed in this turn."""

    @property
    def verdict(self) -> str:
        """`passed`, `failed: <cause> — <message>`, or `not checked`."""
        if not self.passed:
            verdict = f"failed: {self.cause or 'failed'}"
            return f"{verdict} — {self.message}" if self.message else verdict
        return "passed" if self.checked else "not checked"


@dataclass(frozen=True, slots=True)
class StateChange:
    """One difference between the environment's initial and final state."""

    path: str
    """JSON Pointer (RFC 6901) into the state; empty for the whole state."""
    kind: ChangeKind
    """`added`, `removed` or `changed`."""
    before: str | None
    """The initial value as JSON (cut); None when added."""
    after: str | None
    """The final value as JSON (cut); None when removed."""


@dataclass(frozen=True)
class ConversationView:
    """A conversation's sections of its case view."""

    mode: str
    """`on-policy` or `teacher-forced`."""
    passed: bool
    turns_passed: int
    total_turns: int
    """Turns of the conversation, reached or not."""
    progress: float
    """Share of the turns passed."""
    steps: int
    """Model replies, over every turn."""
    calls: int
    """Tool calls, over every turn."""
    turns: tuple[TurnView, ...]
    """The turns reached."""
    first_failure: str | None
    """Where and why the conversation first failed (`turn 2: wrong_args — ...`)."""
    checks: tuple[CheckResult, ...]
    """The end checks."""
    initial_state: JsonValue
    final_state: JsonValue

    @property
    def unreached(self) -> int:
        """Turns never reached (the conversation ended before them)."""
        return max(self.total_turns - len(self.turns), 0)

    @cached_property
    def diff(self) -> tuple[StateChange, ...]:
        """Where the final state differs from the initial one (`state_diff`)."""
        return state_diff(self.initial_state, self.final_state)

    @classmethod
    def of(cls, record: ConversationRecord) -> ConversationView:
        """The sections of one conversation."""
        failure = record.first_failure
        first_turn = None if failure is None else failure.turn
        return cls(
            mode=mode_label(record.mode),
            passed=record.passed,
            turns_passed=sum(t.passed for t in record.turns),
            total_turns=record.total_turns,
            progress=record.progress,
            steps=record.steps,
            calls=len(record.calls),
            turns=tuple(_turn(t, first_turn == t.index) for t in record.turns),
            first_failure=None if failure is None else first_failure_text(failure),
            checks=record.checks,
            initial_state=record.initial_state,
            final_state=record.final_state,
        )


def _turn(turn: TurnResult, first_failure: bool) -> TurnView:
    return TurnView(
        number=turn.index + 1,
        user=turn.user,
        steps=tuple(_step(i, s) for i, s in enumerate(turn.steps)),
        reply=turn.reply,
        passed=turn.passed,
        checked=turn.checked,
        forced=turn.forced,
        cause=turn.cause,
        message=turn.message,
        first_failure=first_failure,
    )


def _step(index: int, step: Step) -> StepView:
    return StepView(
        number=index + 1,
        exchanges=step.exchanges,
        calls=() if step.exchanges else step.calls,
        extraction_errors=tuple(e.message for e in step.extraction_errors),
        error=step.error,
        raw_response=step.raw_response,
    )


def state_diff(
    initial: JsonValue, final: JsonValue, *, limit: int = _STATE_CHANGES
) -> tuple[StateChange, ...]:
    """The paths where the final state differs from the initial one.

    Objects are compared key by key and lists item by item (extra items are added or
    removed); any other difference is a change of the value at that path.

    Args:
        initial: the state at the start.
        final: the state at the end.
        limit: at most this many changes (the first ones in document order).

    Returns:
        The changes, in document order.

    Examples:
        >>> [(c.path, c.kind) for c in state_diff({"a": 1, "b": [1]}, {"b": [1, 2], "c": 0})]
        [('/a', 'removed'), ('/b/1', 'added'), ('/c', 'added')]
    """
    out: list[StateChange] = []
    for change in _walk("", initial, final):
        if len(out) >= limit:
            break
        out.append(change)
    return tuple(out)


def _walk(path: str, before: JsonValue, after: JsonValue) -> Iterator[StateChange]:
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        yield from _walk_object(path, before, after)
    elif isinstance(before, list) and isinstance(after, list):
        yield from _walk_list(path, before, after)
    elif type(before) is not type(after) or before != after:
        yield StateChange(path, "changed", _shown(before), _shown(after))


def _walk_object(
    path: str, before: Mapping[str, JsonValue], after: Mapping[str, JsonValue]
) -> Iterator[StateChange]:
    for key in [*before, *(k for k in after if k not in before)]:
        child = f"{path}/{_escape(key)}"
        if key not in after:
            yield StateChange(child, "removed", _shown(before[key]), None)
        elif key not in before:
            yield StateChange(child, "added", None, _shown(after[key]))
        else:
            yield from _walk(child, before[key], after[key])


def _walk_list(
    path: str, before: Sequence[JsonValue], after: Sequence[JsonValue]
) -> Iterator[StateChange]:
    for i in range(max(len(before), len(after))):
        child = f"{path}/{i}"
        if i >= len(after):
            yield StateChange(child, "removed", _shown(before[i]), None)
        elif i >= len(before):
            yield StateChange(child, "added", None, _shown(after[i]))
        else:
            yield from _walk(child, before[i], after[i])


def _escape(key: str) -> str:
    """A JSON Pointer reference token (RFC 6901: `~` as `~0`, `/` as `~1`)."""
    return key.replace("~", "~0").replace("/", "~1")


def _shown(value: JsonValue) -> str:
    return clip(json_text(value), _VALUE_CHARS)
