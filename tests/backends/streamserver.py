"""An in-process HTTP server on 127.0.0.1 that streams scripted answers.

Routes are `"METHOD /path"`; each maps to a list of `Reply`s (each request takes the
next one, the last repeats) or to a function of the request body. A reply is a whole
body, or chunks sent one by one with chunked transfer encoding, optionally followed by
an endless stream that only stops when the client goes away: `disconnected` is set
when a write fails, which is how a test sees that the client closed the stream.

    with StreamServer({"POST /v1/chat/completions": [Reply(chunks=[...])]}) as server:
        ...  # server.openai_url, server.url
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SSE = "text/event-stream"
JSON = "application/json"
NDJSON = "application/x-ndjson"


@dataclass(frozen=True)
class Reply:
    """One scripted answer."""

    status: int = 200
    body: bytes | None = None
    chunks: Sequence[bytes] = ()
    gap: float = 0.0
    endless: bytes | None = None
    drop_after: bool = False
    content_type: str = SSE
    headers: Mapping[str, str] = field(default_factory=dict)


Route = Sequence[Reply] | Callable[[dict[str, Any]], Reply]


def sse(payload: object) -> bytes:
    """One server-sent event carrying `payload` as JSON."""
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


DONE = b"data: [DONE]\n\n"


def chunk(delta: Mapping[str, Any] | None = None, finish: str | None = None) -> bytes:
    """A `chat.completion.chunk` event for choice 0."""
    return sse(
        {
            "id": "chatcmpl-s",
            "object": "chat.completion.chunk",
            "model": "test-model",
            "system_fingerprint": "fp_stream",
            "choices": [{"index": 0, "delta": dict(delta or {}), "finish_reason": finish}],
        }
    )


def completion(message: Mapping[str, Any], finish: str = "stop") -> Reply:
    """A whole (non-streamed) chat completion."""
    body = {
        "id": "chatcmpl-w",
        "object": "chat.completion",
        "model": "test-model",
        "system_fingerprint": "fp_whole",
        "choices": [{"index": 0, "message": dict(message), "finish_reason": finish}],
    }
    return Reply(body=json.dumps(body).encode(), content_type=JSON)


def models(*names: str, owned_by: str | None = None, **headers: str) -> Reply:
    """A `/v1/models` listing."""
    data = [
        {"id": n, "object": "model", **({"owned_by": owned_by} if owned_by else {})} for n in names
    ]
    body = json.dumps({"object": "list", "data": data}).encode()
    return Reply(body=body, content_type=JSON, headers=headers)


def document(payload: object, status: int = 200) -> Reply:
    """A JSON document."""
    return Reply(status=status, body=json.dumps(payload).encode(), content_type=JSON)


@dataclass
class StreamServer:
    """The server; use it as a context manager."""

    routes: Mapping[str, Route] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    hits: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    started: threading.Event = field(default_factory=threading.Event)
    disconnected: threading.Event = field(default_factory=threading.Event)
    sent: int = 0

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

    def bodies(self, path: str) -> list[dict[str, Any]]:
        """The JSON bodies received on `path`, in order."""
        return [body for p, body in self.requests if p == path]

    def __enter__(self) -> StreamServer:
        handler = type("Handler", (_Handler,), {"server_state": self})
        self._httpd = _QuietServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()

    def reply_for(self, key: str, path: str, body: dict[str, Any]) -> Reply | None:
        with self._lock:
            self.requests.append((path, body))
            n = self.hits[key]
            self.hits[key] += 1
        route = self.routes.get(key)
        if route is None:
            return None
        if callable(route):
            return route(body)
        return route[min(n, len(route) - 1)]


class _Handler(BaseHTTPRequestHandler):
    server_state: StreamServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    server_header = "BaseHTTP/0.6 Python"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def version_string(self) -> str:
        return self.server_header

    def do_GET(self) -> None:
        self._serve("GET", {})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._serve("POST", json.loads(self.rfile.read(length) or b"{}"))

    def _serve(self, method: str, body: dict[str, Any]) -> None:
        state = self.server_state
        reply = state.reply_for(f"{method} {self.path}", self.path, body)
        if reply is None:
            reply = document({"error": "not found"}, status=404)
        headers = dict(reply.headers)
        self.server_header = headers.pop("Server", _Handler.server_header)
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        for key, value in headers.items():
            self.send_header(key, value)
        if reply.body is not None:
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            self._stream(reply)
        except (BrokenPipeError, ConnectionResetError):
            state.disconnected.set()
            self.close_connection = True

    def _stream(self, reply: Reply) -> None:
        state = self.server_state
        state.started.set()
        for data in reply.chunks:
            self._write(data, reply.gap)
        if reply.endless is not None:
            deadline = time.monotonic() + 20.0
            while time.monotonic() < deadline:
                self._write(reply.endless, max(reply.gap, 0.005))
        if reply.drop_after:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write(self, data: bytes, gap: float) -> None:
        if gap:
            time.sleep(gap)
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()
        self.server_state.sent += 1


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hung up (a closed stream, a finished probe) is expected: no
        # traceback on stderr, where the CLI tests would read it as output.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)
