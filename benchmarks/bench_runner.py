"""Runner harness overhead against a loopback server that answers instantly.

Targets (issue 6): at least 500 cases/s at concurrency 32, and a peak memory below
200 MB for a 5,000-case run. The server runs in a separate process (a minimal asyncio
HTTP/1.1 server returning one canned chat completion with a tool call), so what is
measured is toolgrade's own cost per case: building the request, httpx, extraction,
judging, appending and flushing `results.jsonl` and `log.jsonl`.

Run: .venv/bin/python benchmarks/bench_runner.py [--cases 5000] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATE = 500.0
TARGET_MB = 200.0

_MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_0",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "README.md"}'},
        }
    ],
}
_COMPLETION = json.dumps(
    {
        "id": "bench",
        "object": "chat.completion",
        "model": "bench",
        "system_fingerprint": "fp_bench",
        "choices": [{"index": 0, "message": _MESSAGE, "finish_reason": "tool_calls"}],
    }
).encode()
_MODELS = json.dumps({"object": "list", "data": [{"id": "bench"}]}).encode()


def _response(body: bytes) -> bytes:
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class _Loopback(asyncio.Protocol):
    """Keep-alive HTTP/1.1: read a request (headers + Content-Length body), answer at once."""

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
            self.buffer = self.buffer[end + 4 + length :]
            body = _MODELS if head.startswith("GET") else _COMPLETION
            self.transport.write(_response(body))  # type: ignore[attr-defined]


async def _serve() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(_Loopback, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print(port, flush=True)
    async with server:
        await server.serve_forever()


def _suite(n: int) -> object:
    import toolgrade

    return toolgrade.Suite.model_validate(
        {
            "name": "bench",
            "tools": [
                {
                    "name": "read_file",
                    "parameters": {
                        "type": "object",
                        "properties": {"path": {"type": "string"}},
                        "required": ["path"],
                    },
                }
            ],
            "cases": [
                {
                    "id": f"B-{i:05d}",
                    "prompt": f"Read README.md (case {i})",
                    "expected": {"name": "read_file", "arguments": {"path": "README.md"}},
                }
                for i in range(n)
            ],
        }
    )


def _peak_rss_mb() -> float | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / 1024 if sys.platform == "darwin" else peak / 1024


def _bench(cases: int, concurrency: int) -> int:
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        with tempfile.TemporaryDirectory() as home:
            os.environ["TOOLGRADE_HOME"] = home
            import toolgrade

            suite = _suite(cases)
            before = _peak_rss_mb()
            options = toolgrade.RunOptions(
                base_url=f"http://127.0.0.1:{port}/v1", concurrency=concurrency, timeout=30
            )
            started = time.perf_counter()
            run = toolgrade.run_suite(suite, "openai/bench", options=options)  # type: ignore[arg-type]
            elapsed = time.perf_counter() - started
            lines = len(
                (Path(home) / "runs" / run.run_id / "results.jsonl").read_bytes().splitlines()
            )
    finally:
        server.terminate()
        server.wait()
    correct = sum(r.status == "correct" for r in run.results)
    rate = cases / elapsed
    peak = _peak_rss_mb()
    print(f"cases: {cases}, concurrency {concurrency}, correct {correct}, lines written {lines}")
    print(f"throughput: {rate:8.1f} cases/s   (target >= {TARGET_RATE:.0f})  {elapsed:.2f} s")
    shown = f"{peak:8.1f} MB" if peak is not None else "     n/a"
    print(f"peak RSS:   {shown}        (target <  {TARGET_MB:.0f} MB)")
    if before is not None:
        print(f"            {before:8.1f} MB of it before the run (imports and the suite)")
    ok = rate >= TARGET_RATE and (peak is None or peak < TARGET_MB) and lines == cases
    print("PASS" if ok else "MISSED")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve())
        return 0
    return _bench(args.cases, args.concurrency)


if __name__ == "__main__":
    sys.exit(main())
