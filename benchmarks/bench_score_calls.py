"""Benchmark: score_calls on 10-call lists (target: median < 50 us).

The target applies to the realistic case: an agent's 10 calls against the 10 expected,
mostly right (two wrong arguments, one pair swapped), timed with flat arguments (a path and
a line number, as most tool calls have) and with nested ones (an object holding a boolean
and an array). Two adversarial layouts are timed
too, for information: many calls of the same tool force real assignment problems.

Run: .venv/bin/python benchmarks/bench_score_calls.py
"""

from __future__ import annotations

import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _timing import describe, time_calls

from toolgrade import score_calls

TARGET_US = 50.0
TOOLS = ["read_file", "grep", "edit_file", "run_command", "list_directory", "git_diff"]


def flat_call(rng: random.Random, name: str) -> dict[str, object]:
    return {
        "tool": name,
        "args": {"path": f"src/m{rng.randint(0, 3)}.py", "line": rng.randint(1, 3)},
    }


def call(rng: random.Random, name: str) -> dict[str, object]:
    return {
        "tool": name,
        "args": {
            "path": f"src/m{rng.randint(0, 3)}.py",
            "line": rng.randint(1, 3),
            "opts": {"recursive": rng.random() < 0.5, "tags": ["a", "b"]},
        },
    }


def realistic(
    rng: random.Random, make: object = call
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    expected = [make(rng, rng.choice(TOOLS)) for _ in range(10)]  # type: ignore[operator]
    actual = [dict(c) for c in expected]
    for k in rng.sample(range(10), 2):
        actual[k] = {**actual[k], "args": {**actual[k]["args"], "line": 99}}  # type: ignore[dict-item]
    i, j = rng.sample(range(10), 2)
    actual[i], actual[j] = actual[j], actual[i]
    return expected, actual


def adversarial(rng: random.Random, names: list[str]) -> tuple[list[dict[str, object]], ...]:
    return [call(rng, rng.choice(names)) for _ in range(10)], [
        call(rng, rng.choice(names)) for _ in range(10)
    ]


def run(label: str, pairs: list[tuple[list[dict[str, object]], ...]], target: bool) -> bool:
    samples: list[float] = []
    for exp, act in pairs:
        samples += time_calls(lambda e=exp, a=act: score_calls(e, a), repeat=100, warmup=5)
    note = f" (target median < {TARGET_US:.0f} us)" if target else " (information)"
    print(f"score_calls, {label}: {describe(samples)}{note}")
    return statistics.median(samples) < TARGET_US or not target


def main() -> int:
    rng = random.Random(7)
    flat = [realistic(rng, flat_call) for _ in range(50)]
    ok = run("10 vs 10 calls, realistic, flat arguments", flat, True)
    ok &= run(
        "10 vs 10 calls, realistic, nested arguments", [realistic(rng) for _ in range(50)], True
    )
    run("10 vs 10 random calls of 3 tools", [adversarial(rng, TOOLS[:3]) for _ in range(50)], False)
    run("10 vs 10 random calls of 1 tool", [adversarial(rng, TOOLS[:1]) for _ in range(50)], False)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
