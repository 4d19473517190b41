"""Conversation harness overhead per step, against a loopback server that answers at once.

Targets (issue 16): at least 1,000 conversation steps/s at concurrency 32, and a peak
memory below 200 MB for a 2,000-conversation run. Each conversation has two user turns;
in each the model (the loopback server, in a child process) first calls `read_file`,
then, once the tool's result is the last message, answers in text: four model replies
(steps) per conversation. The environment is scripted, so what is measured is
toolgrade's own cost per step: the request with the growing history, the HTTP client
(aiohttp), extraction, executing the call in the environment, judging every turn and check at
the end, and writing `results.jsonl` with the whole transcript.

The target is absolute, so the machine matters: for scale the benchmark also prints the
rate of the HTTP client alone on the same server (one session posting one request at a
time) and the harness's time per step above it.

Run: .venv/bin/python benchmarks/bench_conversation.py [--conversations 2000] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import json
import sys

from _loopback import client_rate, completion, print_memory, timed_run

TARGET_RATE = 1000.0
TARGET_MB = 200.0
STEPS_PER_CONVERSATION = 4

_CALL = completion(
    {
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
)
_TEXT = completion({"role": "assistant", "content": "README.md says hello."})


def answer(body: bytes) -> bytes:
    """A call when the last message is the user's, text once a tool has answered."""
    messages = json.loads(body).get("messages") or [{}]
    return _TEXT if messages[-1].get("role") == "tool" else _CALL


def _suite(n: int) -> object:
    import toolgrade

    read = {"name": "read_file", "arguments": {"path": "README.md"}}
    return toolgrade.Suite.model_validate(
        {
            "schema_version": 2,
            "name": "bench-conversations",
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
            "environments": {
                "files": {
                    "kind": "scripted",
                    "rules": [{"when": {"tool": "read_file"}, "result": {"content": "hello"}}],
                }
            },
            "cases": [
                {
                    "id": f"C-{i:05d}",
                    "environment": "files",
                    "turns": [
                        {"user": f"Read README.md ({i})", "expected": read},
                        {
                            "user": "Read it again, please.",
                            "expected": read,
                            "reply": {"$contains": "hello"},
                        },
                    ],
                    "checks": {
                        "trajectory": {"calls": [read, read], "mode": "exact"},
                        "max_calls": 2,
                    },
                }
                for i in range(n)
            ],
        }
    )


def _bench(conversations: int, concurrency: int) -> int:
    timed = timed_run(
        "bench_conversation:answer", lambda: _suite(conversations), concurrency=concurrency
    )
    results = timed.run.results
    passed = sum(r.status == "correct" for r in results)
    steps = sum(len(t.steps) for r in results if r.conversation for t in r.conversation.turns)
    rate = steps / timed.elapsed
    print(
        f"conversations: {conversations}, concurrency {concurrency}, passed {passed},"
        f" steps {steps}, lines written {timed.lines}"
    )
    print(f"throughput: {rate:8.1f} steps/s   (target >= {TARGET_RATE:.0f})  {timed.elapsed:.2f} s")
    print(f"            {conversations / timed.elapsed:8.1f} conversations/s")
    peak = print_memory(timed, TARGET_MB)
    # The target is absolute, so the machine matters: the client's own rate says how fast.
    question = {"messages": [{"role": "user", "content": "?"}]}
    alone = client_rate("bench_conversation:answer", question)
    print(
        f"for scale:  {alone:8.1f} requests/s from aiohttp alone (one request at a time, no"
        f" harness): {1000 / rate - 1000 / alone:.2f} ms of harness per step above it"
    )
    ok = (
        rate >= TARGET_RATE
        and (peak is None or peak < TARGET_MB)
        and timed.lines == conversations
        and steps == conversations * STEPS_PER_CONVERSATION
    )
    print("PASS" if ok else "MISSED")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    return _bench(args.conversations, args.concurrency)


if __name__ == "__main__":
    sys.exit(main())
