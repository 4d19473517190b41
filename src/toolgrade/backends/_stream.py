"""Reading an answer body with bounds: whole JSON bodies, and streams line by line.

Model output is untrusted, so every read is capped in bytes (`MAX_RESPONSE_BYTES`,
counted after decompression) and a stream is also capped in time: a server that keeps
sending forever is cut off once the request's timeout has passed. Leaving a body
before its end closes the connection (`JsonHttp`), which is how llama-server,
llama-cpp-python, vLLM and Ollama learn to stop generating.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Protocol

import aiohttp

from toolgrade._core.json_data import JsonValue
from toolgrade.errors import BackendError, BackendTimeout

__all__ = [
    "ERROR_BODY_BYTES",
    "MAX_RESPONSE_BYTES",
    "LineSink",
    "decode_json",
    "is_stream",
    "pump_lines",
    "read_body",
]

MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""Answers (whole or streamed) larger than this are refused: model output is untrusted."""
ERROR_BODY_BYTES = 64 * 1024
"""How much of an error answer is read to report it; the rest is dropped."""
_STREAM_TYPES = ("text/event-stream", "application/x-ndjson", "application/jsonl")


class LineSink(Protocol):
    """Takes a streamed answer one line at a time (SSE or NDJSON)."""

    @property
    def done(self) -> bool:
        """True once the end-of-answer marker has been seen (nothing more is read)."""
        ...

    def feed(self, line: bytes) -> None:
        """One line, without its line ending.

        Raises:
            BackendError: the line reports a server error or is malformed.
        """
        ...


def is_stream(headers: Mapping[str, str]) -> bool:
    """Whether an answer's content type says it is a stream (SSE or NDJSON).

    Some servers ignore `stream: true` and answer with one JSON document; the caller
    reads that as a whole body (after checking it does not start like SSE anyway).
    """
    kind = headers.get("content-type", "").lower()
    return any(t in kind for t in _STREAM_TYPES)


async def read_body(
    chunks: AsyncIterator[bytes], *, url: str, limit: int | None = None, truncate: bool
) -> bytes:
    """Read a whole body, at most `limit` bytes (default `MAX_RESPONSE_BYTES`).

    Raises:
        BackendError: the body is larger than `limit` (unless `truncate`).
    """
    limit = MAX_RESPONSE_BYTES if limit is None else limit
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            if truncate:
                parts.append(chunk[: len(chunk) - (size - limit)])
                break
            raise BackendError(f"response larger than {limit} bytes", url=url)
        parts.append(chunk)
    return b"".join(parts)


async def pump_lines(
    chunks: AsyncIterator[bytes], sink: LineSink, *, url: str, timeout: float
) -> None:
    """Feed a streamed body to `sink` line by line, within `timeout` s and the size cap.

    Lines are split here rather than by the client's line reader, which buffers a line
    up to its own limit: a server that never sends a newline must hit this cap.

    Raises:
        BackendTimeout: the stream went on past `timeout`, or stalled.
        BackendError: the stream broke, grew past the cap, or reported an error.
    """
    size = 0
    pending = b""
    try:
        async with asyncio.timeout(timeout):
            async for chunk in chunks:
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise BackendError(
                        f"streamed answer larger than {MAX_RESPONSE_BYTES} bytes; stream closed",
                        url=url,
                    )
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    sink.feed(line.removesuffix(b"\r"))
                    if sink.done:
                        return
            if pending:
                sink.feed(pending.removesuffix(b"\r"))
    except aiohttp.ServerTimeoutError as exc:  # a TimeoutError too: first
        raise BackendTimeout(
            f"the stream stalled: nothing for {timeout:g} s after {size} bytes", url=url
        ) from exc
    except TimeoutError:
        raise BackendTimeout(
            f"the streamed answer took longer than {timeout:g} s; stream closed after {size} bytes",
            url=url,
        ) from None
    except aiohttp.ClientError as exc:
        reason = str(exc).strip() or type(exc).__name__
        raise BackendError(
            f"the stream broke after {size} bytes, before the answer was complete: {reason}",
            url=url,
        ) from exc


def decode_json(body: bytes, url: str) -> JsonValue:
    """Parse a JSON body.

    Raises:
        BackendError: malformed JSON.
    """
    try:
        value: JsonValue = json.loads(body)
    except (ValueError, RecursionError) as exc:
        snippet = body[:80].decode("utf-8", "replace")
        raise BackendError(f"server sent malformed JSON ({exc}): {snippet!r}", url=url) from None
    return value
