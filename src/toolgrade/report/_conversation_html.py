"""The HTML report's conversation timelines: plain values the template lays out.

Every string here is model or suite text, cut to a bound and stripped of control
characters; the template escapes it (Jinja2 autoescaping), so nothing in a user turn,
a reply, a tool result or the state can become markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import CheckResult, ConversationRecord, Step, TurnResult
from toolgrade.report._conversation_view import StateChange, count_text, mode_label, state_diff
from toolgrade.report._describe import first_failure_text
from toolgrade.report._view import CaseView, call_text, clip, json_text, pct, terminal_safe

__all__ = [
    "CheckView",
    "ConversationPanel",
    "ExchangeView",
    "StepView",
    "TurnView",
    "conversation_panels",
]

# Bounds per value, so that one runaway conversation cannot make the page unusable; the
# JSON report keeps everything.
_TEXT_CHARS = 4000
_RESULT_CHARS = 2000
_STATE_CHARS = 8000


@dataclass(frozen=True, slots=True)
class ExchangeView:
    """One call and the result the model saw."""

    id: str
    call: str
    """`name(key=value, ...)`."""
    result: str
    """The result as indented JSON (cut)."""
    outcome: str
    """`ok`, `error`, `uncovered`, `injected` or `rejected`."""
    note: str | None
    """Why the call was not executed normally (e.g. the scripted rule that is missing)."""


@dataclass(frozen=True, slots=True)
class StepView:
    """One model reply of a turn."""

    number: int
    """From 1."""
    exchanges: tuple[ExchangeView, ...]
    calls: tuple[str, ...]
    """Calls that were never sent to the environment (the request failed, say)."""
    problems: tuple[str, ...]
    """Malformed calls and a failed request."""


@dataclass(frozen=True, slots=True)
class TurnView:
    """One user turn as the timeline shows it."""

    number: int
    """From 1."""
    user: str
    steps: tuple[StepView, ...]
    reply: str | None
    passed: bool
    checked: bool
    verdict: str
    """`passed`, `failed: <cause> — <message>`, or `not checked`."""
    forced: bool
    """Started from the reference's history and state (teacher forcing)."""
    first_failure: bool
    """The conversation first failed in this turn."""


@dataclass(frozen=True, slots=True)
class CheckView:
    """One end-of-conversation check."""

    name: str
    passed: bool
    deciding: bool
    message: str
    details: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConversationPanel:
    """A whole conversation: its summary line and its timeline."""

    name: str
    status: str
    passed: bool
    headline: str
    facts: str
    """`on-policy · 2/3 turns passed · 5 steps · 4 calls`."""
    turns: tuple[TurnView, ...]
    unreached: int
    """Turns never reached (the conversation ended before them)."""
    first_failure: str | None
    checks: tuple[CheckView, ...]
    diff: tuple[StateChange, ...]
    """Where the final state differs from the initial one."""
    initial_state: str
    final_state: str


def conversation_panels(cases: Sequence[CaseView]) -> tuple[ConversationPanel, ...]:
    """One panel per conversation result, in run order (single cases are skipped)."""
    return tuple(_panel(c, c.result.conversation) for c in cases if c.result.conversation)


def _safe(text: str, limit: int = _TEXT_CHARS) -> str:
    return terminal_safe(clip(text, limit))


def _json(value: JsonValue, limit: int) -> str:
    return _safe(json_text(value, indent=True), limit)


def _panel(case: CaseView, record: ConversationRecord) -> ConversationPanel:
    failure = record.first_failure
    turns_passed = sum(t.passed for t in record.turns)
    facts = (
        f"{mode_label(record.mode)} · {turns_passed}/{record.total_turns} turns passed"
        f" (progress {pct(record.progress)}) · {count_text(record.steps, 'step')}"
        f" · {count_text(len(record.calls), 'call')}"
    )
    return ConversationPanel(
        name=case.name,
        status=case.result.status.value,
        passed=record.passed,
        headline=_safe(case.headline, 500),
        facts=facts,
        turns=tuple(
            _turn(t, failure is not None and failure.turn == t.index) for t in record.turns
        ),
        unreached=max(record.total_turns - len(record.turns), 0),
        first_failure=None if failure is None else _safe(first_failure_text(failure), 1000),
        checks=tuple(_check(c) for c in record.checks),
        diff=tuple(
            StateChange(
                _safe(d.path, 500),
                d.kind,
                None if d.before is None else _safe(d.before),
                None if d.after is None else _safe(d.after),
            )
            for d in state_diff(record.initial_state, record.final_state)
        ),
        initial_state=_json(record.initial_state, _STATE_CHARS),
        final_state=_json(record.final_state, _STATE_CHARS),
    )


def _turn(turn: TurnResult, first_failure: bool) -> TurnView:
    if not turn.passed:
        verdict = f"failed: {turn.cause or 'failed'}"
        if turn.message:
            verdict += f" — {turn.message}"
    else:
        verdict = "passed" if turn.checked else "not checked"
    return TurnView(
        number=turn.index + 1,
        user=_safe(turn.user),
        steps=tuple(_step(i, s) for i, s in enumerate(turn.steps)),
        reply=None if turn.reply is None else _safe(turn.reply),
        passed=turn.passed,
        checked=turn.checked,
        verdict=_safe(verdict, 1000),
        forced=turn.forced,
        first_failure=first_failure,
    )


def _step(index: int, step: Step) -> StepView:
    exchanges = tuple(
        ExchangeView(
            id=_safe(e.id, 200),
            call=_safe(call_text(e.call)),
            result=_json(e.result, _RESULT_CHARS),
            outcome=e.outcome,
            note=None if e.note is None else _safe(e.note, 1000),
        )
        for e in step.exchanges
    )
    problems = [f"malformed call: {e}" for e in step.extraction_errors]
    if step.error:
        problems.append(f"request failed: {step.error}")
    return StepView(
        number=index + 1,
        exchanges=exchanges,
        calls=() if exchanges else tuple(_safe(call_text(c)) for c in step.calls),
        problems=tuple(_safe(p, 1000) for p in problems),
    )


def _check(check: CheckResult) -> CheckView:
    return CheckView(
        name=check.name,
        passed=check.passed,
        deciding=check.deciding,
        message=_safe(check.message or "", 1000),
        details=tuple(_safe(m.describe(), 1000) for m in check.details[:50]),
    )
