"""The warm-up: one request before the cases, so that no case pays a cold start.

A local server answering its first request pays for loading the model and for the
prefill of the whole prompt; with a dozen tool schemas that is thousands of tokens,
and on a small CPU it takes longer than a case is allowed. llama.cpp, Ollama and
LM Studio keep the last prompt's prefix cached, and the tools come first in every
chat template, so one request carrying the suite's system prompt and tools makes the
cases that follow pay only for their own messages.

The warm-up is not a case: it is never judged, and its latency is recorded with the
server's identity (`RunResult.server["warmup"]`). It is not bound by `--timeout`, but by
its own limit (`RunOptions.warmup_limit`, `--warmup-timeout`): a server that takes the
request and never answers stops the run as an unreachable one does, instead of holding
it in silence.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject
from toolgrade.backends import Backend, ChatRequest, NameMap
from toolgrade.errors import BackendTimeout, BackendUnreachable
from toolgrade.suite import Case, Suite

__all__ = [
    "WARMUP_PROMPT",
    "WarmUp",
    "announcement",
    "stalled_message",
    "warm_up",
    "warmup_request",
]

logger = logging.getLogger("toolgrade.runner")

WARMUP_PROMPT = "Reply with the single word OK."
"""The warm-up's user message: short to answer, and no case's prompt."""


@dataclass(frozen=True, slots=True)
class WarmUp:
    """How the warm-up went."""

    latency_ms: float
    """Time until the answer (or the failure)."""
    error: str | None = None
    """Why it failed (the run goes on: a failed warm-up costs no case)."""

    def to_json(self) -> JsonObject:
        """The record kept in `RunResult.server["warmup"]`."""
        return {"latency_ms": round(self.latency_ms, 1), "error": self.error}

    def describe(self) -> str:
        """One line for the person watching the run."""
        seconds = self.latency_ms / 1000.0
        if self.error is None:
            return f"warm-up answered in {seconds:.1f} s (not counted as a case)"
        return f"warm-up failed after {seconds:.1f} s ({self.error}); running the cases anyway"


def announcement(model: str, url: str, limit: float) -> str:
    """The line shown when the warm-up starts (it may take a while, in silence).

    Examples:
        >>> print(announcement("llamacpp/qwen", "http://localhost:8080/v1", 120.0))
        ... # doctest: +NORMALIZE_WHITESPACE
        warming up llamacpp/qwen at http://localhost:8080/v1 (the first request loads
        the model; up to 120 s, --warmup-timeout)
    """
    return (
        f"warming up {model} at {url} (the first request loads the model;"
        f" up to {limit:g} s, --warmup-timeout)"
    )


def warmup_request(suite: Suite, case: Case, *, safe_names: bool) -> ChatRequest:
    """The warm-up request: `case`'s system prompt and tools, and a neutral user message.

    Not the case itself: sending a real case twice would count its prompt once for
    nothing and, against a scripted or caching server, could change its answer.
    """
    tools = suite.tools_for(case)
    names = NameMap.build((t.name for t in tools), enabled=safe_names)
    system = [m for m in case.messages(suite.defaults.system)[:1] if m.get("role") == "system"]
    messages: list[JsonObject] = [*system, {"role": "user", "content": WARMUP_PROMPT}]
    return ChatRequest(
        case_id="warm-up",
        messages=names.rename_messages(messages),
        tools=names.rename_tools(tools),
    )


async def warm_up(
    backend: Backend, request: ChatRequest, *, stop: asyncio.Event, limit: float
) -> WarmUp | None:
    """Send the warm-up request and wait for it (at most `limit` seconds), or for `stop`.

    Returns:
        How it went; None when `stop` was set first (the request is cancelled).

    Raises:
        BackendUnreachable: nothing answers at the server's address, or the server took
            the request and sent no answer within `limit` seconds.
    """
    started = time.perf_counter()
    ask = asyncio.ensure_future(_ask(backend, request, limit=limit))
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({ask, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        if not ask.done():
            ask.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ask
    if ask.cancelled():
        return None
    error = ask.result()  # BackendUnreachable propagates from here
    return WarmUp(latency_ms=(time.perf_counter() - started) * 1000.0, error=error)


async def _ask(backend: Backend, request: ChatRequest, *, limit: float) -> str | None:
    """None when an answer came, else why not (unreachable and stalled servers raise)."""
    try:
        async with asyncio.timeout(limit):
            reply = await backend.complete(request)
    except BackendUnreachable:
        raise
    except (TimeoutError, BackendTimeout):
        raise BackendUnreachable(stalled_message(limit)) from None
    except Exception as exc:  # the warm-up must not end the run: the cases will tell
        logger.info("warm-up failed: %s: %s", type(exc).__name__, exc)
        return str(exc) or type(exc).__name__
    return reply.error


def stalled_message(limit: float) -> str:
    """The error of a server that took the warm-up request and sent no answer in time.

    Examples:
        >>> stalled_message(120.0).startswith("the server took the warm-up request")
        True
    """
    return (
        f"the server took the warm-up request but sent no answer within {limit:g} s: it is"
        " stuck, or still loading the model (allow it longer with --warmup-timeout)"
    )
