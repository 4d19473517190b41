"""A conversation's reference solution, replayed through its environment without a model.

Teacher forcing starts each turn from the reference's history and the state the
reference reaches; `suite check` replays the whole reference (and a model that never
calls a tool) and judges it. Both use `replay_reference`, which is pure: no backend,
no clock, the same calls from the same state every time.

Fault injection (`Case.fail`) applies to the reference as it applies to a
model: a reference that recovers from an injected error makes the failing call again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.transcript import Exchange, Step
from toolgrade._core.vocab import ToolCall
from toolgrade.environments import EnvironmentFactory, ToolEnvironment, TurnRun
from toolgrade.suite import Case, Suite, ToolSpec

__all__ = [
    "FaultCounter",
    "ReferenceReplay",
    "ReferenceStates",
    "assistant_message",
    "call_id",
    "reference_final_state",
    "replay_reference",
    "tool_message",
]


def call_id(turn: int, step: int, k: int) -> str:
    """The id of the `k`th call of a step (all from 0).

    Examples:
        >>> call_id(1, 0, 2)
        'call_1_0_2'
    """
    return f"call_{turn}_{step}_{k}"


@dataclass(slots=True)
class FaultCounter:
    """Counts each tool's calls over a conversation and fails the ones `fail` names."""

    conversation: Case
    """The conversation whose `fail` specs apply."""
    counts: dict[str, int] = field(default_factory=dict)
    """Calls made so far, per tool (suite names)."""

    def inject(self, call: ToolCall, *, call_id: str) -> Exchange | None:
        """Count the call; the injected exchange when a `FailSpec` names it, else None."""
        n = self.counts.get(call.name, 0) + 1
        self.counts[call.name] = n
        for spec in self.conversation.fail:
            if spec.tool == call.name and spec.nth == n:
                return Exchange(
                    id=call_id,
                    call=call,
                    result=spec.result,
                    outcome="injected",
                    note=f"failure injected on call {n} of {call.name}",
                )
        return None

    def copy(self) -> FaultCounter:
        """An independent counter with the same counts."""
        return FaultCounter(self.conversation, dict(self.counts))


def assistant_message(text: str | None, calls: tuple[tuple[str, ToolCall], ...]) -> JsonObject:
    """The neutral assistant message of a step: its text and its calls with their ids."""
    listed: list[JsonValue] = [
        {"id": cid, "name": c.name, "arguments": dict(c.arguments)} for cid, c in calls
    ]
    return {"role": "assistant", "content": text, "tool_calls": listed}


def tool_message(exchange: Exchange) -> JsonObject:
    """The neutral `tool` message carrying one result (text as is, anything else as JSON)."""
    result = exchange.result
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return {
        "role": "tool",
        "tool_call_id": exchange.id,
        "name": exchange.call.name,
        "content": content,
    }


@dataclass(frozen=True, slots=True)
class ReferenceReplay:
    """The reference (or a model that never calls a tool) replayed over some turns."""

    messages: tuple[JsonObject, ...]
    """The neutral history: system prompt, user turns, each reference call as its own
    assistant step with its tool result, the reference reply of each turn."""
    turn_runs: tuple[TurnRun, ...]
    """The replayed turns, as if a model had made them."""
    environment: ToolEnvironment
    """The environment after the replay."""
    initial_state: JsonValue
    """The environment's state before the replay."""
    faults: FaultCounter
    """The tool calls counted during the replay (teacher forcing goes on counting)."""


def _offered(suite: Suite, conversation: Case, turn: int) -> dict[str, ToolSpec]:
    return {t.name: t for t in suite.tools_for_turn(conversation, turn)}


def _reference_turn(
    suite: Suite,
    conversation: Case,
    index: int,
    *,
    environment: ToolEnvironment,
    faults: FaultCounter,
) -> tuple[TurnRun, list[JsonObject]]:
    reference = conversation.reference[index] if conversation.reference else None
    offered = _offered(suite, conversation, index)
    steps: list[Step] = []
    messages: list[JsonObject] = []
    for step, call in enumerate(reference.calls if reference else ()):
        cid = call_id(index, step, 0)
        exchange = faults.inject(call, call_id=cid) or environment.execute(
            call, call_id=cid, tool=offered.get(call.name)
        )
        message = assistant_message(None, ((cid, call),))
        messages += [message, tool_message(exchange)]
        steps.append(
            Step(
                raw_response=message,
                calls=(call,),
                exchanges=(exchange,),
                extraction_format="native",
            )
        )
    reply = reference.reply if reference else ""
    steps.append(Step(raw_response=reply, extraction_format="none"))
    messages.append({"role": "assistant", "content": reply})
    user = conversation.turns[index].text
    return TurnRun(index=index, user=user, steps=tuple(steps), reply=reply), messages


def replay_reference(
    suite: Suite,
    conversation: Case,
    factory: EnvironmentFactory,
    *,
    turns: int | None = None,
    no_calls: bool = False,
) -> ReferenceReplay:
    """Replay the reference's first `turns` turns (None: all) through a fresh environment.

    Args:
        suite: the suite (tools offered per turn, default system prompt).
        conversation: the conversation; without a `reference`, each turn replays as no
            call and an empty reply.
        factory: builds the environment from the conversation's `initial_state`.
        turns: how many turns to replay, from the first.
        no_calls: replay a model that never calls a tool and always replies `""`.

    Returns:
        The history, the turns as run, the environment after them, the initial state.
    """
    environment = factory(dict(conversation.initial_state))
    initial = environment.state()
    faults = FaultCounter(conversation)
    count = len(conversation.turns) if turns is None else min(turns, len(conversation.turns))
    messages: list[JsonObject] = list(conversation.messages(suite.defaults.system))
    runs: list[TurnRun] = []
    for index in range(count):
        turn = conversation.turns[index]
        user = turn.text
        messages.extend(turn.opening())
        if no_calls:
            step = Step(raw_response="", extraction_format="none")
            runs.append(TurnRun(index=index, user=user, steps=(step,), reply=""))
            messages.append({"role": "assistant", "content": ""})
            continue
        run, said = _reference_turn(
            suite, conversation, index, environment=environment, faults=faults
        )
        runs.append(run)
        messages += said
    return ReferenceReplay(
        messages=tuple(messages),
        turn_runs=tuple(runs),
        environment=environment,
        initial_state=initial,
        faults=faults,
    )


def reference_final_state(
    suite: Suite, conversation: Case, factory: EnvironmentFactory
) -> JsonValue:
    """The state the conversation's reference leaves: all of it replayed, fresh.

    What a `final_state` check `from_reference` expects. The replay is deterministic
    (`suite check` makes sure), so a runner computes it once per conversation.

    Args:
        suite: the suite.
        conversation: the conversation (with or without a `reference`).
        factory: builds the environment from the conversation's `initial_state`.

    Returns:
        The environment's state after the whole reference.
    """
    return replay_reference(suite, conversation, factory).environment.state()


@dataclass(slots=True)
class ReferenceStates:
    """The state each conversation's reference leaves, by id: each replayed once.

    A run keeps one: every repeat of a conversation (and each judging again of it)
    compares with the same state, replayed on first use.
    """

    known: dict[str, JsonValue] = field(default_factory=dict)
    """The states replayed so far, by conversation id."""

    def of(self, suite: Suite, conversation: Case, factory: EnvironmentFactory) -> JsonValue:
        """The state `conversation`'s reference leaves (see `reference_final_state`)."""
        if conversation.id not in self.known:
            self.known[conversation.id] = reference_final_state(suite, conversation, factory)
        return self.known[conversation.id]
