"""`assert_trajectory`: an agent's whole run of tool calls against the calls it should make.

Where `assert_tool_calls` judges one reply, `assert_trajectory` judges a trajectory: the
message list an agent that runs its own tools leaves behind (OpenAI style: assistant
messages with `tool_calls`, `tool` results, a final text), read step by step as the
conversation engine reads it (`toolgrade.extract._trajectory`). The calls
are compared with the expected ones under a trajectory mode (`exact`, `in_order`,
`unordered`, `subset`, `superset`: the `trajectory` check of conversation suites), and
forbidden calls, the final reply and a bound on the number of calls can be asserted too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from toolgrade._core.json_data import JsonValue
from toolgrade._core.vocab import Mismatch, ToolCall
from toolgrade.agent._check import _show, _specs
from toolgrade.calls import as_call, as_calls
from toolgrade.errors import InputError
from toolgrade.extract import is_trajectory, steps_from_messages
from toolgrade.judging import TrajectoryMatch, compare_trajectory, find_forbidden
from toolgrade.match import CallJudge, MatchOptions, compare_values
from toolgrade.suite import CallPattern, ToolSpec, TrajectoryMode

__all__ = ["assert_trajectory"]

_MODES: tuple[TrajectoryMode, ...] = ("exact", "in_order", "unordered", "subset", "superset")
_LISTED = 50
"""Calls listed in a failure message, on each side; the rest are counted."""
_REPLY_SHOWN = 200
"""Characters of the reply quoted in a failure message."""
_REPLY_OPTIONS = MatchOptions(semantic=True, matchers=True)


def _plain(item: object) -> object:
    dump = getattr(item, "model_dump", None)
    if callable(dump) and not isinstance(item, ToolCall):
        return dump(mode="json")  # an SDK's message object
    return item


def _is_call(item: object) -> bool:
    return isinstance(item, ToolCall) or (isinstance(item, Mapping) and "role" not in item)


def _read(messages: object) -> tuple[tuple[ToolCall, ...], str | None, tuple[str, ...]]:
    """The calls, the final reply and the notes on malformed items of `messages`."""
    if isinstance(messages, Mapping) and "messages" in messages:
        messages = messages["messages"]  # an agent's state, e.g. LangGraph's
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise InputError(
            f"messages: expected a list of messages or calls, got {type(messages).__name__}"
        )
    items = [_plain(m) for m in messages]
    if items and not is_trajectory(items) and all(map(_is_call, items)):
        return as_calls(items, side="messages"), None, ()
    steps, reply = steps_from_messages(items)  # type: ignore[arg-type]
    calls = tuple(c for s in steps for c in s.calls)
    return calls, reply, tuple(e for s in steps for e in s.extraction_errors)


def _reference(expected: object) -> tuple[ToolCall, ...]:
    exp: Any = [] if expected is None else expected
    if isinstance(exp, ToolCall | Mapping):
        exp = [exp]
    if not isinstance(exp, Sequence) or isinstance(exp, str):
        raise InputError("expected: must be a call, a list of calls, or None")
    return tuple(as_call(c, where=f"expected[{i}]") for i, c in enumerate(exp))


def _patterns(forbidden: object) -> tuple[CallPattern, ...]:
    if isinstance(forbidden, CallPattern | Mapping):
        forbidden = [forbidden]
    if not isinstance(forbidden, Sequence) or isinstance(forbidden, str):
        raise InputError("forbidden: must be a list of call patterns")
    try:
        return tuple(
            p if isinstance(p, CallPattern) else CallPattern.model_validate(p) for p in forbidden
        )
    except ValueError as exc:
        raise InputError(f"forbidden: {exc}") from None


class _Calls:
    """The actual calls, compared with expected calls and patterns as the judge compares."""

    def __init__(self, calls: tuple[ToolCall, ...], tools: Mapping[str, ToolSpec] | None) -> None:
        self.calls = calls
        self.tools = tools
        schemas = {n: t.parameters for n, t in (tools or {}).items()}
        self._judge = CallJudge(calls, schemas=schemas, offered=None)

    def differences(self, expected: ToolCall, j: int) -> list[Mismatch]:
        return self._judge.compare(expected, j)

    def forbidden(self, patterns: Sequence[CallPattern]) -> dict[int, CallPattern]:
        """Each call that matches a pattern, with the first it matches (as the check does)."""
        hits = {}
        for j, call in enumerate(self.calls):
            found = find_forbidden(patterns, [(0, 0, call)], tools=self.tools)
            if found:
                hits[j] = patterns[found[0].pattern]
        return hits


def _reply_problem(expected: JsonValue, reply: str | None) -> str | None:
    if expected is None:
        return None
    if reply is None:
        return f"no final reply (expected {_quote(expected)})"
    if isinstance(expected, str):
        if expected.strip() == reply.strip():
            return None
        return f"expected {_quote(expected)}, got {_quote(reply)}"
    found = compare_values(expected, reply, options=_REPLY_OPTIONS, path="$.reply")
    if not found:
        return None
    return found[0].describe()


def _quote(value: JsonValue) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= _REPLY_SHOWN else value[:_REPLY_SHOWN] + "...")
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def assert_trajectory(
    messages: object,
    expected: object,
    mode: TrajectoryMode = "in_order",
    *,
    tools: object = None,
    forbidden: object = (),
    reply: JsonValue = None,
    max_calls: int | None = None,
) -> TrajectoryMatch:
    """Assert that an agent's trajectory made the expected tool calls.

    Args:
        messages: the agent's messages (OpenAI style: assistant messages with
            `tool_calls`, arguments a JSON string or an object; `tool` results; SDK
            message objects with `model_dump`; Anthropic `tool_use` blocks), a mapping
            holding them under `messages`, or the calls themselves (`ToolCall`s or call
            mappings). Every call of every assistant message counts, in order.
        expected: one call, a list of calls, or None (no call); values may use matchers
            such as `{"$regex": "..."}`.
        mode: `exact` (the same calls in the same order, nothing else), `in_order` (the
            expected calls in this order, others allowed between), `unordered` (the same
            calls in any order), `subset` (no call outside the expected ones, some may be
            left out), `superset` (every expected call made, others allowed).
        tools: tool definitions (OpenAI or flat form, or `ToolSpec`) whose schemas guide
            value comparison; by default values are compared without schemas.
        forbidden: call patterns that must never be made: `{"name": ..., "arguments":
            {...}}`, matching a call of that tool whose named arguments all match.
        reply: the agent's final text: a string (equal after stripping) or a matcher
            such as `{"$contains": "3 files"}`; None leaves it unchecked.
        max_calls: the most calls allowed in all.

    Returns:
        The trajectory verdict (which calls matched which expected calls), when the
        assertion holds.

    Raises:
        AssertionError: the trajectory does not hold; the message lists the expected
            calls and the calls made with how they paired, the argument differences
            (path, expected, actual), forbidden calls made, and the reply's difference.
        InputError: `messages`, `expected`, `tools` or `forbidden` are malformed.

    Examples:
        >>> messages = [
        ...     {"role": "user", "content": "Fix a.md"},
        ...     {"role": "assistant", "tool_calls": [{"id": "1", "type": "function",
        ...         "function": {"name": "read", "arguments": '{"path": "a.md"}'}}]},
        ...     {"role": "tool", "tool_call_id": "1", "content": "helo"},
        ...     {"role": "assistant", "tool_calls": [{"id": "2", "type": "function",
        ...         "function": {"name": "write", "arguments": '{"path": "a.md"}'}}]},
        ...     {"role": "tool", "tool_call_id": "2", "content": "ok"},
        ...     {"role": "assistant", "content": "Fixed."}]
        >>> assert_trajectory(messages, [{"name": "write", "arguments": {"path": "a.md"}}],
        ...                   forbidden=[{"name": "delete"}], reply="Fixed.").matched
        ((0, 1),)
    """
    __tracebackhide__ = True  # pytest shows the failing test, not toolgrade's frames
    if mode not in _MODES:
        raise InputError(f"mode: expected one of {', '.join(_MODES)}, got {mode!r}")
    calls, final, notes = _read(messages)
    reference = _reference(expected)
    specs = {s.name: s for s in _specs(tools)} if tools is not None else None
    verdict = compare_trajectory(calls, reference, mode, tools=specs)
    actual = _Calls(calls, specs)
    hits = actual.forbidden(_patterns(forbidden))
    reply_problem = _reply_problem(reply, final)
    too_many = max_calls is not None and len(calls) > max_calls
    if verdict.passed and not hits and reply_problem is None and not too_many:
        return verdict
    problems = []
    if not verdict.passed:
        problems.append(f"{mode}: {verdict.message}")
    if hits:
        j = min(hits)
        more = f" (and {len(hits) - 1} more)" if len(hits) > 1 else ""
        problems.append(f"forbidden call {j + 1} made: {_show(calls[j])}{more}")
    if reply_problem is not None:
        problems.append(f"reply: {reply_problem}")
    if too_many:
        problems.append(f"{len(calls)} calls, over max_calls {max_calls}")
    report = _Report(actual, reference, verdict, mode)
    lines = [
        f"trajectory does not hold: {problems[0]}",
        *(f"  also: {p}" for p in problems[1:]),
        *report.expected_lines(),
        *report.call_lines(hits),
        *report.difference_lines(),
    ]
    if notes:
        lines.append("  malformed items in the messages:")
        lines.extend(f"    {n}" for n in notes[:_LISTED])
    raise AssertionError("\n".join(lines))


class _Report:
    """The sections of a failure message: both sides of the pairing, and the differences."""

    def __init__(
        self,
        actual: _Calls,
        reference: tuple[ToolCall, ...],
        verdict: TrajectoryMatch,
        mode: TrajectoryMode,
    ) -> None:
        self.actual = actual
        self.reference = reference
        self.verdict = verdict
        self.mode = mode
        self.to_actual = dict(verdict.matched)
        self.to_reference = {j: i for i, j in verdict.matched}
        self.near = {i: self._instead(i) for i in verdict.wrong_args}

    def _instead(self, i: int) -> int | None:
        """The call of expected call `i`'s tool made instead of it (`exact`: in its place)."""
        if self.mode == "exact":
            return i
        name = self.reference[i].name
        return next((j for j in self.verdict.unexpected if self.actual.calls[j].name == name), None)

    def expected_lines(self) -> list[str]:
        if not self.reference:
            return ["  expected: no call"]
        lines = [f"  expected ({self.mode}):"]
        for i, call in enumerate(self.reference[:_LISTED]):
            if i in self.to_actual:
                where = f"made as call {self.to_actual[i] + 1}"
            elif (near := self.near.get(i)) is not None:
                where = f"NOT MADE (call {near + 1} has other arguments)"
            elif self.mode == "exact" and i < len(self.actual.calls):
                where = f"NOT MADE (call {i + 1} is {self.actual.calls[i].name})"
            else:
                where = "not made" if self.mode == "subset" else "NOT MADE"
            lines.append(f"    {i + 1}. {_show(call)}  -> {where}")
        return [*lines, *_more(len(self.reference))]

    def call_lines(self, hits: Mapping[int, CallPattern]) -> list[str]:
        calls = self.actual.calls
        if not calls:
            return ["  called: nothing"]
        extras_fail = self.mode in ("exact", "unordered", "subset")
        lines = ["  called:"]
        for j, call in enumerate(calls[:_LISTED]):
            if j in self.to_reference:
                where = f"expected {self.to_reference[j] + 1}"
            elif self.mode == "exact" and j < len(self.reference):
                where = f"NOT EXPECTED here (expected {j + 1} is {self.reference[j].name})"
            else:
                where = "NOT EXPECTED" if extras_fail else "other call (allowed)"
            if j in hits:
                pattern = ToolCall(name=hits[j].name, arguments=hits[j].arguments)
                where += f"; FORBIDDEN ({_show(pattern)})"
            lines.append(f"    {j + 1}. {_show(call)}  -> {where}")
        return [*lines, *_more(len(calls))]

    def difference_lines(self) -> list[str]:
        lines = []
        for i, j in sorted(self.near.items()):
            if j is None:
                continue
            found = self.actual.differences(self.reference[i], j)
            if found:
                lines.append(f"  argument differences, expected {i + 1} vs call {j + 1}:")
                lines.extend(f"    {m.describe()}" for m in found)
        return lines


def _more(count: int) -> list[str]:
    return [f"    ... and {count - _LISTED} more"] if count > _LISTED else []
