"""Streamed answers put back together into the message a non-streamed answer gives.

The raw output toolgrade keeps must not depend on whether the answer was streamed:
extraction and stored runs see the same assistant message either way. Text fields
(`content`, `reasoning_content`, Ollama's `thinking`, ...) are concatenated; OpenAI
tool calls are assembled by `index` (`id` and `type` from their first delta, the
`function.arguments` pieces concatenated); Ollama sends whole tool calls, which are
appended.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._types import ChatReply
from toolgrade.errors import BackendError

__all__ = ["OllamaStream", "OpenAIStream"]

_SHOWN = 300


def _loads(text: str) -> JsonValue:
    value: JsonValue = json.loads(text)
    return value


def _merge_text(target: JsonObject, key: str, value: JsonValue) -> None:
    """Concatenate strings, keep a null only when nothing came yet, else last wins."""
    previous = target.get(key)
    if isinstance(value, str):
        target[key] = (previous if isinstance(previous, str) else "") + value
    elif value is None:
        target.setdefault(key, None)
    else:
        target[key] = value


def _has_token(delta: JsonObject) -> bool:
    """Whether a delta carries model output (text or a tool call), not just a role."""
    for key, value in delta.items():
        if key == "tool_calls" and isinstance(value, list) and value:
            return True
        if key != "role" and isinstance(value, str) and value:
            return True
    return False


class _Stream(ABC):
    """What both stream shapes share: the merged message, timing, finish reason."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.done = False
        self.finish_reason: str | None = None
        self.identity: JsonObject = {}
        self.first_token_at: float | None = None
        """`time.perf_counter()` when the first text or tool call arrived."""
        self._fields: JsonObject = {}

    def _error(self, what: str, detail: object) -> BackendError:
        text = detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)
        return BackendError(f"{what}: {text[:_SHOWN]}", url=self.url)

    def _note_identity(self, chunk: JsonObject, keys: tuple[str, ...]) -> None:
        for key in keys:
            value = chunk.get(key)
            if isinstance(value, str) and value:
                self.identity[key] = value

    def _take(self, delta: JsonObject) -> None:
        if self.first_token_at is None and _has_token(delta):
            self.first_token_at = time.perf_counter()
        for key, value in delta.items():
            if key == "tool_calls":
                self._take_calls(value)
            elif key == "role":
                if isinstance(value, str) and value:
                    self._fields["role"] = value
            else:
                _merge_text(self._fields, key, value)

    @abstractmethod
    def _take_calls(self, value: JsonValue) -> None:
        """Add one delta's tool calls (each API streams them in its own shape)."""

    @abstractmethod
    def message(self) -> JsonObject:
        """The assistant message, shaped as a whole (non-streamed) answer gives it."""

    def reply(self, started: float) -> ChatReply:
        """The reply to a request sent at `started` (`time.perf_counter()`).

        Raises:
            BackendError: the stream had no complete answer.
        """
        message = self.message()
        first = self.first_token_at
        return ChatReply(
            raw=message,
            latency_ms=(time.perf_counter() - started) * 1000.0,
            identity=self.identity,
            ttft_ms=None if first is None else (first - started) * 1000.0,
            finish_reason=self.finish_reason,
        )

    def _message(self, *, empty_content: str | None) -> JsonObject:
        fields = dict(self._fields)
        role = fields.pop("role", "assistant")
        content = fields.pop("content", empty_content)
        return {"role": role, "content": content, **fields}


class OpenAIStream(_Stream):
    """Server-sent events of `chat.completion.chunk`s (a `LineSink`).

    Examples:
        >>> s = OpenAIStream("u")
        >>> for line in [b'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}}]}', b"",
        ...              b'data: {"choices": [{"delta": {}, "finish_reason": "stop"}]}', b"",
        ...              b"data: [DONE]", b""]:
        ...     s.feed(line)
        >>> s.message(), s.finish_reason
        ({'role': 'assistant', 'content': 'Hi'}, 'stop')
    """

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self._data: list[str] = []
        self._event = ""
        self._calls: dict[int, JsonObject] = {}
        self._choices = 0

    def feed(self, line: bytes) -> None:
        """One SSE line: fields accumulate until a blank line dispatches the event."""
        text = line.decode("utf-8", "replace")
        if not text:
            self._dispatch()
            return
        if text.startswith(":"):
            return  # a comment: sse-starlette's pings (llama-cpp-python)
        field, _, value = text.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "error":
            # llama-server reports a failure mid-stream as `error: {...}`.
            raise self._error("the server reported an error mid-stream", value)

    def _dispatch(self) -> None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return
        if event == "error":
            raise self._error("the server reported an error mid-stream", "\n".join(data))
        if len(data) == 1 or data[0].strip() == "[DONE]":
            documents = [data[0]]
        else:
            documents = ["\n".join(data)]
            try:
                _loads(documents[0])
            except ValueError:
                documents = data  # one JSON per `data:` line, without blank lines between
        for document in documents:
            if document.strip() == "[DONE]":
                self.done = True
                return
            self._chunk(document)

    def _chunk(self, document: str) -> None:
        try:
            chunk = _loads(document)
        except (ValueError, RecursionError):
            raise self._error("the server sent a malformed stream event", document) from None
        if not isinstance(chunk, dict):
            raise self._error("the server sent a malformed stream event", document)
        if "error" in chunk:
            raise self._error("the server reported an error mid-stream", chunk["error"])
        self._note_identity(chunk, ("system_fingerprint", "model"))
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            return
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue  # only the first choice is kept, as for a whole answer
            self._choices += 1
            reason = choice.get("finish_reason")
            if isinstance(reason, str) and reason:
                self.finish_reason = reason
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._take(delta)

    def _take_calls(self, value: JsonValue) -> None:
        if not isinstance(value, list):
            return
        for piece in value:
            if not isinstance(piece, dict):
                continue
            index = piece.get("index")
            if not isinstance(index, int):
                # No index: a new id starts a new call, anything else continues the last.
                last = max(self._calls) if self._calls else -1
                new_id = piece.get("id")
                same = last >= 0 and (not new_id or new_id == self._calls[last].get("id"))
                index = last if same else last + 1
            self._merge_call(self._calls.setdefault(index, {}), piece)

    @staticmethod
    def _merge_call(entry: JsonObject, piece: JsonObject) -> None:
        for key, value in piece.items():
            if key == "index":
                continue
            if key == "function" and isinstance(value, dict):
                function = entry.get("function")
                if not isinstance(function, dict):
                    function = entry["function"] = {}
                for name, part in value.items():
                    # Some servers repeat the whole name in every delta: do not double it.
                    if name == "name" and part == function.get("name"):
                        continue
                    _merge_text(function, name, part)
            elif key in ("id", "type"):
                if value and not entry.get(key):
                    entry[key] = value
            else:
                entry[key] = value

    def message(self) -> JsonObject:
        """The assistant message, shaped like `choices[0].message` of a whole answer.

        Raises:
            BackendError: the stream had no answer, or stopped without a finish reason.
        """
        self._dispatch()  # an event cut off by the end of the body (no final blank line)
        if not self._choices:
            raise BackendError("the stream ended without an answer", url=self.url)
        if self.finish_reason is None:
            raise BackendError(
                "the stream ended without a finish_reason: the answer was cut off"
                " (llama-cpp-python ends a stream early when another request arrives:"
                " run with --concurrency 1; if this server never sends one, turn"
                " streaming off with --option stream=false)",
                url=self.url,
            )
        message = self._message(empty_content=None)
        if self._calls:
            message["tool_calls"] = [self._calls[i] for i in sorted(self._calls)]
        return message


class OllamaStream(_Stream):
    """Ollama's NDJSON stream from `/api/chat` (a `LineSink`).

    Examples:
        >>> s = OllamaStream("u")
        >>> s.feed(b'{"model": "m", "message": {"role": "assistant", "content": "Hi"}}')
        >>> s.feed(b'{"message": {"content": ""}, "done": true, "done_reason": "stop"}')
        >>> s.message(), s.finish_reason
        ({'role': 'assistant', 'content': 'Hi'}, 'stop')
    """

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self._calls: list[JsonValue] = []

    def feed(self, line: bytes) -> None:
        """One JSON object per line; the last says `done`."""
        if not line.strip():
            return
        text = line.decode("utf-8", "replace")
        try:
            chunk = _loads(text)
        except (ValueError, RecursionError):
            raise self._error("the server sent a malformed stream line", text) from None
        if not isinstance(chunk, dict):
            raise self._error("the server sent a malformed stream line", text)
        if "error" in chunk:
            raise self._error("the server reported an error mid-stream", chunk["error"])
        self._note_identity(chunk, ("model",))
        message = chunk.get("message")
        if isinstance(message, dict):
            self._take(message)
        if chunk.get("done") is True:
            self.done = True
            reason = chunk.get("done_reason")
            if isinstance(reason, str) and reason:
                self.finish_reason = reason

    def _take_calls(self, value: JsonValue) -> None:
        if isinstance(value, list):
            self._calls.extend(value)

    def message(self) -> JsonObject:
        """The assistant message, shaped like the `message` of a whole answer.

        Raises:
            BackendError: the stream ended before Ollama said it was done.
        """
        if not self.done:
            raise BackendError(
                "the stream ended before the answer was complete (no `done`)", url=self.url
            )
        message = self._message(empty_content="")
        if self._calls:
            message["tool_calls"] = list(self._calls)
        return message
