"""The turn's bookkeeping: what the model is shown, and what a case leaves as it runs.

A `TurnView` is one user turn as the model sees it: the messages that open it, the tools
offered and their names on the wire (`Wire`), the replies it may take. A single case is one
turn of one reply, opened by its own messages; a conversation's turn is opened by the
user's message, after the history so far. `Live` is a case in progress: its history,
the environment that executes its calls (none for a single case), and what its
requests cost. `ended_turn` is a turn cut short.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.transcript import Step
from toolgrade._core.trusted import trusted_builder
from toolgrade.backends import ChatReply, NameMap
from toolgrade.environments import ToolEnvironment, TurnRun
from toolgrade.judging import FaultCounter
from toolgrade.runner._request import RequestFailure
from toolgrade.suite import Case, Suite, ToolSpec

__all__ = ["Live", "Timing", "TurnView", "Wire", "ended_turn", "replied_turn", "turn_views"]


Timing = dict[str, float | str | None]
"""A reply's `latency_ms`, `ttft_ms`, `finish_reason` and `endpoint`, as its step keeps them."""


@dataclass(frozen=True, slots=True)
class TurnView:
    """One user turn as the model sees it."""

    index: int
    """The turn's position, from 0."""
    user: str
    """The user's message, as the turn's record keeps it."""
    opening: tuple[JsonObject, ...]
    """The messages the turn adds to the history before its first request."""
    max_steps: int
    """Model replies the turn may take."""
    offered: tuple[ToolSpec, ...]
    """The tools offered, under the suite's names."""
    sent: tuple[ToolSpec, ...]
    """The same tools, named as the server sees them."""
    names: NameMap
    """Suite names to wire names and back (one map for all of a case's turns)."""

    def tool(self, name: str) -> ToolSpec | None:
        """The offered tool of this (suite) name, if any."""
        return next((t for t in self.offered if t.name == name), None)


@dataclass(frozen=True, slots=True)
class Wire:
    """A run's tools as the server sees them: names made safe when the backend asks.

    The suite's own tool list, which every case that narrows nothing is offered
    (`Suite.tools_for` returns it), is mapped and renamed once per run, not per case.
    """

    safe_names: bool
    """Rename tools to names OpenAI-compatible servers accept (`Backend.safe_names`)."""
    tools: tuple[ToolSpec, ...]
    """The suite's tools."""
    names: NameMap
    """Their names on the wire."""
    sent: tuple[ToolSpec, ...]
    """Their definitions as sent."""

    @classmethod
    def of(cls, suite: Suite, *, safe_names: bool) -> Wire:
        """The wire of a run of `suite`."""
        names = NameMap.build((t.name for t in suite.tools), enabled=safe_names)
        return cls(safe_names, suite.tools, names, names.rename_tools(suite.tools))

    def name_map(self, tools: Sequence[ToolSpec]) -> NameMap:
        """The wire names of a list of tools."""
        return NameMap.build((t.name for t in tools), enabled=self.safe_names)

    def offer(self, tools: tuple[ToolSpec, ...]) -> tuple[NameMap, tuple[ToolSpec, ...]]:
        """The wire names of a list of tools, and their definitions as sent."""
        if tools is self.tools:
            return self.names, self.sent
        names = self.name_map(tools)
        return names, names.rename_tools(tools)


def turn_views(suite: Suite, case: Case, wire: Wire) -> Iterator[TurnView]:
    """The turns of a case, in order: a single case is one turn of one reply.

    A conversation's views are built as the loop reaches each turn: one that ends early
    (a failed request) never works out the tools of the turns it did not reach.
    """
    if case.single:
        tools = suite.tools_for(case)
        names, sent = wire.offer(tools)
        opening = tuple(case.messages(suite.defaults.system))
        return iter((TurnView(0, case.turns[0].text, opening, 1, tools, sent, names),))
    return _conversation_views(suite, case, wire)


def _conversation_views(suite: Suite, conversation: Case, wire: Wire) -> Iterator[TurnView]:
    # One map for every turn: the last turn offers every tool any turn adds.
    names = wire.name_map(suite.tools_for_turn(conversation, len(conversation.turns) - 1))
    for index, turn in enumerate(conversation.turns):
        tools = suite.tools_for_turn(conversation, index)
        sent = names.rename_tools(tools)
        yield TurnView(index, turn.text, tuple(turn.opening()), turn.max_steps, tools, sent, names)


@dataclass(slots=True)
class Live:
    """A case in progress: its history, environment and what its requests cost."""

    messages: list[JsonObject]
    """The history in toolgrade's neutral shape (suite names)."""
    environment: ToolEnvironment | None = None
    """Executes the calls; None for a single case, whose turn is one reply."""
    faults: FaultCounter | None = None
    """The calls counted so far, for failures injected on purpose."""
    initial_state: JsonValue = None
    """The environment's state when the case started."""
    latency_ms: float = 0.0
    """The requests' time so far."""
    reply: ChatReply | None = None
    """The last reply that came."""
    unreachable: bool = False
    """True when the last request found nothing at the server's address."""
    endpoint: str | None = None
    """With several endpoints: the one the last request went to."""

    def failed(self, failure: RequestFailure, elapsed: float) -> Step:
        """Count a request that got no usable reply; the step that records it."""
        self.latency_ms += elapsed
        self.unreachable = failure.unreachable
        self.endpoint = failure.endpoint
        return Step(error=failure.message, latency_ms=elapsed, endpoint=failure.endpoint)

    def replied(self, reply: ChatReply, elapsed: float) -> Timing:
        """Count a reply (its own latency, else `elapsed`); its timing, for its step."""
        latency = reply.latency_ms if reply.latency_ms is not None else elapsed
        self.latency_ms += latency
        self.reply = reply
        self.endpoint = reply.endpoint
        return {
            "latency_ms": latency,
            "ttft_ms": reply.ttft_ms,
            "finish_reason": reply.finish_reason,
            "endpoint": reply.endpoint,
        }


def ended_turn(
    view: TurnView, steps: list[Step], message: str, *, timeout: bool = False
) -> TurnRun:
    """A turn cut short: a failed request, an unreadable reply, an environment that failed.

    The last (without steps) ends the case before its turn asks anything.
    """
    return TurnRun(
        index=view.index,
        user=view.user,
        steps=tuple(steps),
        reply=None,
        error=message,
        timeout=timeout,
    )


_build_step = trusted_builder(Step)


def replied_turn(view: TurnView, steps: list[Step], raw: JsonValue, timing: Timing) -> TurnRun:
    """The turn of a reply whose calls nothing executes (a single case's one reply).

    Its step is built from the reply as it came, without validating it again: the
    backend gave a JSON value, and the case judge reads the reply itself, not this
    record of it.
    """
    step = _build_step(
        {
            "raw_response": raw,
            "calls": (),
            "exchanges": (),
            "extraction_format": None,
            "extraction_errors": (),
            "latency_ms": timing["latency_ms"],
            "ttft_ms": timing["ttft_ms"],
            "finish_reason": timing["finish_reason"],
            "error": None,
            "endpoint": timing["endpoint"],
        }
    )
    steps.append(step)
    return TurnRun(index=view.index, user=view.user, steps=tuple(steps), reply=None)
