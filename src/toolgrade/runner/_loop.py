"""The run's one loop: every case, turn by turn, each step ask, extract, execute, answer.

A case is run as turns (`turn_views`): a single case is one turn, a conversation one per
user message. In a turn the model is asked; the calls of its reply are extracted and
executed in the environment (failures injected on purpose first) and their results
sent back, and it is asked again, up to the turn's `max_steps` replies; a reply without
calls answers the user and ends the turn. Without an environment (a single case) one
reply is the turn: nothing executes its calls, so the loop does not read them; the case
judge does, extraction and judging in one bounded worker-thread call (one thread hop per
case, one bound for both). A failed request ends the case. With teacher forcing every
turn of a conversation starts from the reference's history and the state the reference
reaches (`judging/_reference.py`).

Judging happens once, at the end (`Judging`): the case judge for a single case, the
conversation judge for a conversation. Nothing is written before: a run stopped
half-way keeps no half-finished conversation, and a resume runs it again from the
start.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from toolgrade._core.json_data import JsonValue
from toolgrade._core.threads import BoundedPool, default_pool
from toolgrade._core.transcript import ConversationMode, Exchange, Step
from toolgrade.backends import Backend, ChatRequest, RetryEvent, RetryLog
from toolgrade.environments import EnvironmentFactory, TurnRun, environment_factory
from toolgrade.judging import ReferenceStates, assistant_message, call_id, tool_message
from toolgrade.results import Status
from toolgrade.runner._environment import Stage, execute_call
from toolgrade.runner._reading import (
    agent_turn,
    call_text,
    extract_renamed,
    only_native_calls,
    reply_text,
)
from toolgrade.runner._request import RequestFailure, ask
from toolgrade.runner._turns import (
    Live,
    Timing,
    TurnView,
    Wire,
    ended_turn,
    replied_turn,
    turn_views,
)
from toolgrade.runner._verdicts import CaseOutcome, Judging
from toolgrade.suite import Case, Rubric, ScriptedEnvironment, Suite

__all__ = ["FactoryBuilder", "Runner"]

logger = logging.getLogger("toolgrade.runner")

FactoryBuilder = Callable[[Suite, Case], EnvironmentFactory]
"""Builds the environment factory of a conversation (default: the suite's environments)."""


@dataclass(frozen=True, slots=True)
class Runner:
    """Everything needed to run any case of one run, single or conversation."""

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
    """Start every turn of a conversation from the reference's history and state."""
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

    judging: Judging = field(init=False)
    """How this run judges its cases (from the fields above)."""
    wire: Wire = field(init=False)
    """The suite's tools as the server sees them."""

    def __post_init__(self) -> None:
        """Settle, once, how the run judges and what it offers the server."""
        judging = Judging(
            suite=self.suite,
            rubric=self.rubric,
            profile=self.profile,
            prompt_mode=self.prompt_mode,
            timeout=self.timeout,
            workers=self.workers,
        )
        wire = Wire.of(self.suite, safe_names=self.backend.safe_names)
        object.__setattr__(self, "judging", judging)  # frozen: only here, while building
        object.__setattr__(self, "wire", wire)

    async def run(
        self,
        case: Case,
        repeat: int,
        *,
        on_retry: Callable[[RetryEvent], None] | None = None,
    ) -> CaseOutcome:
        """Run one case; failures become `timeout`/`error` results, never exceptions.

        `on_retry` is told of every retried request (to log it).
        """
        retries = RetryLog(on_retry=on_retry)
        views = turn_views(self.suite, case, self.wire)
        stage: Stage | None = None
        if not case.single:
            forced = self._forced(case)
            try:
                stage = self._stage(case, forced=forced)
            except Exception as exc:  # a suite's environment that cannot load costs this case
                broken = [ended_turn(next(views), [], f"environment: {exc}")]
                return await self.judging.conversation(
                    case, repeat, broken, mode=_mode(forced), live=Live([]), reference_state=None
                )
        runs: list[TurnRun] = []
        live = Live([])
        for view in views:
            if stage is not None and (view.index == 0 or stage.forced):
                started = await stage.start(view.index, live)
                if isinstance(started, str):
                    runs.append(ended_turn(view, [], started))
                    break
                live = started
            run = await self._turn(case.id, view, live, repeat, retries)
            runs.append(dataclasses.replace(run, forced=True) if stage and stage.forced else run)
            if run.error is not None:
                break
        if case.single:
            return await self.judging.case(case, repeat, view, runs[0], live)
        return await self.judging.conversation(
            case,
            repeat,
            runs,
            mode=_mode(stage is not None and stage.forced),
            live=live,
            reference_state=stage.reference_state if stage is not None else None,
        )

    def _forced(self, conversation: Case) -> bool:
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

    def _stage(self, conversation: Case, *, forced: bool) -> Stage:
        """The conversation's environment (raises when the suite's cannot be built)."""
        if self.factories is not None:
            factory = self.factories(self.suite, conversation)
            bounded = False
        else:
            factory = environment_factory(self.suite, conversation, base_dir=self.base_dir)
            name = conversation.environment
            bounded = name is None or isinstance(
                self.suite.environments.get(name), ScriptedEnvironment
            )
        return Stage(
            suite=self.suite,
            conversation=conversation,
            factory=factory,
            forced=forced,
            bounded=bounded,
            workers=self.workers,
            timeout=self.timeout,
            references=self.reference_states,
        )

    async def _turn(
        self, case_id: str, view: TurnView, live: Live, repeat: int, retries: RetryLog
    ) -> TurnRun:
        """One user turn: up to `max_steps` replies, each step's calls executed.

        Without an environment (a single case) the first reply is the turn.
        """
        live.messages.extend(view.opening)
        steps: list[Step] = []
        for step in range(view.max_steps):
            request = ChatRequest(
                case_id=case_id,
                messages=view.names.rename_messages(live.messages),
                tools=view.sent,
                repeat=repeat,
                turn=view.index,
                step=step,
            )
            started = time.perf_counter()
            reply = await ask(self.backend, request, retries, timeout=self.timeout)
            elapsed = (time.perf_counter() - started) * 1000.0
            if isinstance(reply, RequestFailure):
                steps.append(live.failed(reply, elapsed))
                timeout = reply.status is Status.TIMEOUT
                return ended_turn(view, steps, reply.message, timeout=timeout)
            timing = live.replied(reply, elapsed)
            if reply.error is not None:
                steps.append(Step(raw_response=reply.raw, error=reply.error, **timing))
                return ended_turn(view, steps, reply.error)
            ended = await self._take_reply(view, step, reply.raw, timing, live, steps)
            if ended is not None:
                return ended
        return TurnRun(
            index=view.index, user=view.user, steps=tuple(steps), reply=None, step_limit=True
        )

    async def _take_reply(
        self,
        view: TurnView,
        step: int,
        raw: JsonValue,
        timing: Timing,
        live: Live,
        steps: list[Step],
    ) -> TurnRun | None:
        """Extract a reply's calls and execute them (None: the turn goes on), or end the turn.

        A reply without calls answers the user; without an environment (a single case)
        the reply is the turn, and the case judge reads its calls.
        """
        environment, faults = live.environment, live.faults
        if environment is None or faults is None:
            return replied_turn(view, steps, raw, timing)
        if isinstance(raw, list):  # an agent that ran its own tools: the whole turn
            taken, text, history = agent_turn(raw, turn=view.index, timing=timing)
            live.messages.extend(history)
            steps.extend(taken)
            return TurnRun(index=view.index, user=view.user, steps=tuple(steps), reply=text)
        extract = partial(
            extract_renamed, raw, names=view.names, offered=view.sent, profile=self.profile
        )
        try:
            if only_native_calls(raw):
                extraction = extract()
            else:
                extraction = await self.workers.call(extract, timeout=self.timeout)
        except TimeoutError:
            message = f"extraction took longer than {self.timeout:g} s on this output"
            steps.append(Step(raw_response=raw, error=message, **timing))
            return ended_turn(view, steps, message)
        said = Step(
            raw_response=raw,
            calls=extraction.calls,
            extraction_format=extraction.format,
            extraction_errors=extraction.errors,
            **timing,
        )
        if not extraction.calls:
            text = reply_text(raw)
            steps.append(said)
            live.messages.append({"role": "assistant", "content": text})
            return TurnRun(index=view.index, user=view.user, steps=tuple(steps), reply=text)
        ids = tuple((call_id(view.index, step, k), c) for k, c in enumerate(extraction.calls))
        live.messages.append(assistant_message(call_text(raw), ids))
        exchanges: list[Exchange] = []
        for cid, call in ids:
            exchange = await execute_call(
                environment,
                faults,
                call,
                cid,
                view.tool(call.name),
                workers=self.workers,
                timeout=self.timeout,
            )
            exchanges.append(exchange)
            live.messages.append(tool_message(exchange))
        steps.append(said.model_copy(update={"exchanges": tuple(exchanges)}))
        return None


def _mode(forced: bool) -> ConversationMode:
    return "teacher_forced" if forced else "on_policy"
