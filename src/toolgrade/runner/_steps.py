"""One step of a conversation: reading it, executing its calls, and turns cut short.

A step's text, the text sent back with its calls, whether its calls can be read on the
event loop (native calls, small) or go to a worker thread (any text), and one call
executed in the environment (on the event loop for a scripted one, else in a bounded
worker thread).
"""

from __future__ import annotations

import logging

from toolgrade._core.json_data import JsonValue
from toolgrade._core.threads import BoundedPool
from toolgrade._core.transcript import (
    ConversationMode,
    ConversationRecord,
    Exchange,
    FirstFailure,
    Step,
)
from toolgrade._core.vocab import ToolCall
from toolgrade.environments import (
    NoToolEnvironment,
    ScriptedToolEnvironment,
    ToolEnvironment,
    TurnRun,
)
from toolgrade.judging import FaultCounter
from toolgrade.results import Status, Verdict
from toolgrade.suite import Conversation, ToolSpec

__all__ = [
    "BOUNDED_ENVIRONMENTS",
    "broken_turn",
    "call_text",
    "ended_turn",
    "execute_call",
    "only_native_calls",
    "reply_text",
    "unjudged",
]

logger = logging.getLogger("toolgrade.runner")


def ended_turn(
    index: int, user: str, steps: list[Step], message: str, *, timeout: bool = False
) -> TurnRun:
    return TurnRun(
        index=index, user=user, steps=tuple(steps), reply=None, error=message, timeout=timeout
    )


def broken_turn(conversation: Conversation, message: str, *, index: int = 0) -> TurnRun:
    """A turn that could not run: its environment failed."""
    user = conversation.turns[index].user
    return TurnRun(index=index, user=user, steps=(), reply=None, error=message)


def unjudged(conversation: Conversation, mode: ConversationMode, message: str) -> Verdict:
    record = ConversationRecord(
        mode=mode,
        total_turns=len(conversation.turns),
        first_failure=FirstFailure(cause=Status.ERROR, message=message),
    )
    return Verdict.not_scored(Status.ERROR, message, record=record)


def reply_text(raw: JsonValue) -> str:
    """The text of a reply: the output itself, or an assistant message's content."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, dict):
        content = raw.get("content")
        return content if isinstance(content, str) else ""
    return ""


def call_text(raw: JsonValue) -> str | None:
    """The text sent back with a step's calls: a native message's content only.

    Calls read out of text are written again from the calls (in the family's format in
    prompt mode), so the text that held them is not sent twice.
    """
    if isinstance(raw, dict) and raw.get("tool_calls"):
        content = raw.get("content")
        return content if isinstance(content, str) and content else None
    return None


# Environments whose every call is toolgrade's own work over the suite's data (rules with
# RE2 matchers, no code of the suite's): they run on the event loop, without a thread
# hop per call. A Python environment runs the suite's code, bounded in a worker thread.
BOUNDED_ENVIRONMENTS = (ScriptedToolEnvironment, NoToolEnvironment)
_INLINE_CALLS = 16
_INLINE_ARGUMENT_CHARS = 16 * 1024


def only_native_calls(raw: JsonValue) -> bool:
    """Whether a reply is only native tool calls, small enough to read on the event loop.

    Reading them is decoding a few short JSON strings (linear, bounded here); any text
    goes to the worker threads, where a reader that loops costs one conversation.
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


async def execute_call(
    environment: ToolEnvironment,
    faults: FaultCounter,
    call: ToolCall,
    cid: str,
    tool: ToolSpec | None,
    *,
    workers: BoundedPool,
    timeout: float,
) -> Exchange:
    """One call: a failure injected on purpose, else the environment's answer.

    The environment runs in a worker thread bounded by the timeout (a scripted one, which
    only matches rules, on the event loop): a tool that hangs or raises becomes an error
    result the model sees.
    """
    injected = faults.inject(call, call_id=cid)
    if injected is not None:
        return injected

    def execute() -> Exchange:
        return environment.execute(call, call_id=cid, tool=tool)

    try:
        if isinstance(environment, BOUNDED_ENVIRONMENTS):
            return execute()
        return await workers.call(execute, timeout=timeout)
    except TimeoutError:
        message = f"the tool took longer than {timeout:g} s"
    except Exception as exc:  # the environment must answer; a bug costs this call
        logger.warning("environment failed on %s: %s", call.name, exc)
        message = f"{type(exc).__name__}: {exc}"
    return Exchange(id=cid, call=call, result={"error": message}, outcome="error", note=message)
