"""A conversation's sections as a short plain-text transcript.

The text, Markdown and JUnit reports print a conversation's sections (`ConversationView`)
this way: a facts line, each turn with the user's message, each step's calls and their
abbreviated results, the reply and the turn's verdict, then the first failure and the
checks. Turns are numbered from 1. Only plain strings are built here; each writer
escapes them for its medium.
"""

from __future__ import annotations

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import CheckResult, Exchange
from toolgrade.report._plain import call_text, clip, count_text, flat, json_text
from toolgrade.report._sections import ConversationView, StepView, TurnView

__all__ = [
    "FAIL_MARK",
    "PASS_MARK",
    "RESULT_CHARS",
    "check_text",
    "exchange_mark",
    "result_text",
    "transcript_lines",
    "transcript_text",
]

PASS_MARK = "✓"
"""Marks a turn or check that held."""
FAIL_MARK = "✗"
"""Marks a turn or check that failed."""
RESULT_CHARS = 80
"""A tool result is cut to a glance; the JSON and HTML reports keep more."""


def result_text(result: JsonValue, limit: int = RESULT_CHARS) -> str:
    """A tool result as one line of JSON, cut to `limit` characters.

    Examples:
        >>> result_text({"content": "a" * 100}, 24)
        '{"content": "aaaaaaaaaa…'
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


def transcript_lines(view: ConversationView, *, indent: str = "") -> list[str]:
    """The conversation as a short transcript, one string per line.

    Per turn: the user's message, each step's calls (`→`) with their abbreviated results
    (`←`, marked when not executed normally, with the environment's note), the reply,
    and the turn's verdict; then the first failure marked `✗` and every check.

    Args:
        view: the conversation's sections.
        indent: put before every line.

    Returns:
        The lines, without line breaks.
    """
    lines = [
        f"mode: {view.mode} · turns passed: {view.turns_passed}/{view.total_turns} · "
        f"{count_text(view.steps, 'step')} · {count_text(view.calls, 'call')}"
    ]
    for turn in view.turns:
        lines += _turn_lines(turn)
    if view.unreached:
        lines.append(f"({view.unreached} turn{'s' if view.unreached > 1 else ''} not reached)")
    if view.first_failure is not None:
        lines.append(f"{FAIL_MARK} {view.first_failure}")
    if view.checks:
        lines.append("checks: " + " · ".join(check_text(c) for c in view.checks))
    for check in view.checks:
        if not check.passed:
            lines += [f"  {check.name} {m.describe()}" for m in check.details[:5]]
    return [indent + line for line in lines]


def transcript_text(view: ConversationView) -> str:
    """`transcript_lines` joined by line breaks."""
    return "\n".join(transcript_lines(view))


def _turn_lines(turn: TurnView) -> list[str]:
    head = f"turn {turn.number}"
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


def _step_lines(step: StepView) -> list[str]:
    lines: list[str] = []
    for exchange in step.exchanges:
        lines.append(f"  → {call_text(exchange.call)}")
        result = f"  ← {exchange_mark(exchange)}{result_text(exchange.result)}"
        if exchange.note:
            result += f" ({flat(exchange.note, 160)})"
        lines.append(result)
    lines += [f"  → {call_text(c)}" for c in step.calls]
    lines += [f"  ! malformed call: {flat(e, 160)}" for e in step.extraction_errors]
    if step.error:
        lines.append(f"  ! request failed: {flat(step.error, 160)}")
    return lines
