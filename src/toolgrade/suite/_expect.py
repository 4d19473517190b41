"""`expected_outcome`: the outcome a turn or a case of one prompt expects."""

from __future__ import annotations

from toolgrade.suite._case import Case
from toolgrade.suite._outcome import Outcome
from toolgrade.suite._turn import Turn

__all__ = ["expected_outcome"]


def expected_outcome(turn: Turn | Case) -> Outcome | None:
    """The outcome a turn expects: its `expect`, else `call` when it expects calls.

    A turn that says nothing (`expect` absent) and expects calls (or any call, `any_call`)
    expects `call`. Otherwise None: a turn that must make no call does not say whether
    the model should ask, refuse or answer, and a turn whose calls are unchecked says
    nothing at all. A case of one prompt is read through its one turn; a conversation's
    turns are read one by one.

    Raises:
        ValueError: `turn` is a conversation (a case written as turns).

    Examples:
        >>> from toolgrade.suite import Case, Turn
        >>> expected_outcome(Turn(user="Weather?", expected=None, expect="clarify",
        ...                       missing=["city"]))
        'clarify'
        >>> expected_outcome(Case(id="c", prompt="Read a.txt",
        ...                       expected={"tool": "read", "arguments": {"path": "a.txt"}}))
        'call'
        >>> expected_outcome(Case(id="c", prompt="Hi!", expected=None)) is None
        True
    """
    if isinstance(turn, Case):
        if not turn.single:
            raise ValueError(f"case {turn.id!r} is a conversation: give one of its turns")
        first = turn.turns[0]
    else:
        first = turn
    if first.expect is not None:
        return first.expect
    if first.any_call or first.expected:
        return "call"
    return None
