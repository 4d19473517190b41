"""Streamed and whole answers compared: what a client would receive, told apart.

A server has two paths to the client, streamed (deltas assembled by the client) and
whole, and the trackers are full of servers whose paths disagree. Two answers are the
same when a client reading them gets the same thing: the same serving class (a call
parsed on one path may be left in the text on the other), the same calls (name and
canonical arguments, in order), and, when there is no call, the same text (spaces
folded). `compare_answers` says what differs, in words; `stream_check` makes the
record of one sampled case asked three times (whole, streamed, whole again: the second
whole answer tells the stream's fault from sampling noise); `stream_summary` is the
one line a run prints.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonValue
from toolgrade._core.vocab import ToolCall
from toolgrade.extract import extract_calls, is_trajectory
from toolgrade.results import StreamCheck, StreamVerdict
from toolgrade.serving._classes import ServingClass
from toolgrade.serving._classify import Answer, ServingVerdict, classify_answer

__all__ = ["Asked", "compare_answers", "served", "stream_check", "stream_summary"]

_SHOWN = 60
_LISTED = 3


@dataclass(frozen=True, slots=True)
class Asked:
    """One answer to a request, or why none came.

    Examples:
        >>> Asked({"role": "assistant", "content": "Hi"}).failure is None
        True
    """

    raw: JsonValue = None
    """The raw output (an assistant message, as a result keeps it)."""
    failure: str | None = None
    """Why no answer came (the request failed or timed out)."""
    finish_reason: str | None = None
    """Why the server stopped."""


@dataclass(frozen=True, slots=True)
class _Shape:
    """What a client gets from an answer: its class, its calls, its text without calls."""

    kind: ServingClass
    calls: tuple[tuple[str, str], ...]
    arguments: tuple[JsonValue, ...]
    text: str

    def same(self, other: _Shape) -> bool:
        return (self.kind, self.calls, self.text) == (other.kind, other.calls, other.text)


def _canonical(value: JsonValue) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _readable(raw: JsonValue) -> str | dict[str, JsonValue]:
    if isinstance(raw, str | dict):
        return raw
    return "" if raw is None else json.dumps(raw, ensure_ascii=False)


def _message_text(raw: JsonValue) -> str:
    if isinstance(raw, str):
        return raw
    content = raw.get("content") if isinstance(raw, dict) else None
    return content if isinstance(content, str) else ""


def _read(asked: Asked) -> tuple[Answer, tuple[ToolCall, ...]]:
    """What a run would keep of an answer, and the calls read from it."""
    raw = asked.raw
    if is_trajectory(asked.raw):
        return Answer(raw, finish_reason=asked.finish_reason, failure=asked.failure), ()
    found = extract_calls(_readable(raw))
    answer = Answer(
        raw, found.format, found.errors, asked.finish_reason, asked.failure, len(found.calls)
    )
    return answer, found.calls


def served(asked: Asked, *, native: bool = True) -> ServingVerdict:
    """The serving verdict of one answer as it came (`classify_answer` of what it holds).

    Examples:
        >>> served(Asked({"role": "assistant", "content": None, "tool_calls": []})).kind.value
        'empty'
        >>> served(Asked(failure="HTTP 500: boom")).kind.value
        'request_failed'
    """
    return classify_answer(_read(asked)[0], native=native)


def _shape(asked: Asked, *, native: bool) -> _Shape:
    answer, calls = _read(asked)
    kind = classify_answer(answer, native=native).kind
    text = "" if calls else " ".join(_message_text(asked.raw).split())
    return _Shape(
        kind,
        tuple((c.name, _canonical(c.arguments)) for c in calls),
        tuple(c.arguments for c in calls),
        text,
    )


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _call_words(name: str, arguments: str) -> str:
    return f"{name}({_cut(arguments)})"


def _argument_difference(first: JsonValue, second: JsonValue, one: str, other: str) -> str:
    if not isinstance(first, dict) or not isinstance(second, dict):
        shown = f"{one} {_cut(_canonical(first))}, {other} {_cut(_canonical(second))}"
        return f"the arguments differ: {shown}"
    lost = [k for k in second if k not in first]
    if lost:
        return f"{one} lost the argument `{lost[0]}`"
    added = [k for k in first if k not in second]
    if added:
        return f"{one} added the argument `{added[0]}`"
    key = next(k for k in first if _canonical(first[k]) != _canonical(second[k]))
    shown = f"{one} {_cut(_canonical(first[key]))}, {other} {_cut(_canonical(second[key]))}"
    return f"the argument `{key}` differs: {shown}"


def _difference(first: _Shape, second: _Shape, one: str, other: str) -> str:
    """What differs between two answers that are not the same, in a few words."""
    if first.kind is not second.kind:
        return f"{one} came as {first.kind.value}, {other} as {second.kind.value}"
    if len(first.calls) < len(second.calls):
        name, arguments = second.calls[len(first.calls)]
        return f"{one} lost the call {_call_words(name, arguments)}"
    if len(first.calls) > len(second.calls):
        name, arguments = first.calls[len(second.calls)]
        return f"{one} added the call {_call_words(name, arguments)}"
    for index, (mine, theirs) in enumerate(zip(first.calls, second.calls, strict=True)):
        if mine[0] != theirs[0]:
            return f"{one} called {mine[0]} where {other} called {theirs[0]}"
        if mine[1] != theirs[1]:
            return _argument_difference(first.arguments[index], second.arguments[index], one, other)
    return f"the text differs: {one} {_cut(first.text)!r}, {other} {_cut(second.text)!r}"


def compare_answers(
    first: Asked,
    second: Asked,
    *,
    native: bool = True,
    names: tuple[str, str] = ("streamed", "whole"),
) -> str | None:
    """What differs between two answers a client would receive; None when nothing.

    Args:
        first: one answer (the streamed one, by default).
        second: the other.
        native: whether tools were sent in the request (`--mode native`).
        names: what to call the two answers in the sentence.

    Examples:
        >>> call = {"name": "read", "arguments": '{"path": "a"}'}
        >>> whole = Asked({"role": "assistant", "tool_calls": [{"id": "1", "function": call}]})
        >>> lost = {"name": "read", "arguments": "{}"}
        >>> streamed = Asked({"role": "assistant", "tool_calls": [{"id": "1", "function": lost}]})
        >>> compare_answers(streamed, whole)
        'streamed lost the argument `path`'
        >>> compare_answers(whole, whole) is None
        True
    """
    one, other = names
    if first.failure is not None or second.failure is not None:
        failed = one if first.failure is not None else other
        return f"the {failed} request failed: {first.failure or second.failure}"
    mine, theirs = _shape(first, native=native), _shape(second, native=native)
    if mine.same(theirs):
        return None
    return _difference(mine, theirs, one, other)


def stream_check(
    case_id: str, streamed: Asked, whole: Asked, whole_again: Asked, *, native: bool = True
) -> StreamCheck:
    """The record of one case asked whole, streamed and whole again.

    `agree`: the streamed answer is the same as the whole one; `diverge`: it differs
    while the two whole answers are the same (the streaming path changes the answer);
    `noise`: the two whole answers differ too (sampling: nothing to blame); `failed`:
    a request failed (the first failure named).
    """
    raws = {"streamed": streamed.raw, "whole": whole.raw, "whole_again": whole_again.raw}
    failed = next(
        (
            (name, asked.failure)
            for name, asked in (
                ("streamed", streamed),
                ("whole", whole),
                ("second whole", whole_again),
            )
            if asked.failure is not None
        ),
        None,
    )
    verdict: StreamVerdict
    if failed is not None:
        verdict, detail = "failed", f"the {failed[0]} request failed: {failed[1]}"
    else:
        differs = compare_answers(streamed, whole, native=native)
        again = compare_answers(whole, whole_again, native=native, names=("whole", "whole again"))
        if differs is None:
            verdict, detail = "agree", "" if again is None else f"sampling varies: {again}"
        elif again is None:
            verdict, detail = "diverge", differs
        else:
            verdict, detail = "noise", f"{differs}; the whole answers differ too: {again}"
    return StreamCheck(case_id=case_id, verdict=verdict, detail=detail, **raws)


_WORDS: dict[str, tuple[str, str]] = {
    "diverge": ("diverges", "diverge"),
    "noise": ("is noise", "are noise"),
    "failed": ("failed", "failed"),
}


def stream_summary(checks: Sequence[StreamCheck]) -> str:
    """The one line a run prints about its stream check.

    Examples:
        >>> checks = [StreamCheck(case_id="TC-1", verdict="agree"),
        ...           StreamCheck(case_id="TC-7", verdict="diverge",
        ...                       detail="streamed lost the argument `path`")]
        >>> stream_summary(checks)
        'stream check: 2 cases, 1 agree, 1 diverges: TC-7 (streamed lost the argument `path`)'
    """
    counts = Counter(c.verdict for c in checks)
    noun = "case" if len(checks) == 1 else "cases"
    parts = [f"stream check: {len(checks)} {noun}, {counts['agree']} agree"]
    for verdict, (one, many) in _WORDS.items():
        found = [c for c in checks if c.verdict == verdict]
        if not found:
            continue
        listed = ", ".join(f"{c.case_id} ({c.detail})" for c in found[:_LISTED])
        more = f", {len(found) - _LISTED} more" if len(found) > _LISTED else ""
        parts.append(f"{len(found)} {one if len(found) == 1 else many}: {listed}{more}")
    return ", ".join(parts)
