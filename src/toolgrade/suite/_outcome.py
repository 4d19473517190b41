"""The outcome a turn expects: call a tool, ask the user, refuse, or answer directly.

A turn (or a case of one prompt) may say which of the four decisions a model must take
before any call (`expect`), and, for `clarify`, the arguments the user's message leaves
out (`missing`). `_expect.expected_outcome` reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol, get_args

if TYPE_CHECKING:
    from toolgrade._core.vocab import ToolCall

__all__ = ["OUTCOMES", "Outcome", "check_outcome", "outcome_conflict"]

Outcome = Literal["call", "clarify", "refuse", "answer"]
"""What a model does with a request: `call` a tool, `clarify` (ask the user for a missing
detail), `refuse` (no offered tool can do it), `answer` (directly, no tool needed)."""

OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
"""The four outcomes, in this order: call, clarify, refuse, answer."""


def outcome_conflict(
    expect: Outcome | None,
    missing: tuple[str, ...],
    *,
    expected: tuple[ToolCall, ...] | None,
    alternatives: tuple[tuple[ToolCall, ...], ...],
    any_call: bool,
) -> str | None:
    """Why a turn's `expect` and `missing` contradict its calls, or None when they agree.

    `call` needs an expected call (or `any_call`); `clarify`, `refuse` and `answer` need
    no call (`expected` null, empty or absent, no alternative with calls, no `any_call`);
    `missing` goes with `clarify` only.
    """
    if missing and expect != "clarify":
        return f"missing is set, but the turn expects {expect or 'no outcome'} (not clarify)"
    if expect is None:
        return None
    if expect == "call":
        if not (expected or any_call):
            return "expect is call, but the turn expects no call (give expected calls or any_call)"
        return None
    if expected or any(alternatives) or any_call:
        return f"expect is {expect}, but the turn expects a call (expected must be null or [])"
    return None


class _States(Protocol):
    """A turn, or a case of one prompt: what it expects and which outcome it states."""

    @property
    def expect(self) -> Outcome | None: ...
    @property
    def missing(self) -> tuple[str, ...]: ...
    @property
    def expected(self) -> tuple[ToolCall, ...] | None: ...
    @property
    def alternatives(self) -> tuple[tuple[ToolCall, ...], ...]: ...
    @property
    def any_call(self) -> bool: ...


def check_outcome(item: _States) -> None:
    """Raise `ValueError` when a turn's (or a case's) `expect` contradicts its calls.

    The model validators of `Turn` and of a case of one prompt call it.
    """
    if item.expect is None and not item.missing:
        return
    conflict = outcome_conflict(
        item.expect,
        item.missing,
        expected=item.expected,
        alternatives=item.alternatives,
        any_call=item.any_call,
    )
    if conflict is not None:
        raise ValueError(conflict)
