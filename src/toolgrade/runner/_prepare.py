"""Before the first case: fit the concurrency to the server, and warm the server up.

llama-cpp-python, LM Studio and Ollama with one slot answer one request at a time. With
`--concurrency 4` the fourth case waits for three others before its own prefill even
starts, and its clock runs all along: it times out for the server's reasons, not the
model's. So when the server says how many requests it answers at once
(`ServerInfo.parallel`), the run sends no more than that.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends import Backend, ChatRequest, EndpointPool, ReplayBackend, ServerInfo
from toolgrade.errors import BackendTimeout, BackendUnreachable
from toolgrade.results import RunResult
from toolgrade.runner._options import RunOptions
from toolgrade.runner._progress import Progress, notify
from toolgrade.runner._warmup import WarmUp, announcement, warm_up, warmup_request
from toolgrade.suite import Case, Suite

__all__ = [
    "WARNING_EVENTS",
    "Ready",
    "doctor_hint",
    "effective_concurrency",
    "get_ready",
    "server_info",
    "with_doctor_hint",
]

logger = logging.getLogger("toolgrade.runner")

WARNING_EVENTS = frozenset({"warmup_failed", "endpoints_down"})
"""Notices that are warnings (in `log.jsonl` and on screen); the others are notes."""

WarmupBackend = Callable[[], Backend]
"""Builds the backend the warm-up goes through (one whose own timeout allows it)."""


@dataclass(slots=True)
class Ready:
    """The run as it will go: its header and options after the server had its say."""

    header: RunResult
    """The header, with the effective concurrency and the warm-up recorded."""
    options: RunOptions
    """The options the cases run with (the concurrency possibly lowered)."""
    notices: list[tuple[str, str, JsonObject]] = field(default_factory=list)
    """(event, message, fields) for `log.jsonl`, written once the folder exists."""


def effective_concurrency(requested: int, parallel: int | None) -> int:
    """The concurrency to use: no more than the server answers at once, when it says.

    Examples:
        >>> effective_concurrency(4, 1), effective_concurrency(4, None), effective_concurrency(2, 8)
        (1, 4, 2)
    """
    if parallel is None or parallel < 1:
        return requested
    return min(requested, parallel)


async def get_ready(
    header: RunResult,
    *,
    suite: Suite,
    cases: Sequence[Case],
    backend: Backend,
    warmup_backend: WarmupBackend | None,
    options: RunOptions,
    info: ServerInfo,
    stop: asyncio.Event,
    progress: Progress,
) -> Ready:
    """Cap the concurrency to the server's slots, then send the warm-up request.

    Args:
        header: the run's header so far.
        suite: the suite (for the warm-up's tools).
        cases: the cases still to run (the warm-up uses the first one's tools).
        backend: the run's backend.
        warmup_backend: builds a backend with a long timeout for the warm-up; None uses
            `backend` as it is.
        options: the run's options.
        info: what the server said about itself.
        stop: a stop during the warm-up ends it and the run.
        progress: where notices go.

    Raises:
        InputError: a responses file has a line for a repetition the run does not have.
        BackendUnreachable: the server stopped answering before the warm-up, or took the
            warm-up request and sent no answer within `options.warmup_limit` seconds.
    """
    if isinstance(backend, ReplayBackend):
        backend.check_repeat(options.repeat)  # a line no repetition reads is a mistake
    ready = Ready(header=header, options=options)
    if isinstance(backend, EndpointPool) and backend.resting():
        down = backend.resting()
        message = (
            f"{len(down)} of {len(backend.endpoints)} endpoints do not answer; the run starts"
            f" without them and tries them again later: {', '.join(down)}"
        )
        _notice(ready, progress, "endpoints_down", message, endpoints=dict(down))
    concurrency = effective_concurrency(options.concurrency, info.parallel)
    server: JsonObject = dict(header.server)
    if info.parallel is not None:
        server["parallel"] = info.parallel
    if concurrency < options.concurrency:
        message = (
            f"the server answers {info.parallel} request(s) at a time:"
            f" concurrency lowered from {options.concurrency} to {concurrency}"
        )
        _notice(ready, progress, "concurrency_capped", message, requested=options.concurrency)
        ready.options = dataclasses.replace(options, concurrency=concurrency)
    if options.warmup and info.url is not None and cases:
        limit = options.warmup_limit
        url = header.backend.get("base_url")
        where = url if isinstance(url, str) else info.url
        notify(progress, "note: " + announcement(header.model, where, limit))
        warmed = await _warm(
            suite, cases[0], backend=backend, build=warmup_backend, stop=stop, limit=limit
        )
        if warmed is not None:  # None: stopped during the warm-up; the run stops too
            outcome, record = warmed
            server["warmup"] = record
            level = "warmup" if outcome.error is None else "warmup_failed"
            _notice(ready, progress, level, outcome.describe(), **outcome.to_json())
    backend_settings: JsonObject = {**header.backend, "concurrency": concurrency}
    ready.header = header.model_copy(update={"server": server, "backend": backend_settings})
    return ready


async def _warm(
    suite: Suite,
    case: Case,
    *,
    backend: Backend,
    build: WarmupBackend | None,
    stop: asyncio.Event,
    limit: float,
) -> tuple[WarmUp, JsonObject] | None:
    """The warm-up and its record; several endpoints are each warmed up (they all start cold)."""
    # A conversation warms up like a case: its system prompt and first turn's tools.
    request = warmup_request(suite, case, safe_names=backend.safe_names)
    own = build() if build is not None else backend
    try:
        if isinstance(backend, EndpointPool) and isinstance(own, EndpointPool):
            return await _warm_endpoints(backend, own, request, stop=stop, limit=limit)
        outcome = await warm_up(own, request, stop=stop, limit=limit)
        return None if outcome is None else (outcome, outcome.to_json())
    finally:
        if own is not backend:
            await own.aclose()


async def _warm_endpoints(
    pool: EndpointPool,
    own: EndpointPool,
    request: ChatRequest,
    *,
    stop: asyncio.Event,
    limit: float,
) -> tuple[WarmUp, JsonObject] | None:
    """Warm every endpoint in rotation at once; their answers' fingerprints must agree.

    An endpoint found gone rests in `pool` (the run goes on without it for a while).

    Raises:
        BackendUnreachable: every endpoint is gone.
        ConfigError: the endpoints answered with different `system_fingerprint`s.
    """
    urls = [u for u in pool.endpoints if u not in pool.resting()]

    async def one(url: str) -> WarmUp | BackendUnreachable | None:
        try:
            return await warm_up(own.pinned(url), request, stop=stop, limit=limit)
        except BackendUnreachable as exc:
            return exc

    outcomes = dict(zip(urls, await asyncio.gather(*(one(u) for u in urls)), strict=True))
    if any(o is None for o in outcomes.values()):
        return None  # stopped
    warmed = {u: o for u, o in outcomes.items() if isinstance(o, WarmUp)}
    for url, outcome in outcomes.items():
        if isinstance(outcome, BackendUnreachable):
            pool.rest(url, f"gone at the warm-up: {outcome}")
    if not warmed:
        gone = "; ".join(f"{u}: {o}" for u, o in outcomes.items())
        raise BackendUnreachable(f"every endpoint is gone: {gone}")
    own.check_fingerprints()
    slowest = max(warmed.values(), key=lambda w: w.latency_ms)
    failed = [(u, w.error) for u, w in warmed.items() if w.error is not None]
    error = f"{failed[0][0]}: {failed[0][1]}" if failed else None
    combined = WarmUp(latency_ms=slowest.latency_ms, error=error)
    record = combined.to_json()
    record["endpoints"] = {
        u: o.to_json() if isinstance(o, WarmUp) else {"error": str(o)} for u, o in outcomes.items()
    }
    return combined, record


def _notice(
    ready: Ready, progress: Progress, event: str, message: str, **fields: JsonValue
) -> None:
    logger.info("%s", message)
    notify(progress, ("warning: " if event in WARNING_EVENTS else "note: ") + message)
    ready.notices.append((event, message, dict(fields)))


async def server_info(backend: Backend) -> ServerInfo:
    """What the server says about itself; a server that never answers counts as unreachable.

    Raises:
        BackendUnreachable: nothing answers at the server's address, or the server took
            the connection and sent no answer within the request timeout.
    """
    try:
        return await backend.server_info()
    except BackendTimeout as exc:
        raise BackendUnreachable(
            f"the server took the connection but sent no answer: {exc.message}"
        ) from None


def doctor_hint(backend: Backend) -> str:
    """The `toolgrade doctor` command that checks a run's server.

    Examples:
        >>> from toolgrade.backends import BackendSettings, create_backend
        >>> settings = BackendSettings(base_url="http://127.0.0.1:9/v1")
        >>> doctor_hint(create_backend("vllm/m", settings))
        'check the server with: toolgrade doctor --model vllm/m --base-url http://127.0.0.1:9/v1'
    """
    command = f"toolgrade doctor --model {backend.provider}/{backend.model}"
    url = backend.settings().get("base_url")
    if isinstance(url, str) and url:
        command += f" --base-url {url}"
    return f"check the server with: {command}"


def with_doctor_hint(exc: BackendUnreachable, backend: Backend) -> BackendUnreachable:
    """The same error, its message ending with the `toolgrade doctor` command."""
    hint = doctor_hint(backend)
    if "toolgrade doctor" in exc.message:
        return exc
    error = BackendUnreachable(f"{exc.message}; {hint}")
    error.url = exc.url
    return error
