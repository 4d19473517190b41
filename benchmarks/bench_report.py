"""Benchmark: every report format for a 1,000-case run (target: all six < 500 ms).

The timed job is what `toolgrade run` plus `--report` of every format does: compute the
run's metrics once (with the 2,000-resample bootstrap), then render text, JSON, Markdown,
HTML, JUnit XML and Prometheus, each with a baseline comparison attached. About 40% of
the cases fail, each failure carrying a prompt, calls, argument differences and a
~400-character raw output. Each figure is the median of 7 timings.

Run: .venv/bin/python benchmarks/bench_report.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime

from toolgrade import CaseResult, RunResult, compare_runs, compute_metrics, render_report
from toolgrade.report import REPORT_FORMATS

TARGET_MS = 500.0
CASES = 1_000
REPEAT = 7
TOOLS = ["read_file", "search", "edit_file", "run_command", "list_dir", "git_diff"]
CATEGORIES = ["simple", "complex", "edge"]
FAILURES = ["wrong_args", "wrong_tool", "missed_call", "extra_calls", "parse_error", "timeout"]


def _result(i: int, rng: random.Random, accuracy: float) -> CaseResult:
    tool = TOOLS[i % len(TOOLS)]
    args = {"path": f"src/pkg/module_{i}.py", "pattern": f"def handler_{i}", "limit": 20}
    call = {"name": tool, "arguments": args}
    status = "correct" if rng.random() < accuracy else rng.choice(FAILURES)
    actual: list[object] = [call]
    pairs = [{"expected_index": 0, "actual_index": 0, "verdict": "correct", "credit": 1.0}]
    details: list[object] = []
    if status == "wrong_args":
        actual = [{"name": tool, "arguments": {**args, "path": f"src/other_{i}.py"}}]
        pairs[0] |= {"verdict": "wrong_args", "credit": 0.5}
        details = [{"path": "$.path", "reason": "value", "expected": args["path"], "actual": "x"}]
    elif status == "wrong_tool":
        actual = [{"name": "read_file" if tool != "read_file" else "search", "arguments": args}]
        pairs[0] |= {"verdict": "wrong_tool", "credit": 0.0}
    elif status in ("missed_call", "parse_error", "timeout"):
        actual, pairs = [], []
    elif status == "extra_calls":
        actual = [call, {"name": "list_dir", "arguments": {"path": "."}}]
        pairs.append({"expected_index": None, "actual_index": 1, "verdict": "extra", "credit": 0})
    return CaseResult.model_validate(
        {
            "case_id": f"TC-{i:04d}",
            "status": status,
            "score": {"correct": 1.0, "wrong_args": 0.5, "extra_calls": 0.5}.get(status, 0.0),
            "category": CATEGORIES[i % 3],
            "difficulty": ["easy", "medium", "hard"][i % 3],
            "tags": ["bench", f"group-{i % 7}"],
            "prompt": f"Case {i}: find the handler in module {i} and show me its first lines. " * 3,
            "expected": [call],
            "actual": actual,
            "pairs": pairs,
            "details": details,
            "raw_response": f'<tool_call>{{"name": "{tool}", "arguments": {{}}}}</tool_call> '
            + "reasoning " * 35,
            "latency_ms": None if status == "timeout" else rng.uniform(50, 900),
            "error": "no answer within 30 s" if status == "timeout" else None,
        }
    )


def make_run(run_id: str, accuracy: float, seed: int) -> RunResult:
    rng = random.Random(seed)
    return RunResult(
        run_id=run_id,
        suite_name="bench",
        suite_version="1",
        suite_hash="sha256:bench",
        model="bench/model",
        toolgrade_version="0",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        finished_at=datetime(2026, 1, 1, 0, 10, tzinfo=UTC),
        results=tuple(_result(i, rng, accuracy) for i in range(CASES)),
    )


def _median_ms(fn: Callable[[], object]) -> float:
    fn()  # warm-up: template compilation, imports
    samples = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> int:
    run = make_run("candidate", 0.6, seed=1)
    comparison = compare_runs(make_run("baseline", 0.65, seed=2), run)

    def all_reports() -> int:
        metrics = compute_metrics(run)
        return sum(
            len(render_report(run, fmt, comparison=comparison, metrics=metrics))
            for fmt in REPORT_FORMATS
        )

    metrics = compute_metrics(run)
    print(f"run: {CASES} cases, {metrics.failed + metrics.timeouts} failures shown")
    print(f"  compute_metrics: {_median_ms(lambda: compute_metrics(run)):7.1f} ms")
    for fmt in REPORT_FORMATS:
        size = len(render_report(run, fmt, comparison=comparison, metrics=metrics))
        ms = _median_ms(lambda f=fmt: render_report(run, f, comparison=comparison, metrics=metrics))
        print(f"  {fmt:<15}  {ms:7.1f} ms  ({size / 1024:,.0f} KiB)")
    total = _median_ms(all_reports)
    verdict = "OK" if total < TARGET_MS else "MISSED"
    print(f"all six reports incl. metrics: {total:.1f} ms (target < {TARGET_MS:.0f} ms) {verdict}")
    return 0 if total < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
