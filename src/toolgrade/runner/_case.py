"""One case, once: ask the backend, extract the calls, rename them back, judge."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from toolgrade._core.json_data import JsonValue, clean_text
from toolgrade._core.threads import BoundedPool, default_pool
from toolgrade._core.vocab import ToolCall
from toolgrade.backends import (
    Backend,
    ChatReply,
    ChatRequest,
    NameMap,
    RetryEvent,
    RetryLog,
    extractable,
    retry_log,
)
from toolgrade.errors import BackendError, BackendTimeout, BackendUnreachable
from toolgrade.extract import Extraction, extract_calls
from toolgrade.judging import case_result, judge, profile_reads_any_name
from toolgrade.results import CaseResult, Status, Verdict
from toolgrade.suite import Case, Rubric, Suite, ToolSpec

__all__ = [
    "CaseOutcome",
    "CaseRunner",
    "RequestFailure",
    "ask",
    "extract_renamed",
    "judge_output",
    "overrun_message",
]

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
class RequestFailure:
    """No usable reply to a request: the status to report and why."""

    status: Status
    """`timeout` or `error`."""
    message: str
    """What happened, for people."""
    unreachable: bool = False
    """True when nothing answered at the server's address (even after retries)."""
    endpoint: str | None = None
    """With several endpoints: the one the request last went to."""


async def ask(
    backend: Backend, request: ChatRequest, retries: RetryLog, *, timeout: float
) -> ChatReply | RequestFailure:
    """One request within `timeout` seconds (retries included); failures are values.

    Cases and conversation steps both go through here, so that timeouts, retries and a
    lost server are told apart the same way.
    """
    token = retry_log.set(retries)
    try:
        async with asyncio.timeout(timeout):
            return await backend.complete(request)
    except (TimeoutError, BackendTimeout):
        return _timed_out(retries, timeout)
    except BackendUnreachable as exc:
        return RequestFailure(
            Status.ERROR, clean_text(str(exc)), unreachable=True, endpoint=retries.endpoint
        )
    except BackendError as exc:
        return RequestFailure(Status.ERROR, clean_text(str(exc)), endpoint=retries.endpoint)
    except Exception as exc:  # a broken backend must not end the run
        logger.exception("backend failed on case %s", request.case_id)
        return RequestFailure(
            Status.ERROR, clean_text(f"{type(exc).__name__}: {exc}"), endpoint=retries.endpoint
        )
    finally:
        retry_log.reset(token)


def _timed_out(retries: RetryLog, timeout: float) -> RequestFailure:
    """A timeout, told apart from a server that kept failing until the time ran out.

    After a retry the server has failed at least once: the case is an `error` that
    says what happened, not a `timeout` that more `--timeout` would cure.
    """
    late = f"no answer within {timeout:g} s"
    history = retries.describe()
    if history is None:
        return RequestFailure(Status.TIMEOUT, late, endpoint=retries.endpoint)
    return RequestFailure(Status.ERROR, f"{history}, {late}", endpoint=retries.endpoint)


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
    workers: BoundedPool = field(default_factory=default_pool)
    """Where extraction and judging run, off the event loop and bounded by `timeout`."""

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
        tools = self.suite.tools_for(case)
        names = NameMap.build((t.name for t in tools), enabled=self.backend.safe_names)
        request = ChatRequest(
            case_id=case.id,
            messages=names.rename_messages(case.messages(self.suite.defaults.system)),
            tools=names.rename_tools(tools),
            repeat=repeat,
        )
        started = time.perf_counter()
        reply = await ask(self.backend, request, RetryLog(on_retry=on_retry), timeout=self.timeout)
        if isinstance(reply, RequestFailure):
            failed = self.failed(
                case, repeat, status=reply.status, message=reply.message, started=started
            )
            if reply.endpoint is not None:
                failed = failed.model_copy(update={"endpoint": reply.endpoint})
            return CaseOutcome(failed, unreachable=reply.unreachable)
        latency = reply.latency_ms
        if latency is None:
            latency = (time.perf_counter() - started) * 1000.0
        if reply.error is not None:
            result = self.failed(
                case, repeat, status=Status.ERROR, message=reply.error, started=started
            )
        else:
            result = await self._judge(case, repeat, reply.raw, names=names, request=request)
        update = {
            "raw_response": reply.raw,
            "latency_ms": latency,
            "repeat": repeat,
            "ttft_ms": reply.ttft_ms,
            "finish_reason": reply.finish_reason,
            "endpoint": reply.endpoint,
        }
        return CaseOutcome(result.model_copy(update=update), reply)

    async def _judge(
        self, case: Case, repeat: int, raw: JsonValue, *, names: NameMap, request: ChatRequest
    ) -> CaseResult:
        """Extract and judge in a worker thread: a reader that loops costs this case only.

        The event loop stays free meanwhile, so a stop (Ctrl-C, SIGTERM) is seen at once
        and the other cases go on; an overrun becomes an `error` result.
        """
        started = time.perf_counter()
        try:
            return await self.workers.call(
                lambda: self.judged(case, raw, names=names, tools=request.tools),
                timeout=self.timeout,
            )
        except TimeoutError:
            message = overrun_message(self.timeout)
            logger.warning("case %s: %s", case.id, message)
        except Exception as exc:  # a judging bug must cost one case, not the run
            logger.error("judging case %s failed", case.id, exc_info=exc)
            message = f"judging failed: {exc}"
        return self.failed(case, repeat, status=Status.ERROR, message=message, started=started)

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
        return case_result(
            case,
            Verdict(status, 0.0),
            rubric=self.rubric or case.rubric or self.suite.defaults.rubric,
            error=message,
            repeat=repeat,
            latency_ms=(time.perf_counter() - started) * 1000.0,
        )


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


def extract_renamed(
    raw: JsonValue, *, names: NameMap, offered: Sequence[ToolSpec], profile: str
) -> Extraction:
    """The calls of a raw output, renamed to the suite's names (as `judge_output` reads them).

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
