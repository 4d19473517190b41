"""An in-process model server on 127.0.0.1 speaking the OpenAI-compatible and Ollama APIs.

Behaviour is scripted per prompt (the last user message): each request with that
prompt takes the next step of its script (the last step repeats). Steps can answer
with structured tool calls or text, fail with a status (500, 429 + Retry-After), send
a malformed body, drop the connection, or wait first. `cold_start` makes the very
first chat request wait, whatever its prompt (a local server's first prefill).

With `streams=True` an OpenAI request that asks for `stream: true` gets server-sent
events (otherwise every answer is one JSON body, as a server that ignores `stream`
sends): the step's message cut into deltas (`stream_deltas`), or the step's own
`chunks` as given, which is how the tests inject what real servers get wrong: calls
split and interleaved by index, several tokens per delta, a stream that differs from
the whole answer (`Step.streamed`), a connection dropped mid-stream (`drop_after`).
A call is `{"name", "arguments", "id"}`; arguments given as a string go out verbatim
(not JSON, cut short), and two calls may share an `id`.

    script = {"read it": [Step(status=500), Step(calls=[{"name": "read_file", ...}])]}
    with FakeServer(script) as server:
        ...  # server.openai_url, server.ollama_url
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Step:
    """One scripted answer."""

    calls: Sequence[Mapping[str, Any]] | None = None
    content: str | None = None
    status: int = 200
    retry_after: str | None = None
    delay: float = 0.0
    malformed: bool = False
    drop: bool = False
    reasoning: str | None = None
    """Sent as the message's `reasoning_content`."""
    finish_reason: str = "stop"
    chunks: Sequence[Mapping[str, Any]] | None = None
    """Streamed: these deltas, as given, instead of the message cut into deltas."""
    streamed: Step | None = None
    """Streamed: answer this step instead (a stream that differs from the whole answer)."""
    drop_after: int | None = None
    """Streamed: close the connection after this many events, before the answer ends."""


DEFAULT_STEP = Step(content="I cannot help with that.")


@dataclass
class FakeServer:
    """The server; use it as a context manager."""

    script: Mapping[str, Sequence[Step]] = field(default_factory=dict)
    models: Sequence[str] = ("test-model",)
    fingerprint: str = "fp_test_1"
    digest: str = "sha256:0123abcd"
    default: Step = DEFAULT_STEP
    requests: list[dict[str, Any]] = field(default_factory=list)
    hits: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    in_flight: int = 0
    max_in_flight: int = 0
    port: int = 0
    down: bool = False
    cold_start: float = 0.0
    posts: int = 0
    streams: bool = False
    """Answer OpenAI requests that ask for `stream: true` with server-sent events."""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"

    @property
    def ollama_url(self) -> str:
        return self.url

    def __enter__(self) -> FakeServer:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = _Server(("127.0.0.1", self.port), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Go down: refuse new connections, drop requests on open ones."""
        if self._httpd is None:
            return
        self.down = True
        self._httpd.shutdown()
        self._httpd.server_close()
        self._httpd = None

    def prompts(self) -> list[str]:
        """The last user message of every chat request received, in order."""
        with self._lock:
            return [_last_user_text(body) for body in self.requests]

    def next_step(self, body: Mapping[str, Any]) -> Step:
        prompt = _last_user_text(body)
        with self._lock:
            self.requests.append(dict(body))
            n = self.hits[prompt]
            self.hits[prompt] += 1
        steps = self.script.get(prompt)
        if not steps:
            return self.default
        return steps[min(n, len(steps) - 1)]


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timed-out case) closed its end while a late answer
        # was being written: expected, not worth a traceback on stderr.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def _last_user_text(body: Mapping[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def _arguments(call: Mapping[str, Any]) -> str:
    arguments = call.get("arguments", {})
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _openai_message(step: Step) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.content}
    if step.reasoning is not None:
        message["reasoning_content"] = step.reasoning
    if step.calls is not None:
        message["tool_calls"] = [
            {
                "id": c.get("id", f"call_{i}"),
                "type": "function",
                "function": {"name": c["name"], "arguments": _arguments(c)},
            }
            for i, c in enumerate(step.calls)
        ]
    return message


def _openai_body(fake: FakeServer, step: Step, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "system_fingerprint": fake.fingerprint,
        "choices": [
            {"index": 0, "message": _openai_message(step), "finish_reason": step.finish_reason}
        ],
    }


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def stream_deltas(step: Step) -> list[dict[str, Any]]:
    """A step's message as a server streams it: role, text in pieces, then each call.

    A call's first delta carries its index, id, type and name; its arguments follow in
    pieces of five characters, as vLLM and llama-server send them.
    """
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    if step.reasoning:
        deltas += [{"reasoning_content": p} for p in _pieces(step.reasoning, 7)]
    if step.content:
        deltas += [{"content": p} for p in _pieces(step.content, 7)]
    for i, call in enumerate(step.calls or ()):
        head = {"index": i, "id": call.get("id", f"call_{i}"), "type": "function"}
        deltas.append(
            {"tool_calls": [{**head, "function": {"name": call["name"], "arguments": ""}}]}
        )
        deltas += [
            {"tool_calls": [{"index": i, "function": {"arguments": p}}]}
            for p in _pieces(_arguments(call), 5)
        ]
    return deltas


def _event(fake: FakeServer, model: str, delta: Mapping[str, Any], finish: str | None) -> bytes:
    chunk = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "model": model,
        "system_fingerprint": fake.fingerprint,
        "choices": [{"index": 0, "delta": dict(delta), "finish_reason": finish}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def _ollama_body(step: Step, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.content or ""}
    if step.calls is not None:
        message["tool_calls"] = [
            {"function": {"name": c["name"], "arguments": c.get("arguments", {})}}
            for c in step.calls
        ]
    return {"model": model, "message": message, "done": True}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: bytes, headers: Mapping[str, str] = {}) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        fake = self.fake
        if self.path == "/v1/models":
            data: Any = {"object": "list", "data": [{"id": m} for m in fake.models]}
        elif self.path == "/api/tags":
            data = {"models": [{"name": m, "digest": fake.digest} for m in fake.models]}
        elif self.path == "/api/version":
            data = {"version": "0.9.9-test"}
        else:
            self._send(404, b'{"error": "not found"}')
            return
        self._send(200, json.dumps(data).encode())

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path not in ("/v1/chat/completions", "/api/chat"):
            self._send(404, b'{"error": "not found"}')
            return
        if self.fake.down:
            self.close_connection = True
            return
        step = self.fake.next_step(body)
        with self.fake._lock:
            self.fake.posts += 1
            first = self.fake.posts == 1
            self.fake.in_flight += 1
            self.fake.max_in_flight = max(self.fake.max_in_flight, self.fake.in_flight)
        try:
            if first and self.fake.cold_start:
                time.sleep(self.fake.cold_start)
            self._answer(step, body)
        finally:
            with self.fake._lock:
                self.fake.in_flight -= 1

    def _answer(self, step: Step, body: dict[str, Any]) -> None:
        if step.delay:
            time.sleep(step.delay)
        if step.drop:
            self.close_connection = True
            return
        if step.status != 200:
            headers = {"Retry-After": step.retry_after} if step.retry_after else {}
            self._send(step.status, b'{"error": "scripted failure"}', headers)
            return
        if step.malformed:
            self._send(200, b'{"choices": [{"message": {"content": "trunc')
            return
        model = str(body.get("model", ""))
        if self.fake.streams and body.get("stream") is True and self.path == "/v1/chat/completions":
            self._stream(step.streamed or step, model)
            return
        if self.path == "/api/chat":
            payload = _ollama_body(step, model)
        else:
            payload = _openai_body(self.fake, step, model)
        self._send(200, json.dumps(payload).encode())

    def _stream(self, step: Step, model: str) -> None:
        """Server-sent events, then the end of the body (the connection closes)."""
        deltas = list(step.chunks) if step.chunks is not None else stream_deltas(step)
        events = [_event(self.fake, model, d, None) for d in deltas]
        events += [_event(self.fake, model, {}, step.finish_reason), b"data: [DONE]\n\n"]
        if step.drop_after is not None:
            events = events[: step.drop_after]
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(event)
            self.wfile.flush()
