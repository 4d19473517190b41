"""Benchmark: comparing two 10,000-case runs (target: < 1 s).

Timed three ways: `compare_runs` on runs already in memory (the target), the whole
`toolgrade compare A B` path (resolve both runs from the SQLite history, then compare),
and `compute_metrics` on one run (with its 2,000-resample bootstrap), for information.
Each figure is the median of 5 timings.

Run: .venv/bin/python benchmarks/bench_compare.py
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from toolgrade import CaseResult, RunResult, compare_runs, compute_metrics, resolve_run, save_run

TARGET_S = 1.0
CASES = 10_000
TOOLS = ["read_file", "grep", "edit_file", "run_command", "list_directory", "git_diff"]
CATEGORIES = ["simple", "complex", "edge"]


def make_run(run_id: str, accuracy: float, seed: int) -> RunResult:
    rng = random.Random(seed)
    results = []
    for i in range(CASES):
        ok = rng.random() < accuracy
        tool = TOOLS[i % len(TOOLS)]
        call = {"name": tool, "arguments": {"path": f"src/m{i}.py"}}
        results.append(
            CaseResult.model_validate(
                {
                    "case_id": f"TC-{i:05d}",
                    "status": "correct" if ok else rng.choice(["wrong_args", "wrong_tool"]),
                    "score": 1.0 if ok else 0.0,
                    "category": CATEGORIES[i % 3],
                    "difficulty": "medium",
                    "tags": ["bench"],
                    "expected": [call],
                    "actual": [call],
                    "raw_response": "x" * 200,
                    "latency_ms": rng.uniform(50, 900),
                }
            )
        )
    return RunResult(
        run_id=run_id,
        suite_name="bench",
        suite_version="1",
        suite_hash="h",
        model="bench/model",
        toolgrade_version="0",
        started_at=datetime.now(UTC),
        results=tuple(results),
    )


def median_seconds(fn: Callable[[], object], repeat: int = 5) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    base, cand = make_run("base", 0.85, 1), make_run("cand", 0.82, 2)
    in_memory = median_seconds(lambda: compare_runs(base, cand))
    print(f"compare_runs, 2 x {CASES:,} cases: {in_memory:.3f} s (target < {TARGET_S:.0f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "toolgrade.db"
        save = median_seconds(lambda: save_run(base, db=db), repeat=3)
        save_run(cand, db=db)
        end_to_end = median_seconds(
            lambda: compare_runs(resolve_run("base", db=db), resolve_run("cand", db=db))
        )
    print(f"resolve both from SQLite + compare: {end_to_end:.3f} s (information)")
    print(f"save_run, {CASES:,} cases: {save:.3f} s (information)")
    metrics = median_seconds(lambda: compute_metrics(base), repeat=3)
    print(f"compute_metrics, {CASES:,} cases: {metrics:.3f} s (information)")
    return 0 if in_memory < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
