"""Benchmark: loading and validating suites.

Targets: the built-in suite loads and validates in < 100 ms (the specification's bound);
a generated 10,000-case suite loads in < 2 s using < 200 MB.

Timed: `parse_suite` on the built-in suite's text (JSON parse, JSON Schema validation,
semantic checks, model building): the first call in the process (cold: it also compiles
the suite schema's validator) and the median of 20 warm calls. The 10,000-case suite is
built by cycling the built-in cases under new ids (so it holds the same matchers,
alternatives and conversations) and loaded from a file with `load_suite`: the median of
3 timings, then its peak traced memory (tracemalloc, a separate run since tracing slows
Python down), and the peak resident size of a fresh process that only imports toolgrade
and loads the file (both must stay under 200 MB).

Run: .venv/bin/python benchmarks/bench_suite.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from toolgrade import load_suite, parse_suite
from toolgrade.suite._builtin import builtin_suite_text

BUILTIN_TARGET_MS = 100.0
LARGE_TARGET_S = 2.0
LARGE_TARGET_MB = 200.0
LARGE_CASES = 10_000


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def bench_builtin() -> tuple[float, float]:
    text = builtin_suite_text("coding-agent")
    start = time.perf_counter()
    parse_suite(text)
    cold = _ms(start)
    warm = []
    for _ in range(20):
        start = time.perf_counter()
        parse_suite(text)
        warm.append(_ms(start))
    return cold, statistics.median(warm)


def make_large(path: Path) -> None:
    data = json.loads(builtin_suite_text("coding-agent"))
    base = data["cases"]
    cases = []
    for i in range(LARGE_CASES):
        case = dict(base[i % len(base)])
        case["id"] = f"GEN-{i:05d}"
        cases.append(case)
    data["cases"] = cases
    data["name"] = "generated"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


_CHILD = """
import sys
from pathlib import Path
import toolgrade
if sys.argv[1] != "-":
    suite = toolgrade.load_suite(sys.argv[1])
status = Path("/proc/self/status")
if status.exists():  # VmHWM restarts at exec; ru_maxrss may keep the parent's peak
    line = next(x for x in status.read_text().splitlines() if x.startswith("VmHWM:"))
    print(int(line.split()[1]) / 1024)
else:
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024)
"""


def _child_peak_rss_mb(path: str) -> float | None:
    """Peak resident size of a fresh process that imports toolgrade and loads `path`."""
    if sys.platform == "win32":
        return None
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, path], check=True, capture_output=True, text=True
    )
    return float(out.stdout.strip())


def bench_large(path: Path) -> tuple[float, float, int]:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        suite = load_suite(path)
        times.append(time.perf_counter() - start)
    n = len(suite.cases)
    del suite
    tracemalloc.start()
    suite = load_suite(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del suite
    return statistics.median(times), peak / (1024 * 1024), n


def main() -> int:
    cold, warm = bench_builtin()
    print(
        f"built-in coding-agent load+validate: first call {cold:.1f} ms, "
        f"median of 20 {warm:.1f} ms (target < {BUILTIN_TARGET_MS:.0f} ms)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "large.json"
        make_large(path)
        size_mb = path.stat().st_size / (1024 * 1024)
        seconds, peak_mb, n = bench_large(path)
        rss = _child_peak_rss_mb(str(path))
        base = _child_peak_rss_mb("-")
    rss_text = (
        f"; a fresh process importing toolgrade and loading it peaks at {rss:.0f} MB RSS"
        f" ({base:.0f} MB for the import alone)"
        if rss is not None and base is not None
        else ""
    )
    print(
        f"generated {n}-case suite ({size_mb:.1f} MB of JSON): load+validate median "
        f"{seconds:.2f} s (target < {LARGE_TARGET_S:.0f} s), peak traced memory "
        f"{peak_mb:.0f} MB (target < {LARGE_TARGET_MB:.0f} MB){rss_text}"
    )
    ok = (
        max(cold, warm) < BUILTIN_TARGET_MS
        and seconds < LARGE_TARGET_S
        and peak_mb < LARGE_TARGET_MB
        and (rss is None or rss < LARGE_TARGET_MB)
    )
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
