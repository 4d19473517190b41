"""Side-by-side argument views of expected and actual calls, differences marked.

A single case's calls are paired as its judge paired them. A conversation's are paired
turn by turn, as each turn was judged (its `PairResult`s); a call made in a turn that
expected nothing in particular is listed as `unchecked`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from toolgrade._core.toolcall import call_at
from toolgrade._core.transcript import ConversationRecord, TurnResult
from toolgrade._core.vocab import Mismatch, ToolCall
from toolgrade.report._plain import clip, json_text
from toolgrade.results import CaseResult

__all__ = ["ArgRow", "PairView", "pair_views"]

ArgState = Literal["same", "differs", "missing", "extra"]
_VALUE_CHARS = 2000
_TOP_KEY = re.compile(r"^\$\.([^.\[]+)")


@dataclass(frozen=True, slots=True)
class ArgRow:
    """One argument of a pair of calls."""

    key: str
    expected: str | None
    """The expected value as JSON; None when the expectation does not mention it."""
    actual: str | None
    """The actual value as JSON; None when the call omitted it."""
    state: ArgState
    """`differs` and `missing` are errors; `extra` is an argument nobody asked for."""


@dataclass(frozen=True, slots=True)
class PairView:
    """An expected call beside the actual call it was paired with."""

    expected: str | None
    """Expected tool name; None for an extra actual call."""
    actual: str | None
    """Actual tool name; None for a missed expected call."""
    verdict: str
    """The pair's verdict (`correct`, `wrong_args`, `wrong_tool`, `missed`, `extra`;
    `unpaired` for calls lined up by position, `unchecked` for a conversation's call
    in a turn that expected no particular calls)."""
    rows: tuple[ArgRow, ...]
    turn_number: int | None = None
    """The conversation turn (from 1) the pair belongs to; None for a single case."""


def _flagged(details: Sequence[Mismatch]) -> set[str]:
    """Top-level argument names the judge reported as different."""
    keys = set()
    for m in details:
        found = _TOP_KEY.match(m.path)
        if found:
            keys.add(found.group(1))
    return keys


def _rows(exp: ToolCall | None, act: ToolCall | None, flagged: set[str]) -> tuple[ArgRow, ...]:
    e_args = exp.arguments if exp is not None else {}
    a_args = act.arguments if act is not None else {}
    rows = []
    for key in [*e_args, *(k for k in a_args if k not in e_args)]:
        e = clip(json_text(e_args[key]), _VALUE_CHARS) if key in e_args else None
        a = clip(json_text(a_args[key]), _VALUE_CHARS) if key in a_args else None
        state: ArgState
        if a is None:
            state = "missing"
        elif e is None:
            state = "extra"
        else:
            state = "differs" if key in flagged else "same"
        rows.append(ArgRow(key=key, expected=e, actual=a, state=state))
    return tuple(rows)


_Pair = tuple[int | None, int | None, str, set[str]]


def _pairs(result: CaseResult) -> list[_Pair]:
    """(expected index, actual index, verdict, flagged argument names) per pair."""
    out: list[_Pair] = []
    if result.pairs:
        for p in result.pairs:
            # Prefer the pair's own differences; else those the case tagged with this
            # expected call; else (older results) every difference of the case.
            own = p.details or tuple(
                m for m in result.details if m.call is None or m.call == p.expected_index
            )
            flagged = _flagged(own) if p.verdict == "wrong_args" else set()
            out.append((p.expected_index, p.actual_index, p.verdict, flagged))
        return out
    # Results without a recorded pairing (e.g. timeouts): line calls up by position.
    flagged = _flagged(result.details)
    for i in range(max(len(result.expected), len(result.actual))):
        e_i = i if i < len(result.expected) else None
        a_i = i if i < len(result.actual) else None
        verdict = "missed" if a_i is None else "extra" if e_i is None else "unpaired"
        out.append((e_i, a_i, verdict, flagged))
    return out


def pair_views(result: CaseResult) -> tuple[PairView, ...]:
    """Pair the case's calls (as the judge paired them) and mark argument differences."""
    if result.conversation is not None:
        return _conversation_views(result.conversation)
    views = []
    for e_i, a_i, verdict, keys in _pairs(result):
        exp = result.expected[e_i] if e_i is not None and e_i < len(result.expected) else None
        act = result.actual[a_i] if a_i is not None and a_i < len(result.actual) else None
        views.append(
            PairView(
                expected=exp.name if exp is not None else None,
                actual=act.name if act is not None else None,
                verdict=verdict,
                rows=_rows(exp, act, keys),
            )
        )
    return tuple(views)


def _conversation_views(record: ConversationRecord) -> tuple[PairView, ...]:
    """Every turn's pairs, as the turn was judged; the calls of unchecked turns as such."""
    views: list[PairView] = []
    for turn in record.turns:
        views += _turn_views(turn)
    return tuple(views)


def _turn_views(turn: TurnResult) -> list[PairView]:
    calls = turn.calls
    number = turn.index + 1
    if not turn.pairs:
        return [PairView(None, c.name, "unchecked", _rows(None, c, set()), number) for c in calls]
    views = []
    for p in turn.pairs:
        exp = call_at(turn.expected, p.expected_index)
        act = call_at(calls, p.actual_index)
        flagged = _flagged(p.details) if p.verdict == "wrong_args" else set()
        views.append(
            PairView(
                expected=exp.name if exp is not None else None,
                actual=act.name if act is not None else None,
                verdict=p.verdict,
                rows=_rows(exp, act, flagged),
                turn_number=number,
            )
        )
    return views
