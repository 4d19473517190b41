"""`--stream-check N`: after the run, N sampled cases asked whole, streamed, whole again.

The cases are sampled with the run's seed (the same N cases for the same seed and
selection), at most every selected case. Each is asked three more times with the run's
settings, streaming switched on, then off twice; `serving.stream_check` compares the
answers. A conversation is checked on its first request only (its system prompt and
first user message): later requests depend on the answers before them, which would
differ between the three. Every request is bounded by the run's `--timeout`; a request
that fails makes that case `failed`, never the run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
from collections.abc import Sequence

from toolgrade.backends import Backend, ChatRequest, RetryLog, create_backend
from toolgrade.errors import ConfigError
from toolgrade.results import StreamCheck
from toolgrade.runner._core import Session, drive
from toolgrade.runner._options import RunOptions
from toolgrade.runner._request import RequestFailure, ask
from toolgrade.runner._turns import Wire, turn_views
from toolgrade.serving import Asked, stream_check, stream_summary
from toolgrade.suite import Case, Suite

__all__ = [
    "check_session",
    "check_streams",
    "first_request",
    "sample_cases",
    "stream_check_model",
]

logger = logging.getLogger("toolgrade.runner")

_SERVERLESS = ("replay", "python")


def stream_check_model(model: str | Backend, options: RunOptions) -> str | None:
    """The model specification the stream check asks; None when no check is wanted.

    Raises:
        ConfigError: a check was asked of a model it cannot switch streaming for: a
            `replay/` or `python/` model (no server, no stream), or a `Backend` given
            as an object (toolgrade cannot build it again with streaming switched).
    """
    if not options.stream_check:
        return None
    if not isinstance(model, str):
        raise ConfigError(
            "--stream-check needs a model specification (PROVIDER/MODEL), not a Backend"
            " object: toolgrade builds the streamed and whole requests' backends itself"
        )
    provider = model.partition("/")[0]
    if provider in _SERVERLESS:
        raise ConfigError(f"--stream-check needs a model server: a {provider}/ model has none")
    return model


def sample_cases(cases: Sequence[Case], n: int, seed: int | None) -> list[Case]:
    """`n` of the cases (all when fewer), drawn with `seed` (0 when None), in suite order.

    Examples:
        >>> from toolgrade.suite import Case
        >>> row = {"prompt": "p", "expected": None}
        >>> cases = [Case.model_validate({"id": f"c{i}", **row}) for i in range(9)]
        >>> [c.id for c in sample_cases(cases, 3, 7)] == [c.id for c in sample_cases(cases, 3, 7)]
        True
        >>> len(sample_cases(cases, 20, None))
        9
    """
    if n >= len(cases):
        return list(cases)
    chosen = set(random.Random(0 if seed is None else seed).sample(range(len(cases)), n))
    return [c for i, c in enumerate(cases) if i in chosen]


def first_request(suite: Suite, case: Case, wire: Wire) -> ChatRequest:
    """A case's first request as the run sends it (a conversation's first turn's).

    The history before a conversation's first request is its system prompt and its
    first turn's opening, whatever its environment or teacher forcing.
    """
    view = next(turn_views(suite, case, wire))
    messages = list(view.opening)
    if not case.single:
        messages = case.messages(suite.defaults.system) + messages
    return ChatRequest(
        case_id=case.id, messages=view.names.rename_messages(messages), tools=view.sent
    )


async def _asked(backend: Backend, request: ChatRequest, timeout: float) -> Asked:
    reply = await ask(backend, request, RetryLog(), timeout=timeout)
    if isinstance(reply, RequestFailure):
        return Asked(failure=reply.message)
    if reply.error is not None:
        return Asked(reply.raw, failure=reply.error)
    return Asked(reply.raw, finish_reason=reply.finish_reason)


async def check_streams(
    suite: Suite,
    cases: Sequence[Case],
    model: str,
    options: RunOptions,
    *,
    stop: asyncio.Event | None = None,
) -> tuple[StreamCheck, ...]:
    """Ask `options.stream_check` sampled cases whole, streamed and whole again.

    Args:
        suite: the run's suite.
        cases: the selected cases (the sample is drawn from these).
        model: the model specification (`stream_check_model`).
        options: the run's options (settings, timeout, concurrency, seed).
        stop: set it to stop; the cases checked so far are kept.

    Returns:
        One record per sampled case checked, in suite order.
    """
    chosen = sample_cases(cases, options.stream_check, options.seed)
    base = options.backend_settings()
    kept = {k: v for k, v in base.options.items() if k != "stream"}
    streamed = create_backend(model, dataclasses.replace(base, stream=True, options=kept))
    whole = create_backend(model, dataclasses.replace(base, stream=False, options=kept))
    wire = Wire.of(suite, safe_names=streamed.safe_names)
    native = options.mode == "native"
    found: dict[str, StreamCheck] = {}

    async def check(case: Case, _repeat: int) -> None:
        request = first_request(suite, case, wire)
        try:
            # The streamed answer is asked between the two whole ones: a server whose
            # answer depends on what it served before (a prompt cache reused) then shows
            # as two whole answers that differ (noise), not as a fault of the stream.
            first = await _asked(whole, request, options.timeout)
            flowed = await _asked(streamed, request, options.timeout)
            again = await _asked(whole, request, options.timeout)
            found[case.id] = stream_check(case.id, flowed, first, again, native=native)
        except Exception as exc:  # a check that breaks costs its case, never the run
            logger.exception("stream check of case %s failed", case.id)
            detail = f"the check failed: {type(exc).__name__}: {exc}"
            found[case.id] = StreamCheck(case_id=case.id, verdict="failed", detail=detail)

    try:
        await drive([(c, 0) for c in chosen], check, concurrency=options.concurrency, stop=stop)
    finally:
        await streamed.aclose()
        await whole.aclose()
    return tuple(found[c.id] for c in chosen if c.id in found)


async def check_session(session: Session, model: str) -> None:
    """A finished run's stream check: kept with the session (its header) and logged."""
    if session.header.stream_checks:
        return  # a resumed run that was checked already
    checks = await check_streams(
        session.runner.suite, session.cases, model, session.options, stop=session.stop
    )
    session.stream_checks = checks
    if session.folder is not None:
        verdicts = [c.verdict for c in checks]
        session.folder.log(
            "info",
            "stream_check",
            stream_summary(checks),
            cases=len(checks),
            **{v: verdicts.count(v) for v in ("agree", "diverge", "noise", "failed")},
        )
