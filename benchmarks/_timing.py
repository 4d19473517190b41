"""Small timing helpers shared by the benchmark scripts."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def time_calls(fn: Callable[[], object], *, repeat: int, warmup: int = 50) -> list[float]:
    """Run `fn` `repeat` times; return each run's wall time in microseconds."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        out.append((time.perf_counter_ns() - start) / 1000)
    return out


def describe(samples_us: list[float]) -> str:
    """Median, p99 and max of timings in microseconds."""
    ordered = sorted(samples_us)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered):.1f} us, p99 {p99:.1f} us, max {ordered[-1]:.1f} us"
