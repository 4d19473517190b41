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
import sys

from _loopback import completion, print_memory, timed_run

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
_COMPLETION = completion(_MESSAGE)


def answer(body: bytes) -> bytes:
    """Every request gets the same tool call."""
    return _COMPLETION


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


def _bench(cases: int, concurrency: int) -> int:
    timed = timed_run("bench_runner:answer", lambda: _suite(cases), concurrency=concurrency)
    correct = sum(r.status == "correct" for r in timed.run.results)
    rate = cases / timed.elapsed
    print(
        f"cases: {cases}, concurrency {concurrency}, correct {correct}, lines written {timed.lines}"
    )
    print(f"throughput: {rate:8.1f} cases/s   (target >= {TARGET_RATE:.0f})  {timed.elapsed:.2f} s")
    peak = print_memory(timed, TARGET_MB)
    ok = rate >= TARGET_RATE and (peak is None or peak < TARGET_MB) and timed.lines == cases
    print("PASS" if ok else "MISSED")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    return _bench(args.cases, args.concurrency)


if __name__ == "__main__":
    sys.exit(main())
