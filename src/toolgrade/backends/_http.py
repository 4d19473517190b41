"""JSON over HTTP with retries: exponential backoff with jitter, `Retry-After` honoured.

The transport is aiohttp: one session per `JsonHttp`, at most `lanes` keep-alive
connections. Its errors are translated here, at the boundary, into toolgrade's
`BackendError` tree: a refused connection becomes `BackendUnreachable`, a slow server
`BackendTimeout`, an error status `BackendHTTPError`.

Every body is read chunk by chunk, with a size cap (`_stream.py`), and a streamed
answer can be fed line by line to a `LineSink`.
Retries happen only before the answer starts: on connection errors, on a connection
dropped before a complete non-streamed body, and on 429 and 5xx statuses. Once a
stream has started, a failure is reported and never retried (the server may already
have spent minutes generating).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import ssl
from collections.abc import AsyncIterator, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache, partial

import aiohttp
import certifi

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._connect import connect_reason, unreachable
from toolgrade.backends._stream import (
    ERROR_BODY_BYTES,
    LineSink,
    decode_json,
    is_stream,
    pump_lines,
    read_body,
)
from toolgrade.errors import (
    BackendError,
    BackendHTTPError,
    BackendTimeout,
    BackendUnreachable,
)

__all__ = [
    "Answer",
    "JsonHttp",
    "RetryEvent",
    "RetryLog",
    "RetryPolicy",
    "parse_retry_after",
    "retry_log",
]

logger = logging.getLogger(__name__)

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# The server closed or broke the connection before a complete answer (retried). A
# refused connection (`ClientConnectorError`, an OSError too) is caught before these.
_DROPPED = (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError, aiohttp.ClientOSError)
# Request bodies: compact UTF-8 JSON; a NaN or an infinity is refused (ValueError), as
# JSON has none.
_dumps = partial(json.dumps, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When and how long to wait before retrying a request.

    Examples:
        >>> RetryPolicy(base_delay=1.0).delay(2, random.Random(0), retry_after=None) <= 4.0
        True
    """

    max_retries: int = 3
    """Retries after the first attempt."""
    base_delay: float = 0.5
    """Backoff before the first retry; doubles each time."""
    max_delay: float = 30.0
    """Cap on any single wait, `Retry-After` included."""

    def delay(self, attempt: int, rng: random.Random, *, retry_after: float | None) -> float:
        """Seconds to wait before retry number `attempt + 1` ("equal jitter" backoff)."""
        if retry_after is not None:
            wait: float = min(retry_after, self.max_delay)
            return wait if wait > 0 else 0.0
        backoff = min(self.max_delay, self.base_delay * 2.0**attempt)
        return backoff / 2 + rng.uniform(0.0, backoff / 2)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Read a `Retry-After` header: delay seconds or an HTTP date; None when absent or bad.

    Examples:
        >>> parse_retry_after("2")
        2.0
        >>> parse_retry_after("soon") is None
        True
    """
    if not value:
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


@dataclass(frozen=True, slots=True)
class RetryEvent:
    """One failed attempt that is retried."""

    attempt: int
    """The attempt that failed (1 is the first)."""
    reason: str
    """What happened, e.g. `connection dropped: the server closed it ...`, `HTTP 503`."""
    delay: float
    """Seconds waited before the next attempt."""
    url: str
    """The URL asked."""


@dataclass(slots=True)
class RetryLog:
    """The attempts of one case's requests (set in `retry_log`), for a timeout to explain."""

    on_retry: Callable[[RetryEvent], None] | None = None
    """Called with each retry as it is decided."""
    events: list[RetryEvent] = field(default_factory=list)
    """The retries so far."""
    attempts: int = 0
    """Attempts started so far."""
    endpoint: str | None = None
    """With several endpoints: the one the latest request went to (set by the pool)."""

    def add(self, event: RetryEvent) -> None:
        """Record a retry (and tell `on_retry`)."""
        self.events.append(event)
        if self.on_retry is not None:
            self.on_retry(event)

    def describe(self) -> str | None:
        """The last failure and the number of attempts, or None when nothing was retried.

        Examples:
            >>> log = RetryLog(attempts=3)
            >>> log.add(RetryEvent(2, "connection dropped", 1.0, "http://h"))
            >>> log.describe()
            'connection dropped; 3 attempts'
        """
        if not self.events:
            return None
        return f"{self.events[-1].reason}; {self.attempts} attempts"


retry_log: ContextVar[RetryLog | None] = ContextVar("toolgrade_retry_log", default=None)
"""The `RetryLog` of the request being made in this task, if any."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A successful answer: its JSON document, or None when it was streamed to a sink."""

    value: JsonValue
    """The whole JSON body (None when `streamed`)."""
    headers: Mapping[str, str]
    """The response headers (`server`, `content-type`, ...), by any case of their name."""
    streamed: bool = False
    """True when the body was a stream fed line by line to the sink."""


class JsonHttp:
    """A lazily created aiohttp session that speaks JSON (or streams) and retries."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float,
        retry: RetryPolicy,
        headers: Mapping[str, str] | None = None,
        seed: int | None = None,
        lanes: int = 8,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._timeout = timeout
        self._retry = retry
        self._headers = dict(headers or {})
        self._lanes = max(1, lanes)
        self._session: aiohttp.ClientSession | None = None
        # Jitter only spreads retries out; seeding it keeps runs replayable all the same.
        self._rng = random.Random(seed or 0)

    def _open(self) -> aiohttp.ClientSession:
        """The session (created inside the running event loop, on first need).

        At most `lanes` connections, kept alive; a request waits for a free one without
        a time limit. The timeout bounds connecting and each wait for the server's next
        bytes, as a "no answer within" limit; a stream's whole length is bounded
        separately (`pump_lines`).
        """
        connector = aiohttp.TCPConnector(
            limit=self._lanes,
            ssl=_ssl_context() if self.base_url.startswith("https:") else True,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers=self._headers,
            json_serialize=_dumps,
            timeout=aiohttp.ClientTimeout(
                total=None, connect=None, sock_connect=self._timeout, sock_read=self._timeout
            ),
            trust_env=False,
        )
        return self._session

    def url(self, path: str) -> str:
        """The absolute URL of a path under the base URL (an absolute URL stays as is)."""
        if "://" in path:
            return path
        return f"{self.base_url}/{path.lstrip('/')}"

    async def get(self, path: str, *, retries: bool = True) -> JsonValue:
        """GET a JSON document."""
        return (await self._request("GET", path, None, retries=retries, sink=None)).value

    async def get_answer(self, path: str, *, retries: bool = True) -> Answer:
        """GET a JSON document, with the response headers."""
        return await self._request("GET", path, None, retries=retries, sink=None)

    async def post(self, path: str, payload: JsonObject, *, retries: bool = True) -> JsonValue:
        """POST a JSON object and return the JSON answer."""
        return (await self._request("POST", path, payload, retries=retries, sink=None)).value

    async def post_stream(
        self, path: str, payload: JsonObject, sink: LineSink, *, retries: bool = True
    ) -> Answer:
        """POST a JSON object; feed a streamed answer to `sink` line by line.

        A server that ignores `stream: true` and sends one JSON document is fine: the
        document comes back in `Answer.value` and the sink is not used.

        Raises:
            BackendTimeout: the stream went on past the timeout, or stalled.
            BackendError: the stream broke, grew past the cap or reported an error
                (not retried once the stream has started).
        """
        return await self._request("POST", path, payload, retries=retries, sink=sink)

    async def _request(
        self,
        method: str,
        path: str,
        payload: JsonObject | None,
        *,
        retries: bool,
        sink: LineSink | None,
    ) -> Answer:
        url = self.url(path)
        limit = self._retry.max_retries if retries else 0
        log = retry_log.get() or RetryLog()
        attempt = 0
        while True:
            log.attempts += 1
            try:
                return await self._send(method, payload, url=url, sink=sink)
            except _Dropped as exc:
                if attempt >= limit:
                    raise exc.final(attempt + 1) from None
                reason = exc.describe()
                wait = self._retry.delay(attempt, self._rng, retry_after=None)
            except BackendUnreachable as exc:
                if attempt >= limit:
                    raise
                cause = exc.__cause__
                if isinstance(cause, aiohttp.ClientConnectorError):
                    reason = f"cannot connect ({connect_reason(cause)})"
                else:
                    reason = f"cannot connect ({exc})"
                wait = self._retry.delay(attempt, self._rng, retry_after=None)
            except _Refused as exc:
                if exc.status_code not in _RETRY_STATUSES or attempt >= limit:
                    raise exc.final() from None
                reason = exc.message
                wait = self._retry.delay(attempt, self._rng, retry_after=exc.retry_after)
            attempt += 1
            logger.info("%s: %s; retry %d in %.2fs", url, reason, attempt, wait)
            log.add(RetryEvent(attempt=attempt, reason=reason, delay=wait, url=url))
            await asyncio.sleep(wait)

    async def _send(
        self, method: str, payload: JsonObject | None, *, url: str, sink: LineSink | None
    ) -> Answer:
        session = self._session or self._open()
        try:
            async with session.request(method, url, json=payload) as response:
                try:
                    return await self._answer(response, url, sink)
                finally:
                    # Leaving before the end of the body (cancellation, timeout, cap, a
                    # stream's end marker) closes the connection: the server stops
                    # generating, and no half-read connection is used again.
                    if not response.content.at_eof():
                        response.close()
        except TimeoutError as exc:  # aiohttp's connect and read timeouts are TimeoutErrors
            raise BackendTimeout(f"no answer within {self._timeout:g} s", url=url) from exc
        except aiohttp.ClientConnectorError as exc:
            raise unreachable(self.base_url, connect_reason(exc), url=url) from exc
        except _DROPPED as exc:
            raise _Dropped(url, _reason(exc)) from exc
        except aiohttp.ClientError as exc:
            raise BackendError(f"request failed: {_reason(exc)}", url=url) from exc

    async def _answer(
        self, response: aiohttp.ClientResponse, url: str, sink: LineSink | None
    ) -> Answer:
        chunks = response.content.iter_any()
        if response.status >= 400:
            body = await read_body(chunks, url=url, limit=ERROR_BODY_BYTES, truncate=True)
            raise _Refused(response, body, url)
        if sink is not None and is_stream(response.headers):
            await pump_lines(chunks, sink, url=url, timeout=self._timeout)
            return Answer(None, response.headers, streamed=True)
        first = await anext(chunks, b"")
        if sink is not None and first.lstrip().startswith(b"data:"):
            # A server streaming SSE under a JSON content type.
            rest = _prepend(first, chunks)
            await pump_lines(rest, sink, url=url, timeout=self._timeout)
            return Answer(None, response.headers, streamed=True)
        body = await read_body(_prepend(first, chunks), url=url, truncate=False)
        return Answer(decode_json(body, url), response.headers)

    async def aclose(self) -> None:
        """Close the session and its connections."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()


@cache
def _ssl_context() -> ssl.SSLContext:
    """Certificates from certifi, as on every platform; loaded once (it takes ~30 ms)."""
    return ssl.create_default_context(cafile=certifi.where())


async def _prepend(first: bytes, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    if first:
        yield first
    async for chunk in rest:
        yield chunk


class _Dropped(Exception):
    """The server closed the connection without a complete answer (retried)."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__(self.describe())

    def describe(self) -> str:
        return f"connection dropped: the server closed it before a complete answer ({self.reason})"

    def final(self, attempts: int) -> BackendError:
        tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
        return BackendError(f"{self.describe()}; {tries}", url=self.url)


class _Refused(Exception):
    """An error status (retried when 429 or 5xx)."""

    def __init__(self, response: aiohttp.ClientResponse, body: bytes, url: str) -> None:
        self.status_code = response.status
        self.retry_after = parse_retry_after(response.headers.get("retry-after"))
        snippet = body[:300].decode("utf-8", "replace").strip().replace("\n", " ")
        self.message = f"HTTP {self.status_code}: {snippet or response.reason or ''}"
        self.url = url
        super().__init__(self.message)

    def final(self) -> BackendHTTPError:
        return BackendHTTPError(self.message, url=self.url, status_code=self.status_code)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__
