"""BFCL single-turn categories: instructions per entry, toolgrade against bfcl-eval.

On a shared or noisy machine the timings of `bench_bfcl.py` move from run to run; the
number of instructions an entry costs does not. Each side runs under valgrind's
callgrind twice, once with no timed pass and once with `--passes` passes over the
category (the same work as `bench_bfcl.py`'s: toolgrade's `extract_calls` + `judge`,
bfcl-eval's decoder + `ast_checker`); the difference, per entry, is printed with the
ratio. Needs valgrind, and bfcl-eval where `bench_bfcl.py` finds it (`.venv-bfcl`).

    .venv/bin/python benchmarks/count_bfcl_instructions.py [CATEGORY ...] [--passes N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import bench_bfcl


def _side(side: str, rows_file: Path, passes: int) -> None:
    """The worker: judge the rows once (warm-up), then `passes` times."""
    rows = json.loads(rows_file.read_text(encoding="utf-8"))
    if side == "toolgrade":
        import toolgrade

        data = bench_bfcl.find_data(None)
        assert data is not None
        work = [w for ws in bench_bfcl.toolgrade_work(data, rows).values() for w in ws]
        for _ in range(passes + 1):
            bench_bfcl._judge_all(work, toolgrade.extract_calls, toolgrade.judge)
        return
    import bfcl_verdicts

    checker = bfcl_verdicts.Checker()
    items = [{"style": r["style"], "output": r["output"]} for r in rows]
    for _ in range(passes + 1):
        for row, item in zip(rows, items, strict=True):
            checker.verdict(row, item)


def _instructions(python: str, side: str, rows_file: Path, passes: int) -> int:
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=" + os.devnull,
        python,
        __file__,
        "--side",
        side,
        "--rows",
        str(rows_file),
        "--passes",
        str(passes),
    ]
    # One hash seed: set and dict orders, and so the work of setting up, repeat exactly.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    out = subprocess.run(command, capture_output=True, text=True, env=env, check=True).stderr
    found = re.search(r"refs:\s+([\d,]+)", out)
    assert found is not None, out
    return int(found.group(1).replace(",", ""))


def per_entry(python: str, side: str, rows_file: Path, entries: int, passes: int) -> float:
    """Instructions per entry of one side: `passes` passes less none."""
    base = _instructions(python, side, rows_file, 0)
    return (_instructions(python, side, rows_file, passes) - base) / (entries * passes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("category", nargs="*", default=["simple_java", "simple_javascript"])
    parser.add_argument("--passes", type=int, default=20)
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--rows", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        _side(args.side, Path(args.rows), args.passes)
        return 0
    bfcl_python = bench_bfcl._bfcl_venv_python()
    data = bench_bfcl.find_data(None)
    if shutil.which("valgrind") is None or bfcl_python is None or data is None:
        print("needs valgrind, and bfcl-eval in .venv-bfcl (`make bench-peers`)")
        return 1
    os.environ.setdefault("BFCL_PROJECT_ROOT", tempfile.mkdtemp())
    print(f"{'category':24} {'toolgrade':>10} {'bfcl-eval':>10}  ratio   (instructions/entry)")
    with tempfile.TemporaryDirectory() as scratch:
        for category in args.category:
            rows = bench_bfcl.bfcl_rows(data, [category])
            rows_file = Path(scratch) / f"{category}.json"
            rows_file.write_text(json.dumps(rows), encoding="utf-8")
            ours = per_entry(sys.executable, "toolgrade", rows_file, len(rows), args.passes)
            theirs = per_entry(str(bfcl_python), "bfcl", rows_file, len(rows), args.passes)
            print(f"{category:24} {ours:10,.0f} {theirs:10,.0f}  {theirs / ours:4.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
