"""How a conversation reads in reports: its transcript, its first failure, its state diff.

A conversation's `CaseResult` carries a `ConversationRecord` (turns, steps, tool
exchanges, checks). This module turns it into plain strings and small value objects
that every format shares: the short transcript the text, Markdown and JUnit reports
print, the line naming the first failure, and the difference between the
environment's initial and final state (the HTML timeline shows it as a table).

Turns are numbered from 1 in every report (`turn 2` is the second user message), while
the record and call ids count from 0. Model and suite text is untrusted: only plain
strings are built here; each writer escapes them for its medium.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import (
    CheckResult,
    ConversationMode,
    ConversationRecord,
    Exchange,
    Step,
    TurnResult,
)
from toolgrade.report._describe import first_failure_text
from toolgrade.report._view import call_text, clip, json_text

__all__ = [
    "FAIL_MARK",
    "PASS_MARK",
    "StateChange",
    "check_text",
    "count_text",
    "exchange_mark",
    "flat",
    "mode_label",
    "result_text",
    "state_diff",
    "transcript_lines",
    "transcript_text",
]

PASS_MARK = "✓"
"""Marks a turn or check that held."""
FAIL_MARK = "✗"
"""Marks a turn or check that failed."""

# A transcript is a summary: tool results are cut to a glance, user and assistant text to
# a few lines' worth; the JSON and HTML reports keep everything.
RESULT_CHARS = 80
TEXT_CHARS = 240
_STATE_CHANGES = 200
_VALUE_CHARS = 200

_MODES: dict[str, str] = {
    "on_policy": "on-policy",
    "teacher_forced": "teacher-forced",
}

ChangeKind = Literal["added", "removed", "changed"]


def mode_label(mode: ConversationMode | str) -> str:
    """`on_policy` -> `on-policy`, `teacher_forced` -> `teacher-forced`.

    Examples:
        >>> mode_label("teacher_forced")
        'teacher-forced'
    """
    return _MODES.get(mode, mode)


def flat(text: str, limit: int = TEXT_CHARS) -> str:
    r"""Text on one line (line breaks as `⏎`), cut to `limit` characters.

    Examples:
        >>> flat("two\nlines")
        'two ⏎ lines'
    """
    one_line = " ⏎ ".join(part.strip() for part in text.strip().splitlines())
    return clip(one_line, limit)


def result_text(result: JsonValue, limit: int = RESULT_CHARS) -> str:
    """A tool result as one line of JSON, cut to `limit` characters.

    Examples:
        >>> result_text({"content": "x" * 100}, 24)
        '{"content": "xxxxxxxxxx…'
    """
    return clip(json_text(result), limit)


def exchange_mark(exchange: Exchange) -> str:
    """`[uncovered] `, `[injected] `, `[rejected] `, `[error] `; empty for a normal result."""
    return "" if exchange.outcome == "ok" else f"[{exchange.outcome}] "


def check_text(check: CheckResult) -> str:
    """`✓ final_state`, `✗ forbidden: delete_file(...) is forbidden`, `(not deciding)` marked."""
    mark = PASS_MARK if check.passed else FAIL_MARK
    text = f"{mark} {check.name}"
    if not check.deciding:
        text += " (not deciding)"
    if not check.passed and check.message:
        text += f": {flat(check.message)}"
    return text


def transcript_lines(record: ConversationRecord, *, indent: str = "") -> list[str]:
    """The conversation as a short transcript, one string per line.

    Per turn: the user's message, each step's calls (`→`) with their abbreviated results
    (`←`, marked when not executed normally, with the environment's note), the reply,
    and the turn's verdict; then the first failure marked `✗` and every check.

    Args:
        record: the conversation.
        indent: put before every line.

    Returns:
        The lines, without line breaks.
    """
    lines = [
        f"mode: {mode_label(record.mode)} · turns passed: "
        f"{sum(t.passed for t in record.turns)}/{record.total_turns} · "
        f"{count_text(record.steps, 'step')} · {count_text(len(record.calls), 'call')}"
    ]
    for turn in record.turns:
        lines += _turn_lines(turn)
    unreached = record.total_turns - len(record.turns)
    if unreached > 0:
        lines.append(f"({unreached} turn{'s' if unreached > 1 else ''} not reached)")
    if record.first_failure is not None:
        lines.append(f"{FAIL_MARK} {first_failure_text(record.first_failure)}")
    if record.checks:
        lines.append("checks: " + " · ".join(check_text(c) for c in record.checks))
    for check in record.checks:
        if not check.passed:
            lines += [f"  {check.name} {m.describe()}" for m in check.details[:5]]
    return [indent + line for line in lines]


def transcript_text(record: ConversationRecord) -> str:
    """`transcript_lines` joined by line breaks."""
    return "\n".join(transcript_lines(record))


def count_text(n: int, noun: str) -> str:
    """`1 call`, `2 calls`."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _turn_lines(turn: TurnResult) -> list[str]:
    head = f"turn {turn.index + 1}"
    if turn.checked or not turn.passed:
        head += f" {PASS_MARK if turn.passed else FAIL_MARK}"
    if turn.forced:
        head += " (from the reference history)"
    if not turn.passed and turn.cause is not None:
        head += f" {turn.cause}"
        if turn.message:
            head += f" — {flat(turn.message)}"
    lines = [head, f"  user: {flat(turn.user)}"]
    for step in turn.steps:
        lines += _step_lines(step)
    if turn.reply is not None:
        lines.append(f"  reply: {flat(turn.reply)}")
    return lines


def _step_lines(step: Step) -> list[str]:
    lines: list[str] = []
    if step.exchanges:
        for exchange in step.exchanges:
            lines.append(f"  → {call_text(exchange.call)}")
            result = f"  ← {exchange_mark(exchange)}{result_text(exchange.result)}"
            if exchange.note:
                result += f" ({flat(exchange.note, 160)})"
            lines.append(result)
    else:
        lines += [f"  → {call_text(c)}" for c in step.calls]
    lines += [f"  ! malformed call: {flat(e, 160)}" for e in step.extraction_errors]
    if step.error:
        lines.append(f"  ! request failed: {flat(step.error, 160)}")
    return lines


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
