"""Judging once at the end: a single case by the case judge, a conversation by its own.

A single case's one reply is read and judged in one worker thread, bounded by the
timeout (`judge_output`: extraction, names mapped back, `toolgrade.judging.judge`); a
conversation's final state is read and its turns and end checks judged in one as well
(`toolgrade.judging.judge_conversation`). A reader, matcher or environment that loops
costs that case an `error`, never the run. A case whose request failed is an unscored
result (`timeout` or `error`) carrying the case's labels.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonValue
from toolgrade._core.threads import BoundedPool
from toolgrade._core.transcript import ConversationMode, ConversationRecord, FirstFailure
from toolgrade._core.trusted import trusted_builder
from toolgrade.backends import ChatReply, NameMap
from toolgrade.environments import TurnRun
from toolgrade.judging import (
    case_result,
    conversation_result,
    judge,
    judge_conversation,
)
from toolgrade.results import CaseResult, Status, Verdict
from toolgrade.runner._reading import extract_renamed
from toolgrade.runner._turns import Live, TurnView
from toolgrade.suite import Case, Rubric, Suite, ToolSpec

__all__ = ["CaseOutcome", "Judging", "judge_output", "overrun_message"]

logger = logging.getLogger("toolgrade.runner")

_new_result = trusted_builder(CaseResult)


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """One case run once: its result, the backend's reply, and whether the server was gone."""

    result: CaseResult
    """The result (an `error` or `timeout` when no usable reply came)."""
    reply: ChatReply | None = None
    """The last reply, when one came."""
    unreachable: bool = False
    """True when nothing answered at the server's address (even after retries)."""


@dataclass(frozen=True, slots=True)
class Judging:
    """How a run judges its cases, and the bound on that work."""

    suite: Suite
    """The suite (expectations, tools, defaults)."""
    rubric: Rubric | None
    """The run's rubric override."""
    profile: str
    """The judge's matching profile."""
    prompt_mode: bool
    """The tools went in the system prompt (for profiles that decode raw outputs)."""
    timeout: float
    """Seconds allowed to judge one case."""
    workers: BoundedPool
    """Where judging runs, off the event loop."""

    async def case(
        self, case: Case, repeat: int, view: TurnView, run: TurnRun, live: Live
    ) -> CaseOutcome:
        """A single case's result, from its one reply (or the failure of its request)."""
        reply = live.reply
        if reply is None:  # the request failed: no reply to judge
            failure = self.failed(
                case,
                repeat,
                status=Status.TIMEOUT if run.timeout else Status.ERROR,
                message=run.error or "",
                latency_ms=live.latency_ms,
            )
            if live.endpoint is not None:
                failure = failure.model_copy(update={"endpoint": live.endpoint})
            return CaseOutcome(failure, unreachable=live.unreachable)
        if reply.error is not None:
            result = self.failed(
                case, repeat, status=Status.ERROR, message=reply.error, latency_ms=0.0
            )
        else:
            result = await self._judged(case, repeat, reply.raw, view)
        # `result.model_copy(update=...)` without its copying machinery: the result was
        # made by `case_result` with every field set, and these values are valid.
        values = result.__dict__ | {
            "raw_response": reply.raw,
            "latency_ms": live.latency_ms,
            "repeat": repeat,
            "ttft_ms": reply.ttft_ms,
            "finish_reason": reply.finish_reason,
            "endpoint": reply.endpoint,
        }
        return CaseOutcome(_new_result(values), reply)

    async def _judged(self, case: Case, repeat: int, raw: JsonValue, view: TurnView) -> CaseResult:
        """Extract and judge in a worker thread: a reader that loops costs this case only.

        The event loop stays free meanwhile, so a stop (Ctrl-C, SIGTERM) is seen at once
        and the other cases go on; an overrun becomes an `error` result.
        """

        def judged() -> CaseResult:
            return judge_output(
                self.suite,
                case,
                raw,
                names=view.names,
                offered=view.sent,
                rubric=self.rubric,
                profile=self.profile,
            )

        try:
            return await self.workers.call(judged, timeout=self.timeout)
        except TimeoutError:
            message = overrun_message(self.timeout)
            logger.warning("case %s: %s", case.id, message)
        except Exception as exc:  # a judging bug must cost one case, not the run
            logger.error("judging case %s failed", case.id, exc_info=exc)
            message = f"judging failed: {exc}"
        return self.failed(case, repeat, status=Status.ERROR, message=message, latency_ms=0.0)

    def failed(
        self, case: Case, repeat: int, *, status: Status, message: str, latency_ms: float
    ) -> CaseResult:
        """An unscored result (`timeout` or `error`) carrying the case's labels."""
        return case_result(
            case,
            Verdict(status, 0.0),
            rubric=self.rubric or case.rubric or self.suite.defaults.rubric,
            error=message,
            repeat=repeat,
            latency_ms=latency_ms,
        )

    async def conversation(
        self,
        conversation: Case,
        repeat: int,
        runs: Sequence[TurnRun],
        *,
        mode: ConversationMode,
        live: Live,
        reference_state: Callable[[], JsonValue] | None,
    ) -> CaseOutcome:
        """Judge the turns as run and build the result.

        The final state is read and the turns judged in a worker thread, bounded by the
        timeout: an environment whose `state()` hangs costs this conversation only.
        `reference_state` gives the state the reference leaves (None: the environment
        could not be built, so neither can that state).
        """
        environment = live.environment

        def judged() -> Verdict:
            return judge_conversation(
                self.suite,
                conversation,
                runs,
                initial_state=live.initial_state,
                final_state=environment.state() if environment is not None else None,
                mode=mode,
                rubric=self.rubric,
                profile=self.profile,
                prompt_mode=self.prompt_mode,
                reference_state=reference_state or _unbuilt,
            )

        try:
            verdict = await self.workers.call(judged, timeout=self.timeout)
        except TimeoutError:
            verdict = _unjudged(conversation, mode, f"judging took longer than {self.timeout:g} s")
        except Exception as exc:  # a judging bug must cost one conversation, not the run
            logger.error("judging conversation %s failed", conversation.id, exc_info=exc)
            verdict = _unjudged(conversation, mode, f"judging failed: {exc}")
        error = next((r.error for r in runs if r.error is not None), None)
        result = conversation_result(
            conversation,
            verdict,
            rubric=self.rubric,
            repeat=repeat,
            error=error,
            latency_ms=live.latency_ms,
        )
        if live.endpoint is not None:
            result = result.model_copy(update={"endpoint": live.endpoint})
        return CaseOutcome(result, live.reply, unreachable=live.unreachable)


def overrun_message(seconds: float) -> str:
    """The error of a case whose extraction and judging overran."""
    return (
        f"extraction and judging took longer than {seconds:g} s; a reader or matcher"
        " loops on this output (kept in raw_response): please report it with the output"
    )


def judge_output(
    suite: Suite,
    case: Case,
    raw: JsonValue,
    *,
    names: NameMap,
    offered: Sequence[ToolSpec],
    rubric: Rubric | None,
    profile: str,
) -> CaseResult:
    """Extract the calls from a raw output, rename them to the suite's names, and judge.

    `offered` are the tools as the model saw them (possibly renamed for the server).
    """
    extraction = extract_renamed(raw, names=names, offered=offered, profile=profile)
    return judge(
        case,
        extraction,
        tools=suite.tools_for(case),
        rubric=rubric,
        profile=profile,
        defaults=suite.defaults,
    )


def _unjudged(conversation: Case, mode: ConversationMode, message: str) -> Verdict:
    record = ConversationRecord(
        mode=mode,
        total_turns=len(conversation.turns),
        first_failure=FirstFailure(cause=Status.ERROR, message=message),
    )
    return Verdict.not_scored(Status.ERROR, message, record=record)


def _unbuilt() -> JsonValue:
    raise RuntimeError("the environment could not be built")
