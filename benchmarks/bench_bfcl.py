"""Benchmark: score BFCL's simple_python (400 entries) with the `bfcl` profile.

Each entry's model output is BFCL's own ground truth written as a prompting-style answer
(`[func(a=1, ...)]`). toolgrade extracts the calls and judges them with the `bfcl`
profile; when bfcl-eval is available (installed here, or in .venv-bfcl from
`make bfcl-verdicts`), its own decoder and checker score the same texts and the ratio is
printed. Target: at least as fast as bfcl-eval.

    .venv/bin/python benchmarks/bench_bfcl.py [--data-dir DIR_OR_WHEEL] [--rounds N]
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import bfcl_corpus  # noqa: E402

CATEGORY = "simple_python"


def _bfcl_venv_python() -> Path | None:
    for name in ("bin/python", "Scripts/python.exe"):
        path = ROOT / ".venv-bfcl" / name
        if path.exists():
            return path
    return None


def find_data(given: str | None) -> Path | None:
    """A folder or wheel holding BFCL's data, or None."""
    if given:
        return Path(given)
    if os.environ.get("BFCL_DATA"):
        return Path(os.environ["BFCL_DATA"])
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations))) / "data"
    found = glob.glob(str(ROOT / ".venv-bfcl" / "**" / "bfcl_eval" / "data"), recursive=True)
    return Path(found[0]) if found else None


def bfcl_rows(data: Path) -> list[dict[str, Any]]:
    """BFCL's entries with their possible answers and the ground-truth output text."""
    from toolgrade.bfcl._data import BfclCategory, open_bfcl_data

    source = open_bfcl_data(data)
    rows = []
    for entry in source.entries(BfclCategory(CATEGORY)):
        answer = [dict(a) for a in entry.answer or ()]
        text = bfcl_corpus.prompting_text(bfcl_corpus.ground_truth(answer))
        rows.append(
            {"id": entry.id, "functions": list(entry.functions), "answer": answer, "text": text}
        )
    return rows


def _best(run: Any, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def time_toolgrade(data: Path, rows: list[dict[str, Any]], rounds: int) -> dict[str, float]:
    """Entries/s: extraction + judge, and the judge alone (on extracted calls)."""
    import toolgrade

    suite = toolgrade.import_bfcl([CATEGORY], data_dir=data)
    cases = {c.id: c for c in suite.cases}
    work = [(cases[r["id"]], suite.tools_for(cases[r["id"]]), r["text"]) for r in rows]
    extracted = [toolgrade.extract_calls(text) for _, _, text in work]
    passed = sum(
        toolgrade.judge(c, e, tools=t, profile="bfcl").status.value == "correct"
        for (c, t, _), e in zip(work, extracted, strict=True)
    )

    def full() -> None:
        for case, tools, text in work:
            toolgrade.judge(case, toolgrade.extract_calls(text), tools=tools, profile="bfcl")

    def judge_only() -> None:
        for (case, tools, _), extraction in zip(work, extracted, strict=True):
            toolgrade.judge(case, extraction, tools=tools, profile="bfcl")

    n = len(work)
    return {"full": n / _best(full, rounds), "check": n / _best(judge_only, rounds), "pass": passed}


def time_bfcl_here(rows: list[dict[str, Any]], rounds: int) -> dict[str, float]:
    """bfcl-eval's decode + check, and its check alone (bfcl_eval must be importable)."""
    import bfcl_verdicts

    checker = bfcl_verdicts.Checker()
    groups = [
        {"category": CATEGORY, "functions": r["functions"], "possible_answer": r["answer"]}
        for r in rows
    ]
    items = [{"style": "prompting", "output": r["text"]} for r in rows]
    language = checker.languages["python"]
    decoded = [checker.decode(i["output"], "prompting", language[1]) for i in items]
    model = bfcl_verdicts.PROMPTING_MODEL
    passed = sum(checker.verdict(g, i)["valid"] for g, i in zip(groups, items, strict=True))

    def full() -> None:
        for group, item in zip(groups, items, strict=True):
            checker.verdict(group, item)

    def check_only() -> None:
        for group, calls in zip(groups, decoded, strict=True):
            checker.ast_checker(
                group["functions"], calls, group["possible_answer"], language[0], CATEGORY, model
            )

    n = len(rows)
    return {"full": n / _best(full, rounds), "check": n / _best(check_only, rounds), "pass": passed}


def time_bfcl(rows: list[dict[str, Any]], rounds: int) -> dict[str, float] | None:
    if importlib.util.find_spec("bfcl_eval") is not None:
        with tempfile.TemporaryDirectory() as scratch:
            os.environ.setdefault("BFCL_PROJECT_ROOT", scratch)
            return time_bfcl_here(rows, rounds)
    python = _bfcl_venv_python()
    if python is None:
        return None
    with tempfile.TemporaryDirectory() as scratch:
        rows_file = Path(scratch) / "rows.json"
        rows_file.write_text(json.dumps(rows), encoding="utf-8")
        env = {**os.environ, "BFCL_PROJECT_ROOT": scratch}
        command = [str(python), __file__, "--bfcl-only", str(rows_file), "--rounds", str(rounds)]
        out = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    figures: dict[str, float] = json.loads(out.stdout)
    return figures


def _merge(a: dict[str, float], b: dict[str, float] | None) -> dict[str, float]:
    if b is None:
        return a
    return {k: max(a[k], b[k]) for k in a}


def main() -> int:
    parser = argparse.ArgumentParser(description="Score BFCL simple_python with the bfcl profile.")
    parser.add_argument("--data-dir", help="BFCL data: a folder or a bfcl_eval wheel.")
    # A round takes about 10 ms: on a shared machine, 5 rounds left either side's best
    # several percent off its true cost, from run to run.
    parser.add_argument("--rounds", type=int, default=20, help="Timed rounds; the best counts.")
    parser.add_argument("--bfcl-only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bfcl_only:
        rows = json.loads(Path(args.bfcl_only).read_text(encoding="utf-8"))
        print(json.dumps(time_bfcl_here(rows, args.rounds)))
        return 0
    data = find_data(args.data_dir)
    if data is None:
        print("BFCL data not found: run `make bfcl-verdicts`, or pass --data-dir (a folder or")
        print("the wheel from `pip download --no-deps bfcl-eval`).")
        return 0
    rows = bfcl_rows(data)
    # The machine may be shared: alternate the two timings twice, keep each one's best.
    ours = time_toolgrade(data, rows, args.rounds)
    theirs = time_bfcl(rows, args.rounds)
    ours = _merge(ours, time_toolgrade(data, rows, args.rounds))
    if theirs is not None:
        theirs = _merge(theirs, time_bfcl(rows, args.rounds))
    print(f"BFCL {CATEGORY}: {len(rows)} entries, ground-truth answers as prompting text")
    print(f"toolgrade, extract + judge (profile bfcl): {ours['full']:10,.0f} entries/s")
    print(f"toolgrade, judge only:                     {ours['check']:10,.0f} entries/s")
    if theirs is None:
        print("bfcl-eval not installed (make bfcl-verdicts installs it in .venv-bfcl): no ratio")
        return 0
    print(f"bfcl-eval, decode + ast_checker:           {theirs['full']:10,.0f} entries/s")
    print(f"bfcl-eval, ast_checker only:               {theirs['check']:10,.0f} entries/s")
    print(f"passing: toolgrade {ours['pass']:.0f}, bfcl-eval {theirs['pass']:.0f} of {len(rows)}")
    ratio = ours["full"] / theirs["full"]
    verdict = "met" if ratio >= 1 else "missed"
    print(f"ratio with extraction: {ratio:.2f}x (target >= 1.00x: {verdict});")
    print(f"ratio, checking only:  {ours['check'] / theirs['check']:.2f}x")
    return 0 if ratio >= 1 else 1


if __name__ == "__main__":
    sys.exit(main())
