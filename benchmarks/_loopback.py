"""A loopback model server for the harness benchmarks: answers every request at once.

A minimal keep-alive HTTP/1.1 server on asyncio, run in a child process so that what a
benchmark measures is toolgrade's own cost. `answer(body)` picks the bytes of each
chat completion from the request body; `GET` requests get the model list.

    with loopback("bench_runner:answer") as port:
        ...  # http://127.0.0.1:{port}/v1

`loopbacks(answer, n)` runs `n` of them (one process each), for several endpoints.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_MODELS = json.dumps({"object": "list", "data": [{"id": "bench"}]}).encode()

Answer = Callable[[bytes], bytes]
"""Request body -> the JSON body of the chat completion."""


def completion(message: dict[str, object]) -> bytes:
    """A whole chat-completion body around one assistant message."""
    return json.dumps(
        {
            "id": "bench",
            "object": "chat.completion",
            "model": "bench",
            "system_fingerprint": "fp_bench",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
    ).encode()


def _response(body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class _Loopback(asyncio.Protocol):
    """Keep-alive HTTP/1.1: read a request (headers + Content-Length body), answer at once."""

    answer: Answer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4 : end + 4 + length]
            self.buffer = self.buffer[end + 4 + length :]
            reply = _MODELS if head.startswith("GET") else type(self).answer(body)
            self.transport.write(_response(reply))  # type: ignore[attr-defined]


async def _serve(answer: Answer) -> None:
    protocol = type("Loopback", (_Loopback,), {"answer": staticmethod(answer)})
    loop = asyncio.get_running_loop()
    server = await loop.create_server(protocol, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


@contextlib.contextmanager
def loopback(answer: str) -> Iterator[int]:
    """Run the server in a child process; yield its port. `answer` is `module:function`
    of a module in this folder."""
    with loopbacks(answer, 1) as ports:
        yield ports[0]


@contextlib.contextmanager
def loopbacks(answer: str, n: int) -> Iterator[list[int]]:
    """Run `n` servers, each in its own child process; yield their ports."""
    here = str(Path(__file__).resolve().parent)
    code = f"import sys; sys.path.insert(0, {here!r}); import _loopback; _loopback.main({answer!r})"
    servers = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(n)
    ]
    try:
        ports = []
        for server in servers:
            assert server.stdout is not None
            ports.append(int(server.stdout.readline()))
        yield ports
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait()


def main(answer: str) -> None:
    """The child process: serve with the named answer function."""
    module, _, name = answer.partition(":")
    asyncio.run(_serve(getattr(importlib.import_module(module), name)))


def peak_rss_mb() -> float | None:
    """This process's peak resident memory, in MB (None where it cannot be read)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / 1024 if sys.platform == "darwin" else peak / 1024


@dataclass(frozen=True)
class Timed:
    """A run against the loopback server, timed."""

    run: Any
    """The `RunResult`."""
    elapsed: float
    """Seconds `run_suite` took."""
    lines: int
    """Lines written to the run's `results.jsonl`."""
    before_mb: float | None
    """Peak memory before the run (imports and the suite)."""


def timed_run(
    answer: str, make_suite: Callable[[], Any], *, concurrency: int, endpoints: int = 1
) -> Timed:
    """Run the suite `make_suite()` builds against the loopback server, in a fresh home.

    With `endpoints` above 1, that many servers (one process each) share the run.
    """
    with loopbacks(answer, endpoints) as ports, tempfile.TemporaryDirectory() as home:
        os.environ["TOOLGRADE_HOME"] = home
        import toolgrade

        suite = make_suite()
        before = peak_rss_mb()
        urls = tuple(f"http://127.0.0.1:{port}/v1" for port in ports)
        options = toolgrade.RunOptions(endpoints=urls, concurrency=concurrency, timeout=30)
        started = time.perf_counter()
        run = toolgrade.run_suite(suite, "openai/bench", options=options)
        elapsed = time.perf_counter() - started
        lines = len((Path(home) / "runs" / run.run_id / "results.jsonl").read_bytes().splitlines())
    return Timed(run, elapsed, lines, before)


def print_memory(timed: Timed, target_mb: float) -> float | None:
    """Print the peak memory line(s); return the peak."""
    peak = peak_rss_mb()
    shown = f"{peak:8.1f} MB" if peak is not None else "     n/a"
    print(f"peak RSS:   {shown}        (target <  {target_mb:.0f} MB)")
    if timed.before_mb is not None:
        print(f"            {timed.before_mb:8.1f} MB of it before the run (imports and the suite)")
    return peak


def client_rate(answer: str, body: dict[str, Any], requests: int = 2000) -> float:
    """Requests/s of the HTTP client alone (aiohttp) against the loopback server: one
    session, one request at a time, the same body each time (for scale: how fast this
    machine runs the client the harness uses)."""
    import asyncio

    import aiohttp

    async def post_all(port: int) -> float:
        url = f"http://127.0.0.1:{port}/v1/chat/completions"
        async with aiohttp.ClientSession() as session:
            for _ in range(50):  # warm-up: the connection, the first imports
                async with session.post(url, json=body) as response:
                    await response.json()
            started = time.perf_counter()
            for _ in range(requests):
                async with session.post(url, json=body) as response:
                    await response.json()
            return requests / (time.perf_counter() - started)

    with loopback(answer) as port:
        return asyncio.run(post_all(port))
