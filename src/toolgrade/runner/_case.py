"""One case, once: ask the backend, extract the calls, rename them back, judge."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from toolgrade._json import JsonValue
from toolgrade.backends import Backend, ChatReply, ChatRequest, NameMap, extractable
from toolgrade.calls import ToolCall
from toolgrade.errors import BackendError, BackendTimeout, BackendUnreachable
from toolgrade.extract import Extraction, extract_calls
from toolgrade.judge import judge, profile_reads_any_name
from toolgrade.results import CaseResult, Status
from toolgrade.suite import Case, Rubric, Suite, ToolSpec

__all__ = ["CaseOutcome", "CaseRunner", "judge_output"]

logger = logging.getLogger("toolgrade.runner")


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """One case run once: its result, the backend's reply, and whether the server was gone."""

    result: CaseResult
    """The result (an `error` or `timeout` when no usable reply came)."""
    reply: ChatReply | None = None
    """The reply, when one came."""
    unreachable: bool = False
    """True when nothing answered at the server's address (even after retries)."""


@dataclass(frozen=True, slots=True)
class _Failure:
    status: Status
    message: str
    unreachable: bool = False


@dataclass(frozen=True, slots=True)
class CaseRunner:
    """Everything needed to run any case of one run."""

    suite: Suite
    """The suite (for tools and defaults)."""
    backend: Backend
    """Where requests go."""
    timeout: float
    """Seconds allowed per case, retries included."""
    rubric: Rubric | None
    """The run's rubric override."""
    profile: str
    """The judge's matching profile."""

    async def run(self, case: Case, repeat: int) -> CaseOutcome:
        """Run one case; failures become `timeout`/`error` results, never exceptions."""
        tools = self.suite.tools_for(case)
        names = NameMap.build((t.name for t in tools), enabled=self.backend.safe_names)
        request = ChatRequest(
            case_id=case.id,
            messages=names.rename_messages(case.messages(self.suite.defaults.system)),
            tools=names.rename_tools(tools),
            repeat=repeat,
        )
        started = time.perf_counter()
        reply = await self._ask(request)
        if isinstance(reply, _Failure):
            failed = self.failed(
                case, repeat, status=reply.status, message=reply.message, started=started
            )
            return CaseOutcome(failed, unreachable=reply.unreachable)
        latency = reply.latency_ms
        if latency is None:
            latency = (time.perf_counter() - started) * 1000.0
        if reply.error is not None:
            result = self.failed(
                case, repeat, status=Status.ERROR, message=reply.error, started=started
            )
        else:
            try:
                result = self.judged(case, reply.raw, names=names, tools=request.tools)
            except Exception as exc:  # a judging bug must cost one case, not the run
                logger.exception("judging case %s failed", case.id)
                message = f"judging failed: {exc}"
                result = self.failed(
                    case, repeat, status=Status.ERROR, message=message, started=started
                )
        update = {
            "raw_response": reply.raw,
            "latency_ms": latency,
            "repeat": repeat,
            "ttft_ms": reply.ttft_ms,
            "finish_reason": reply.finish_reason,
        }
        return CaseOutcome(result.model_copy(update=update), reply)

    async def _ask(self, request: ChatRequest) -> ChatReply | _Failure:
        """The backend's reply, or the status and message of a failure to get one."""
        try:
            async with asyncio.timeout(self.timeout):
                return await self.backend.complete(request)
        except (TimeoutError, BackendTimeout):
            return _Failure(Status.TIMEOUT, f"no answer within {self.timeout:g} s")
        except BackendUnreachable as exc:
            return _Failure(Status.ERROR, str(exc), unreachable=True)
        except BackendError as exc:
            return _Failure(Status.ERROR, str(exc))
        except Exception as exc:  # a broken backend must not end the run
            logger.exception("backend failed on case %s", request.case_id)
            return _Failure(Status.ERROR, f"{type(exc).__name__}: {exc}")

    def judged(
        self, case: Case, raw: JsonValue, *, names: NameMap, tools: Sequence[ToolSpec]
    ) -> CaseResult:
        """Extract the calls from the raw output, rename them to the suite's names, judge."""
        return judge_output(
            self.suite,
            case,
            raw,
            names=names,
            offered=tools,
            rubric=self.rubric,
            profile=self.profile,
        )

    def failed(
        self, case: Case, repeat: int, *, status: Status, message: str, started: float
    ) -> CaseResult:
        """An unscored result (`timeout` or `error`) carrying the case's labels."""
        rubric = self.rubric or case.rubric or self.suite.defaults.rubric
        prompt = case.prompt_json()
        return CaseResult(
            case_id=case.id,
            status=status,
            score=0.0,
            rubric=rubric,
            expected=case.expected,
            category=case.category,
            difficulty=case.difficulty,
            tags=case.tags,
            prompt=prompt,
            error=message,
            repeat=repeat,
            latency_ms=(time.perf_counter() - started) * 1000.0,
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
    # A profile that judges calls of any name (bfcl) must see every call; otherwise the
    # offered tools let extraction set aside look-alike JSON in prose.
    extraction = extract_calls(
        extractable(raw), tools=None if profile_reads_any_name(profile) else offered
    )
    extraction = _renamed(extraction, names)
    return judge(
        case,
        extraction,
        tools=suite.tools_for(case),
        rubric=rubric,
        profile=profile,
        defaults=suite.defaults,
    )


def _renamed(extraction: Extraction, names: NameMap) -> Extraction:
    if not names.to_suite or not any(c.name in names.to_suite for c in extraction.calls):
        return extraction
    calls = tuple(
        ToolCall(name=names.suite_name(c.name), arguments=c.arguments) for c in extraction.calls
    )
    return extraction.model_copy(update={"calls": calls})
