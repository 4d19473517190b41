"""Reading a reply: its calls under the suite's names, its text, an agent's own steps.

Whether a reply's calls can be read on the event loop (native calls, small) or go to a
worker thread (any text), the text a turn ends with, the text sent back with a step's
calls, and the steps of an agent that ran its own tools (its message list).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.transcript import Step
from toolgrade._core.vocab import ToolCall
from toolgrade.backends import NameMap, extractable
from toolgrade.decision import reply_text
from toolgrade.extract import Extraction, extract_calls, steps_from_messages, turn_start
from toolgrade.judging import profile_reads_any_name
from toolgrade.runner._turns import Timing
from toolgrade.suite import ToolSpec

__all__ = [
    "agent_turn",
    "call_text",
    "extract_renamed",
    "only_native_calls",
    "reply_text",
]


def extract_renamed(
    raw: JsonValue, *, names: NameMap, offered: Sequence[ToolSpec], profile: str
) -> Extraction:
    """The calls of a raw output, renamed to the suite's names.

    `offered` are the tools as the model saw them (possibly renamed for the server).
    """
    # A profile that judges calls of any name (bfcl) must see every call; otherwise the
    # offered tools let extraction set aside look-alike JSON in prose.
    extraction = extract_calls(
        extractable(raw), tools=None if profile_reads_any_name(profile) else offered
    )
    return _renamed(extraction, names)


def _renamed(extraction: Extraction, names: NameMap) -> Extraction:
    if not names.to_suite or not any(c.name in names.to_suite for c in extraction.calls):
        return extraction
    calls = tuple(
        ToolCall(name=names.suite_name(c.name), arguments=c.arguments) for c in extraction.calls
    )
    return extraction.model_copy(update={"calls": calls})


def call_text(raw: JsonValue) -> str | None:
    """The text sent back with a step's calls: a native message's content only.

    Calls read out of text are written again from the calls (in the family's format in
    prompt mode), so the text that held them is not sent twice.
    """
    if isinstance(raw, dict) and raw.get("tool_calls"):
        content = raw.get("content")
        return content if isinstance(content, str) and content else None
    return None


_INLINE_CALLS = 16
_INLINE_ARGUMENT_CHARS = 16 * 1024


def only_native_calls(raw: JsonValue) -> bool:
    """Whether a reply is only native tool calls, small enough to read on the event loop.

    Reading them is decoding a few short JSON strings (linear, bounded here); any text
    goes to the worker threads, where a reader that loops costs one case.
    """
    if not isinstance(raw, dict) or raw.get("content") or raw.get("reasoning_content"):
        return False
    calls = raw.get("tool_calls")
    if not isinstance(calls, list) or not 0 < len(calls) <= _INLINE_CALLS:
        return False
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            return False
        arguments = function.get("arguments")
        if isinstance(arguments, str) and len(arguments) > _INLINE_ARGUMENT_CHARS:
            return False
        if not isinstance(arguments, str | dict | type(None)):
            return False
    return True


def agent_turn(
    messages: list[JsonValue], *, turn: int, timing: Timing
) -> tuple[tuple[Step, ...], str | None, list[JsonObject]]:
    """A Python agent's whole turn, read from its message list (it ran its own tools).

    Returns:
        The turn's steps (the last one with the reply's timing), its final text, and
        the assistant and tool messages to add to the history.
    """
    # An agent often returns its whole history: only what follows the last user
    # message is this turn's.
    taken, text = steps_from_messages(messages, turn=turn, last_turn=True)
    if taken:
        last = taken[-1].model_copy(update={k: v for k, v in timing.items() if v is not None})
        taken = (*taken[:-1], last)
    history = [
        dict(message)
        for message in messages[turn_start(messages) :]
        if isinstance(message, dict) and message.get("role") in ("assistant", "tool")
    ]
    return taken, text, history
