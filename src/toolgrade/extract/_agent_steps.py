"""An agent's own trajectory read as steps: the message list of an agent that runs its tools.

A `python/module:function` agent that executes its own tools returns, for one user turn,
an OpenAI-style message list (`toolgrade.extract._messages`): assistant messages
with `tool_calls`, `tool` messages answering them by `tool_call_id`, and a final
assistant message with the reply. `steps_from_messages` turns that list into the same
`Step`s the conversation loop records for a model it drives itself, so that the turn,
trajectory, reply and forbidden checks apply unchanged.

The list is model output (and agent output): it is read as data, never run; each call
goes through extraction (`extract_calls`, with its bounds on size, depth and numbers),
at most `MAX_CALLS` calls and `MAX_MESSAGES` messages are read, and whatever is
malformed becomes a note in a step's `extraction_errors`, never an exception.
Anthropic-style content blocks (`tool_use`, and `tool_result` in user messages) are read
too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from toolgrade._core.json_data import JsonValue
from toolgrade._core.problems import ExtractionProblem, ExtractionProblemReason
from toolgrade._core.transcript import Exchange, ExchangeOutcome, Step
from toolgrade._core.vocab import ToolCall
from toolgrade.extract._api import extract_calls
from toolgrade.extract._common import MAX_CALLS, MAX_OUTPUT_CHARS, check_bounds, loads_fast
from toolgrade.extract._messages import MAX_MESSAGES, message_text, message_tool_calls

__all__ = ["MAX_ID_CHARS", "steps_from_messages", "trajectory_calls", "turn_start"]

MAX_ID_CHARS = 256
"""A call id longer than this is not kept (the call gets a generated id)."""

_SHOWN = 40
"""Characters of an offending value quoted in a note."""

_SKIPPED_ROLES = frozenset({"system", "developer", "user"})


def _quote(value: object) -> str:
    text = value if isinstance(value, str) else type(value).__name__
    return repr(text[:_SHOWN] + "..." if len(text) > _SHOWN else text)


def _json_value(value: object) -> JsonValue | None:
    """`value` as plain JSON within extraction's bounds, or None when it is not."""
    try:
        check_bounds(value)
        plain: JsonValue = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return None
    return plain


def _is_parts(content: object) -> bool:
    """True for a list of content parts (`{"type": "text", ...}`), not a JSON array result."""
    if not isinstance(content, Sequence) or isinstance(content, str | bytes) or not content:
        return False
    return all(isinstance(p, Mapping) and "type" in p for p in content)


def _result(content: object) -> tuple[JsonValue, str | None]:
    """A tool message's content as the result the agent saw, and a note on it."""
    if content is None:
        return None, None
    if _is_parts(content):
        content = message_text({"content": content})
    if not isinstance(content, str):
        plain = _json_value(content)
        return plain, None if plain is not None else "the result is not JSON"
    if len(content) > MAX_OUTPUT_CHARS:
        return content[:MAX_OUTPUT_CHARS], f"the result is over {MAX_OUTPUT_CHARS} characters: cut"
    try:
        return loads_fast(content), None
    except ValueError:  # not JSON (or out of bounds): the text is the result
        return content, None


def _where(message: str, where: str) -> str:
    """An extraction note about the one call it was given, said of its place in the list."""
    if message.startswith("tool_calls[0]"):
        return where + message.removeprefix("tool_calls[0]")
    return f"{where}: {message}"


@dataclass(slots=True)
class _Draft:
    """One assistant message being read; its results arrive with later messages."""

    raw: JsonValue
    fmt: str = "none"
    calls: list[ToolCall] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    results: dict[int, tuple[JsonValue, str | None, ExchangeOutcome]] = field(default_factory=dict)
    errors: list[ExtractionProblem] = field(default_factory=list)

    def step(self) -> Step:
        exchanges = []
        for k, (call, call_id) in enumerate(zip(self.calls, self.ids, strict=True)):
            result, note, outcome = self.results.get(
                k, (None, "no tool result for this call in the trajectory", "ok")
            )
            exchanges.append(
                Exchange(id=call_id, call=call, result=result, outcome=outcome, note=note)
            )
        return Step(
            raw_response=self.raw,
            calls=tuple(self.calls),
            exchanges=tuple(exchanges),
            extraction_format=self.fmt,
            extraction_errors=tuple(self.errors),
        )


class _Reader:
    """Reads the messages in order, pairing each tool result with the call it answers."""

    def __init__(self, turn: int) -> None:
        self.turn = turn
        self.drafts: list[_Draft] = []
        self.pending: list[tuple[int, int]] = []  # (step, k) of calls not answered yet
        self.early: list[ExtractionProblem] = []  # notes before the first assistant message
        self.total = 0
        self.reply: str | None = None

    def note(self, text: str, reason: ExtractionProblemReason = "parse_error") -> None:
        problem = ExtractionProblem(reason=reason, message=text)
        (self.drafts[-1].errors if self.drafts else self.early).append(problem)

    def read(self, i: int, message: object) -> None:
        if not isinstance(message, Mapping):
            self.note(f"messages[{i}]: not a message object ({type(message).__name__})")
            return
        role = message.get("role")
        if role == "assistant":
            self.assistant(i, message)
        elif role in ("tool", "function"):
            name = message.get("name")
            self.tool_result(i, message.get("tool_call_id"), message.get("content"), name=name)
        elif role == "user" and isinstance(message.get("content"), list | tuple):
            self.tool_results(i, message["content"])
        elif role not in _SKIPPED_ROLES:
            self.note(f"messages[{i}]: unknown role {_quote(role)} skipped")

    def assistant(self, i: int, message: Mapping[str, object]) -> None:
        raw = _json_value(message)
        draft = _Draft(raw=raw)
        self.drafts.append(draft)
        if raw is None:
            self.note(f"messages[{i}]: not plain JSON (or nested too deeply)")
        step = len(self.drafts) - 1
        items = message_tool_calls(message)
        for k, item in enumerate(items):
            if self.total >= MAX_CALLS:
                self.note(f"more than {MAX_CALLS} tool calls: the rest are not read", "too_large")
                break
            self.total += 1
            found = extract_calls({"role": "assistant", "content": None, "tool_calls": [item]})
            draft.fmt = found.format if found.calls else draft.fmt
            where = f"messages[{i}].tool_calls[{k}]"
            draft.errors.extend(
                e.model_copy(update={"message": _where(e.message, where)}) for e in found.errors
            )
            for call in found.calls:
                draft.ids.append(self.call_id(item, step, len(draft.calls)))
                draft.calls.append(call)
                self.pending.append((step, len(draft.calls) - 1))
        text = message_text(message)
        if items:
            self.reply = None
        elif text is None:
            self.reply = None
            self.note(f"messages[{i}]: content is neither text nor a list of parts")
        elif len(text) > MAX_OUTPUT_CHARS:
            self.reply = text[:MAX_OUTPUT_CHARS]
            self.note(f"messages[{i}]: reply over {MAX_OUTPUT_CHARS} characters: cut", "too_large")
        else:
            self.reply = text

    def call_id(self, item: object, step: int, k: int) -> str:
        given = item.get("id") if isinstance(item, Mapping) else None
        if isinstance(given, str) and 0 < len(given) <= MAX_ID_CHARS:
            return given
        return f"call_{self.turn}_{step}_{k}"

    def tool_results(self, i: int, blocks: Sequence[object]) -> None:
        for block in blocks:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                failed = block.get("is_error") is True
                self.tool_result(i, block.get("tool_use_id"), block.get("content"), failed=failed)

    def tool_result(
        self, i: int, call_id: object, content: object, *, name: object = None, failed: bool = False
    ) -> None:
        slot = self.find(i, call_id, name)
        if slot is None:
            return
        self.pending.remove(slot)
        result, note = _result(content)
        step, k = slot
        self.drafts[step].results[k] = (result, note, "error" if failed else "ok")

    def find(self, i: int, call_id: object, name: object) -> tuple[int, int] | None:
        call_id = None if call_id == "" else call_id
        if call_id is not None and not isinstance(call_id, str):
            self.note(f"messages[{i}]: a tool result whose call id is not text, ignored")
            return None
        for slot in self.pending:
            step, k = slot
            if call_id is not None:
                if self.drafts[step].ids[k] == call_id:
                    return slot
            elif name is None or self.drafts[step].calls[k].name == name:
                return slot  # no id: the first call still waiting (of that name)
        what = f"unknown call id {_quote(call_id)}" if call_id else "no waiting call"
        self.note(f"messages[{i}]: a tool result for {what}, ignored")
        return None

    def finish(self) -> tuple[tuple[Step, ...], str | None]:
        if self.early:
            if not self.drafts:
                return (Step(extraction_errors=tuple(self.early)),), None
            self.drafts[0].errors[:0] = self.early
        return tuple(d.step() for d in self.drafts), self.reply


def turn_start(messages: Sequence[object]) -> int:
    """The index after the last user message that is the user speaking (not tool results)."""
    for i in range(min(len(messages), MAX_MESSAGES) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, Mapping) and message.get("role") == "user":
            content = message.get("content")
            blocks = content if isinstance(content, list | tuple) else ()
            if not blocks or any(
                not isinstance(b, Mapping) or b.get("type") != "tool_result" for b in blocks
            ):
                return i + 1
    return 0


def steps_from_messages(
    messages: Sequence[JsonValue], *, turn: int = 0, last_turn: bool = False
) -> tuple[tuple[Step, ...], str | None]:
    """Read an agent's message list for one turn as steps, and its final reply.

    Each assistant message is one step: its calls (`tool_calls` with arguments as a JSON
    string or an object, the legacy `function_call`, or `tool_use` blocks) and their
    exchanges, built from the `tool` messages answering them by `tool_call_id` (a result
    without an id answers the first call still waiting). A result's content is parsed as
    JSON when it is JSON, else kept as text. User and system messages are skipped.

    Args:
        messages: the agent's messages (untrusted: never raises on what they hold).
        turn: the turn, for the ids of calls that came without one
            (`call_<turn>_<step>_<k>`).
        last_turn: read only what follows the last user message: for an agent that
            returns its whole history (the messages it was sent, then its own), so that
            earlier turns are not read again. Notes still count messages from 0.

    Returns:
        The steps, and the text of the last assistant message when it made no call
        (None otherwise).

    Examples:
        >>> steps, reply = steps_from_messages([
        ...     {"role": "user", "content": "Read a.md"},
        ...     {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
        ...         "function": {"name": "read", "arguments": '{"path": "a.md"}'}}]},
        ...     {"role": "tool", "tool_call_id": "c1", "content": '{"text": "hi"}'},
        ...     {"role": "assistant", "content": "It says hi."}])
        >>> [c.name for c in steps[0].calls], steps[0].exchanges[0].result, reply
        (['read'], {'text': 'hi'}, 'It says hi.')
    """
    reader = _Reader(turn)
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        note = f"the trajectory is not a list of messages ({type(messages).__name__})"
        problem = ExtractionProblem(reason="parse_error", message=note)
        return (Step(extraction_errors=(problem,)),), None
    start = turn_start(messages) if last_turn else 0
    for i, message in enumerate(messages[start:], start):
        if i >= MAX_MESSAGES:
            reader.note(f"more than {MAX_MESSAGES} messages: the rest are not read", "too_large")
            break
        reader.read(i, message)
    return reader.finish()


def trajectory_calls(messages: Sequence[JsonValue]) -> tuple[ToolCall, ...]:
    """Every call of an agent's message list, in order (see `steps_from_messages`).

    Examples:
        >>> trajectory_calls([{"role": "assistant", "tool_calls": [
        ...     {"function": {"name": "ls", "arguments": {}}}]}])
        (ToolCall(name='ls', arguments={}),)
    """
    steps, _ = steps_from_messages(messages)
    return tuple(c for s in steps for c in s.calls)
