"""One conversation, once: ask, extract, execute the calls, send the results back, judge.

Per user turn the model may take up to `max_steps` replies. A reply with calls is a
step: its calls are executed in the environment (failures injected on purpose first)
and their results sent back; a reply without calls ends the turn. A failed request
ends the conversation. With teacher forcing every turn starts from the reference's
history and the state the reference reaches (`judging/_reference.py`).

Nothing is written before the conversation is judged: a run stopped half-way keeps no
half-finished conversation, and a resume runs it again from the start.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.threads import BoundedPool, default_pool
from toolgrade._core.transcript import ConversationMode, Exchange, Step
from toolgrade.backends import Backend, ChatReply, ChatRequest, NameMap, RetryEvent, RetryLog
from toolgrade.environments import EnvironmentFactory, ToolEnvironment, TurnRun, environment_factory
from toolgrade.extract import steps_from_messages, turn_start
from toolgrade.judging import (
    FaultCounter,
    ReferenceReplay,
    ReferenceStates,
    assistant_message,
    call_id,
    conversation_result,
    judge_conversation,
    replay_reference,
    tool_message,
)
from toolgrade.results import CaseResult, Status, Verdict
from toolgrade.runner._case import CaseOutcome, RequestFailure, ask, extract_renamed
from toolgrade.runner._steps import (
    broken_turn,
    call_text,
    ended_turn,
    execute_call,
    only_native_calls,
    reply_text,
    unjudged,
)
from toolgrade.suite import Conversation, Rubric, ScriptedEnvironment, Suite, ToolSpec

__all__ = ["ConversationRunner", "FactoryBuilder"]

logger = logging.getLogger("toolgrade.runner")

FactoryBuilder = Callable[[Suite, Conversation], EnvironmentFactory]
"""Builds the environment factory of a conversation (default: the suite's environments)."""


@dataclass(slots=True)
class _Live:
    """A conversation in progress: its history, environment and what it cost."""

    messages: list[JsonObject]
    environment: ToolEnvironment
    faults: FaultCounter
    latency_ms: float = 0.0
    reply: ChatReply | None = None
    unreachable: bool = False
    endpoint: str | None = None


@dataclass(frozen=True, slots=True)
class _Turn:
    """What the model sees in one turn: the tools offered and their names on the wire."""

    index: int
    offered: dict[str, ToolSpec]
    sent: tuple[ToolSpec, ...]
    names: NameMap


@dataclass(frozen=True, slots=True)
class ConversationRunner:
    """Everything needed to run any conversation of one run."""

    suite: Suite
    """The suite (tools, environments, defaults)."""
    backend: Backend
    """Where requests go."""
    timeout: float
    """Seconds allowed per request (retries included), per tool call, and to judge."""
    rubric: Rubric | None
    """The run's rubric override."""
    profile: str
    """The judge's matching profile."""
    teacher_forcing: bool = False
    """Start every turn from the reference's history and state."""
    prompt_mode: bool = False
    """The tools went in the system prompt (`--mode prompt`): a profile that reads the
    model's text as BFCL's prompting decoder does needs to know."""
    base_dir: Path | None = None
    """Where the suite's Python environments are looked up."""
    factories: FactoryBuilder | None = None
    """Builds a conversation's environment factory; None: `environment_factory`."""
    workers: BoundedPool = field(default_factory=default_pool)
    """Where extraction, tool calls and judging run, off the event loop and bounded."""
    warned: set[str] = field(default_factory=set)
    """Conversations already logged as run on-policy for want of a reference."""
    reference_states: ReferenceStates = field(default_factory=ReferenceStates)
    """The state each conversation's reference leaves (`final_state` from the reference)."""

    async def run(
        self,
        conversation: Conversation,
        repeat: int,
        *,
        on_retry: Callable[[RetryEvent], None] | None = None,
    ) -> CaseOutcome:
        """Run one conversation; failures become `timeout`/`error` results, never exceptions.

        `on_retry` is told of every retried request (to log it).
        """
        forced = self._forced(conversation)
        mode: ConversationMode = "teacher_forced" if forced else "on_policy"
        retries = RetryLog(on_retry=on_retry)
        names = NameMap.build(
            (t.name for t in self.suite.tools_for_turn(conversation, len(conversation.turns) - 1)),
            enabled=self.backend.safe_names,
        )
        runs: list[TurnRun] = []
        live: _Live | None = None
        initial: JsonValue = None
        try:
            factory = self._factory(conversation)
        except Exception as exc:  # a suite's environment that cannot load costs this case
            return await self._finish(
                conversation, repeat, [broken_turn(conversation, f"environment: {exc}")], mode=mode
            )
        left = partial(self.reference_states.of, self.suite, conversation, factory)
        for index, turn in enumerate(conversation.turns):
            if forced or live is None:
                # On-policy the first turn builds the environment; forced, every turn
                # starts from the reference's first `index` turns.
                start = await self._start(conversation, factory, turns=index if forced else 0)
                if isinstance(start, str):
                    runs.append(broken_turn(conversation, start, index=index))
                    break
                if live is None:
                    initial = start.initial_state
                live = _Live(
                    messages=list(start.messages),
                    environment=start.environment,
                    faults=start.faults,
                    latency_ms=live.latency_ms if live else 0.0,
                    reply=live.reply if live else None,
                    endpoint=live.endpoint if live else None,
                )
            offered = self.suite.tools_for_turn(conversation, index)
            view = _Turn(index, {t.name: t for t in offered}, names.rename_tools(offered), names)
            run = await self._turn(
                conversation, turn.user, turn.max_steps, view, live, repeat, retries
            )
            runs.append(dataclasses.replace(run, forced=True) if forced else run)
            if run.error is not None:
                break
        return await self._finish(
            conversation, repeat, runs, mode=mode, initial=initial, live=live, left=left
        )

    def _forced(self, conversation: Conversation) -> bool:
        if not self.teacher_forcing:
            return False
        if conversation.reference is None:
            if conversation.id not in self.warned:
                self.warned.add(conversation.id)
                logger.warning(
                    "conversation %s has no reference: it runs on-policy (teacher forcing"
                    " needs one)",
                    conversation.id,
                )
            return False
        return True

    def _factory(self, conversation: Conversation) -> EnvironmentFactory:
        if self.factories is not None:
            return self.factories(self.suite, conversation)
        return environment_factory(self.suite, conversation, base_dir=self.base_dir)

    def _bounded_environment(self, conversation: Conversation) -> bool:
        """Whether the conversation's environment is one of toolgrade's own (not code)."""
        if self.factories is not None:
            return False
        name = conversation.environment
        return name is None or isinstance(self.suite.environments.get(name), ScriptedEnvironment)

    async def _start(
        self, conversation: Conversation, factory: EnvironmentFactory, *, turns: int
    ) -> ReferenceReplay | str:
        """A fresh environment with the reference's first `turns` turns replayed.

        An error message instead when the environment fails to build or overruns.
        """

        def start() -> ReferenceReplay:
            return replay_reference(self.suite, conversation, factory, turns=turns)

        try:
            if self._bounded_environment(conversation):
                return start()
            return await self.workers.call(start, timeout=self.timeout)
        except TimeoutError:
            return f"the environment took longer than {self.timeout:g} s to start"
        except Exception as exc:  # a suite's environment that fails costs this case
            return f"environment: {exc}"

    async def _turn(
        self,
        conversation: Conversation,
        user: str,
        max_steps: int,
        view: _Turn,
        live: _Live,
        repeat: int,
        retries: RetryLog,
    ) -> TurnRun:
        """One user turn: up to `max_steps` replies, each step's calls executed."""
        live.messages.append({"role": "user", "content": user})
        steps: list[Step] = []
        index = view.index
        for step in range(max_steps):
            request = ChatRequest(
                case_id=conversation.id,
                messages=view.names.rename_messages(live.messages),
                tools=view.sent,
                repeat=repeat,
                turn=index,
                step=step,
            )
            started = time.perf_counter()
            reply = await ask(self.backend, request, retries, timeout=self.timeout)
            elapsed = (time.perf_counter() - started) * 1000.0
            if isinstance(reply, RequestFailure):
                live.latency_ms += elapsed
                live.unreachable = reply.unreachable
                live.endpoint = reply.endpoint
                steps.append(Step(error=reply.message, latency_ms=elapsed, endpoint=reply.endpoint))
                timeout = reply.status is Status.TIMEOUT
                return ended_turn(index, user, steps, reply.message, timeout=timeout)
            latency = reply.latency_ms if reply.latency_ms is not None else elapsed
            live.latency_ms += latency
            live.reply = reply
            live.endpoint = reply.endpoint
            timing = {
                "latency_ms": latency,
                "ttft_ms": reply.ttft_ms,
                "finish_reason": reply.finish_reason,
                "endpoint": reply.endpoint,
            }
            if reply.error is not None:
                steps.append(Step(raw_response=reply.raw, error=reply.error, **timing))
                return ended_turn(index, user, steps, reply.error)
            if isinstance(reply.raw, list):  # an agent that ran its own tools: the whole turn
                return self._agent_turn(index, user, steps, reply.raw, live, timing)
            extract = partial(
                extract_renamed,
                reply.raw,
                names=view.names,
                offered=view.sent,
                profile=self.profile,
            )
            try:
                if only_native_calls(reply.raw):
                    extraction = extract()
                else:
                    extraction = await self.workers.call(extract, timeout=self.timeout)
            except TimeoutError:
                message = f"extraction took longer than {self.timeout:g} s on this output"
                steps.append(Step(raw_response=reply.raw, error=message, **timing))
                return ended_turn(index, user, steps, message)
            said = Step(
                raw_response=reply.raw,
                calls=extraction.calls,
                extraction_format=extraction.format,
                extraction_errors=tuple(e.message for e in extraction.errors),
                **timing,
            )
            if not extraction.calls:
                text = reply_text(reply.raw)
                steps.append(said)
                live.messages.append({"role": "assistant", "content": text})
                return TurnRun(index=index, user=user, steps=tuple(steps), reply=text)
            ids = tuple((call_id(index, step, k), c) for k, c in enumerate(extraction.calls))
            live.messages.append(assistant_message(call_text(reply.raw), ids))
            exchanges: list[Exchange] = []
            for cid, call in ids:
                exchange = await execute_call(
                    live.environment,
                    live.faults,
                    call,
                    cid,
                    view.offered.get(call.name),
                    workers=self.workers,
                    timeout=self.timeout,
                )
                exchanges.append(exchange)
                live.messages.append(tool_message(exchange))
            steps.append(said.model_copy(update={"exchanges": tuple(exchanges)}))
        return TurnRun(index=index, user=user, steps=tuple(steps), reply=None, step_limit=True)

    def _agent_turn(
        self,
        index: int,
        user: str,
        steps: list[Step],
        messages: list[JsonValue],
        live: _Live,
        timing: dict[str, float | str | None],
    ) -> TurnRun:
        """A Python agent's whole turn, read from its message list (no environment)."""
        # An agent often returns its whole history: only what follows the last user
        # message is this turn's.
        taken, text = steps_from_messages(messages, turn=index, last_turn=True)
        if taken:
            last = taken[-1].model_copy(update={k: v for k, v in timing.items() if v is not None})
            taken = (*taken[:-1], last)
        steps.extend(taken)
        for message in messages[turn_start(messages) :]:
            if isinstance(message, dict) and message.get("role") in ("assistant", "tool"):
                live.messages.append(dict(message))
        return TurnRun(index=index, user=user, steps=tuple(steps), reply=text)

    async def _finish(
        self,
        conversation: Conversation,
        repeat: int,
        runs: Sequence[TurnRun],
        *,
        mode: ConversationMode,
        initial: JsonValue = None,
        live: _Live | None = None,
        left: Callable[[], JsonValue] | None = None,
    ) -> CaseOutcome:
        """Judge the turns as run and build the result.

        The final state is read and the turns judged in a worker thread, bounded by the
        timeout: an environment whose `state()` hangs costs this conversation only.
        `left` gives the state the reference leaves (None: the environment could not be
        built, so neither can that state).
        """
        rubric = self.rubric
        environment = live.environment if live is not None else None

        def judged() -> Verdict:
            return judge_conversation(
                self.suite,
                conversation,
                runs,
                initial_state=initial,
                final_state=environment.state() if environment is not None else None,
                mode=mode,
                rubric=rubric,
                profile=self.profile,
                prompt_mode=self.prompt_mode,
                reference_state=left or _unbuilt,
            )

        try:
            verdict = await self.workers.call(judged, timeout=self.timeout)
        except TimeoutError:
            verdict = unjudged(conversation, mode, f"judging took longer than {self.timeout:g} s")
        except Exception as exc:  # a judging bug must cost one conversation, not the run
            logger.error("judging conversation %s failed", conversation.id, exc_info=exc)
            verdict = unjudged(conversation, mode, f"judging failed: {exc}")
        error = next((r.error for r in runs if r.error is not None), None)
        latency = live.latency_ms if live is not None else 0.0
        result: CaseResult = conversation_result(
            conversation, verdict, rubric=rubric, repeat=repeat, error=error, latency_ms=latency
        )
        if live is not None and live.endpoint is not None:
            result = result.model_copy(update={"endpoint": live.endpoint})
        return CaseOutcome(
            result,
            live.reply if live is not None else None,
            unreachable=live is not None and live.unreachable,
        )


def _unbuilt() -> JsonValue:
    raise RuntimeError("the environment could not be built")
