"""Runner harness overhead against a loopback server that answers instantly.

Targets (issue 6): at least 500 cases/s at concurrency 32, and a peak memory below
200 MB for a 5,000-case run. The server runs in a separate process (a minimal asyncio
HTTP/1.1 server returning one canned chat completion with a tool call), so what is
measured is toolgrade's own cost per case: building the request, the HTTP client
(aiohttp), extraction, judging, appending and flushing `results.jsonl` and `log.jsonl`.

Several endpoints (issue 19): the same cases over 4 loopback servers (one process each)
at concurrency 64, against one server at concurrency 64. Target: every server gets
within 10% of an even share of the cases (the largest deviation from n/4, over n/4);
the aggregate cases/s and its ratio to one server's are printed.

Run: .venv/bin/python benchmarks/bench_runner.py [--cases 5000] [--concurrency 32]
     [--endpoints 4] [--endpoint-concurrency 64]   (--endpoints 0 skips that part)
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from _loopback import completion, print_memory, timed_run

TARGET_RATE = 500.0
TARGET_MB = 200.0
TARGET_SPREAD = 0.10

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


def _bench_endpoints(cases: int, concurrency: int, endpoints: int) -> int:
    """The cases over `endpoints` loopback servers, and over one, at the same concurrency."""
    one = timed_run("bench_runner:answer", lambda: _suite(cases), concurrency=concurrency)
    pool = timed_run(
        "bench_runner:answer", lambda: _suite(cases), concurrency=concurrency, endpoints=endpoints
    )
    per = Counter(r.endpoint for r in pool.run.results)
    even = cases / endpoints
    spread = max(abs(per[url] - even) for url in pool.run.backend["endpoints"]) / even
    one_rate, pool_rate = cases / one.elapsed, cases / pool.elapsed
    correct = sum(r.status == "correct" for r in pool.run.results)
    print(f"\n{endpoints} endpoints, concurrency {concurrency}: correct {correct}/{cases}")
    print(f"throughput: {pool_rate:8.1f} cases/s   (one server: {one_rate:.1f} cases/s,")
    print(f"            ratio {pool_rate / one_rate:.2f})  {pool.elapsed:.2f} s")
    print(f"per endpoint: {sorted(per.values())}  (even: {even:.0f})")
    print(f"spread:     {spread:8.1%}        (target <= {TARGET_SPREAD:.0%})")
    ok = spread <= TARGET_SPREAD and correct == cases and pool.lines == cases
    print("PASS" if ok else "MISSED")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--endpoints", type=int, default=4)
    parser.add_argument("--endpoint-concurrency", type=int, default=64)
    args = parser.parse_args()
    failed = _bench(args.cases, args.concurrency)
    if args.endpoints > 1:
        failed |= _bench_endpoints(args.cases, args.endpoint_concurrency, args.endpoints)
    return failed


if __name__ == "__main__":
    sys.exit(main())
