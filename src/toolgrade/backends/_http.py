"""JSON over HTTP with retries: exponential backoff with jitter, `Retry-After` honoured.

httpx errors are translated here, at the boundary, into toolgrade's `BackendError`
tree: a refused connection becomes `BackendUnreachable`, a slow server
`BackendTimeout`, an error status `BackendHTTPError`.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

from toolgrade._json import JsonObject, JsonValue
from toolgrade.errors import BackendError, BackendHTTPError, BackendTimeout, BackendUnreachable

__all__ = ["JsonHttp", "RetryPolicy", "parse_retry_after"]

logger = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""Responses larger than this are refused: model output is untrusted."""
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


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


class JsonHttp:
    """A lazily created `httpx.AsyncClient` that speaks JSON and retries."""

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
        self._clients: list[httpx.AsyncClient] = []
        self._idle: asyncio.Queue[httpx.AsyncClient] | None = None
        self._ssl: ssl.SSLContext | None = None
        # Jitter only spreads retries out; seeding it keeps runs replayable all the same.
        self._rng = random.Random(seed or 0)

    async def _acquire(self) -> httpx.AsyncClient:
        """A client with one keep-alive connection ("lane"), created on first need.

        One single-connection client per lane rather than one pooled client: httpcore's
        pool rescans every connection for every request, which costs more than the rest
        of the harness at concurrency 32.
        """
        if self._idle is None:
            self._idle = asyncio.Queue()  # created inside the running event loop
        if self._idle.empty() and len(self._clients) < self._lanes:
            if self._ssl is None:
                # Loading the CA bundle takes ~30 ms: once for every lane, not once each.
                self._ssl = httpx.create_ssl_context()
            client = httpx.AsyncClient(
                verify=self._ssl,
                base_url=self.base_url + "/",
                timeout=httpx.Timeout(self._timeout),
                headers=self._headers,
                limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
                trust_env=False,
            )
            self._clients.append(client)
            return client
        return await self._idle.get()

    def url(self, path: str) -> str:
        """The absolute URL of a path under the base URL."""
        return f"{self.base_url}/{path.lstrip('/')}"

    async def get(self, path: str, *, retries: bool = True) -> JsonValue:
        """GET a JSON document."""
        return await self._request("GET", path, None, retries=retries)

    async def post(self, path: str, payload: JsonObject, *, retries: bool = True) -> JsonValue:
        """POST a JSON object and return the JSON answer."""
        return await self._request("POST", path, payload, retries=retries)

    async def _request(
        self, method: str, path: str, payload: JsonObject | None, *, retries: bool
    ) -> JsonValue:
        url = self.url(path)
        limit = self._retry.max_retries if retries else 0
        attempt = 0
        while True:
            try:
                response = await self._send(method, path, payload, url=url)
            except (BackendUnreachable, _Dropped) as exc:
                if attempt >= limit:
                    raise exc.final() if isinstance(exc, _Dropped) else exc from None
                wait = self._retry.delay(attempt, self._rng, retry_after=None)
                logger.info("%s: %s; retry %d in %.2fs", url, exc, attempt + 1, wait)
            else:
                if response.status_code < 400:
                    return _decode(response, url)
                if response.status_code not in _RETRY_STATUSES or attempt >= limit:
                    raise _http_error(response, url)
                after = parse_retry_after(response.headers.get("retry-after"))
                wait = self._retry.delay(attempt, self._rng, retry_after=after)
                logger.info(
                    "%s: HTTP %d; retry %d in %.2fs", url, response.status_code, attempt + 1, wait
                )
            attempt += 1
            await asyncio.sleep(wait)

    async def _send(
        self, method: str, path: str, payload: JsonObject | None, *, url: str
    ) -> httpx.Response:
        client = await self._acquire()
        try:
            return await client.request(method, path.lstrip("/"), json=payload)
        except httpx.TimeoutException as exc:
            raise BackendTimeout(f"no answer within {self._timeout:g} s", url=url) from exc
        except httpx.ConnectError as exc:
            raise BackendUnreachable(
                f"cannot connect to the model server ({_reason(exc)}); is it running?", url=url
            ) from exc
        except _DROPPED as exc:
            raise _Dropped(url, _reason(exc)) from exc
        except httpx.HTTPError as exc:
            raise BackendError(f"request failed: {_reason(exc)}", url=url) from exc
        finally:
            if self._idle is not None:
                self._idle.put_nowait(client)

    async def aclose(self) -> None:
        """Close every client."""
        clients, self._clients, self._idle = self._clients, [], None
        for client in clients:
            await client.aclose()


class _Dropped(Exception):
    """The server closed the connection without a complete answer (retried)."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__(f"connection dropped: {reason}")

    def final(self) -> BackendError:
        return BackendError(f"connection dropped by the server: {self.reason}", url=self.url)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__


def _decode(response: httpx.Response, url: str) -> JsonValue:
    body = response.content
    if len(body) > MAX_RESPONSE_BYTES:
        raise BackendError(f"response larger than {MAX_RESPONSE_BYTES} bytes", url=url)
    try:
        value: JsonValue = json.loads(body)
    except (ValueError, RecursionError) as exc:
        snippet = body[:80].decode("utf-8", "replace")
        raise BackendError(f"server sent malformed JSON ({exc}): {snippet!r}", url=url) from None
    return value


def _http_error(response: httpx.Response, url: str) -> BackendHTTPError:
    snippet = response.text[:300].strip().replace("\n", " ")
    return BackendHTTPError(
        f"HTTP {response.status_code}: {snippet or response.reason_phrase}",
        url=url,
        status_code=response.status_code,
    )
