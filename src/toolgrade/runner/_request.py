"""One request to the model: bounded by the timeout, its failures told apart as values."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from toolgrade._core.json_data import clean_text
from toolgrade.backends import Backend, ChatReply, ChatRequest, RetryLog, retry_log
from toolgrade.errors import BackendError, BackendTimeout, BackendUnreachable
from toolgrade.results import Status

__all__ = ["RequestFailure", "ask"]

logger = logging.getLogger("toolgrade.runner")


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

    Every request of a run goes through here (a case's reply, each step of a
    conversation), so that timeouts, retries and a lost server are told apart the same
    way.
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
