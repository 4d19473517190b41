"""A model server on 127.0.0.1 that takes requests and never answers them.

`GET /v1/models` is answered (unless `stall_get`), so the run gets past its first check;
every `POST` is read and then left without an answer until the server stops (a server
stuck loading a model, or wedged). `posts` counts the requests it took.

    with StallServer() as server:
        ...  # server.openai_url
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class StallServer:
    """The server; use it as a context manager (or `start()` and `stop()`)."""

    def __init__(self, *, stall_get: bool = False) -> None:
        self.stall_get = stall_get
        self.posts = 0
        self.released = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    def start(self) -> StallServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if owner.stall_get:
                    owner.released.wait(60)
                    return
                body = json.dumps({"object": "list", "data": [{"id": "m"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.posts += 1
                owner.released.wait(60)  # never answers while the test runs

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> StallServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
