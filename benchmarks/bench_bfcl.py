"""Benchmark: BFCL's checkers against the `bfcl` profile, single-turn and multi-turn.

Single-turn: BFCL's simple_python (400 entries), each entry's model output BFCL's own
ground truth written as a prompting-style answer (`[func(a=1, ...)]`). toolgrade
extracts the calls and judges them with the `bfcl` profile. Target: at least as fast as
bfcl-eval's decoder and `ast_checker`.

Multi-turn: BFCL's four multi-turn categories (800 entries), each
entry's recorded result the ground truth replayed as function-calling steps. The
`bfcl` profile's checker (`check_multi_turn`) and bfcl-eval's decoder and
`multi_turn_checker` judge the same results. Target: at least twice as fast.

bfcl-eval runs where its checker imports: here, or in the Python `BFCL_PYTHON` names, or
in .venv-bfcl (`make bfcl-verdicts`); without it only toolgrade's figures are printed.

    .venv/bin/python benchmarks/bench_bfcl.py [--data-dir DIR_OR_WHEEL] [--rounds N]
        [--multi-turn CATEGORY ...] [--mt-rounds N] [--skip-single-turn]
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
MT_CATEGORIES = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
MT_GOAL = 2.0
"""Multi-turn: toolgrade's checker at least this many times as fast as bfcl-eval's."""


def _bfcl_venv_python() -> Path | None:
    """A Python where bfcl-eval's checkers import: `BFCL_PYTHON`, else .venv-bfcl's."""
    if os.environ.get("BFCL_PYTHON"):
        return Path(os.environ["BFCL_PYTHON"])
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


def bfcl_importable(*extra: str) -> bool:
    """Whether bfcl-eval's decoders import here (they need tree-sitter, tenacity, filelock).

    `make` installs bfcl-eval in .venv without its dependencies, for the multi-turn API
    classes only: its decoders then do not import.
    """
    needed = ("bfcl_eval", "tree_sitter", "tenacity", "filelock", *extra)
    return all(importlib.util.find_spec(name) is not None for name in needed)


def time_bfcl(rows: list[dict[str, Any]], rounds: int) -> dict[str, float] | None:
    if bfcl_importable():
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
    parser.add_argument(
        "--multi-turn",
        nargs="*",
        default=list(MT_CATEGORIES),
        metavar="CATEGORY",
        help="Multi-turn categories to time (default: all four; none: skip multi-turn).",
    )
    parser.add_argument("--mt-rounds", type=int, default=3, help="Timed multi-turn rounds.")
    parser.add_argument("--skip-single-turn", action="store_true", help="Time multi-turn only.")
    parser.add_argument("--bfcl-only", help=argparse.SUPPRESS)
    parser.add_argument("--bfcl-mt-only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bfcl_only:
        rows = json.loads(Path(args.bfcl_only).read_text(encoding="utf-8"))
        print(json.dumps(time_bfcl_here(rows, args.rounds)))
        return 0
    if args.bfcl_mt_only:
        rows = json.loads(Path(args.bfcl_mt_only).read_text(encoding="utf-8"))
        print(json.dumps(time_bfcl_mt_here(rows, args.mt_rounds)))
        return 0
    data = find_data(args.data_dir)
    if data is None:
        print("BFCL data not found: run `make bfcl-verdicts`, or pass --data-dir (a folder or")
        print("the wheel from `pip download --no-deps bfcl-eval`).")
        return 0
    status = 0 if args.skip_single_turn else single_turn(data, args.rounds)
    if args.multi_turn:
        python = None if bfcl_importable("mpmath") else _bfcl_venv_python()
        status |= multi_turn(data, args.multi_turn, args.mt_rounds, python, __file__)
    return status


def single_turn(data: Path, rounds: int) -> int:
    """Time simple_python both ways and print the figures; 1 when the target is missed."""
    rows = bfcl_rows(data)
    # The machine may be shared: alternate the two timings twice, keep each one's best.
    ours = time_toolgrade(data, rows, rounds)
    theirs = time_bfcl(rows, rounds)
    ours = _merge(ours, time_toolgrade(data, rows, rounds))
    if theirs is not None:
        theirs = _merge(theirs, time_bfcl(rows, rounds))
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


# Multi-turn ------------------------------------------------------------------------------


def mt_rows(data: Path, categories: list[str]) -> list[dict[str, Any]]:
    """Each entry with a recorded result: its ground truth replayed as FC steps.

    A turn with calls is two steps, the calls (`[{name: "<json>"}]`, positional
    arguments bound to their names) and a closing text; a turn without is the text.
    """
    from toolgrade.bfcl._data import MultiTurnCategory, open_bfcl_data
    from toolgrade.bfcl._mt_import import bind_ground_truth, read_multi_turn_entries

    source = open_bfcl_data(data)
    rows = []
    for category in categories:
        for entry in read_multi_turn_entries(source, MultiTurnCategory(category)):
            result: list[list[Any]] = []
            for truth in entry.ground_truth:
                calls = [bind_ground_truth(text) for text in truth]
                steps = [[{c.name: json.dumps(c.arguments)} for c in calls]] if calls else []
                result.append([*steps, "Done."])
            rows.append(
                {
                    "id": entry.id,
                    "involved_classes": list(entry.involved_classes),
                    "initial_config": entry.initial_config,
                    "ground_truth": [list(t) for t in entry.ground_truth],
                    "result": result,
                }
            )
    return rows


def time_toolgrade_mt(rows: list[dict[str, Any]], rounds: int) -> dict[str, float]:
    """Entries/s of the `bfcl` profile's multi-turn checker on recorded results."""
    from toolgrade.bfcl._mt_checker import MultiTurnEntry, check_multi_turn
    from toolgrade.bfcl._mt_lockstep import call_key

    work = [
        (
            MultiTurnEntry.from_bfcl(
                r["id"], r["involved_classes"], r["initial_config"], r["ground_truth"]
            ),
            r["result"],
        )
        for r in rows
    ]
    passed = sum(check_multi_turn(e, res, prompt_mode=False).valid for e, res in work)

    def check() -> None:
        call_key.cache_clear()  # every round from cold: each call's identity parsed again
        for entry, result in work:
            check_multi_turn(entry, result, prompt_mode=False)

    return {"check": len(work) / _best(check, rounds), "pass": passed}


def time_bfcl_mt_here(rows: list[dict[str, Any]], rounds: int) -> dict[str, float]:
    """Entries/s of bfcl-eval's FC decoder and `multi_turn_checker` (importable here).

    Reproduces `_evaluate_single_multi_turn_entry` (eval_runner.py:166-260) with the
    OpenAI FC handler's `decode_execute` (`convert_to_function_call`). Every entry of
    every round gets its own model name: bfcl-eval keeps each (model, entry)'s API
    instances in module globals and would otherwise continue from the last round's
    state. They are dropped between rounds, outside the timing.
    """
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker
    from bfcl_eval.model_handler.utils import convert_to_function_call

    def evaluate(row: dict[str, Any], model_name: str) -> bool:
        result, truth = row["result"], row["ground_truth"]
        if not isinstance(result, list) or len(result) != len(truth):
            return False
        decoded = []
        for turn in result:
            steps = []
            for step in turn:
                try:
                    calls = convert_to_function_call(step)
                except Exception:  # BFCL drops a step it cannot decode
                    continue
                if not multi_turn_utils.is_empty_execute_response(calls):
                    steps.append(calls)
            decoded.append(steps)
        category = row["id"].rsplit("_", 1)[0]
        verdict = multi_turn_checker(decoded, truth, row, category, model_name)
        return bool(verdict["valid"])

    def forget() -> None:
        for name in [n for n in vars(multi_turn_utils) if n.endswith("_instance")]:
            delattr(multi_turn_utils, name)

    passed = sum(evaluate(r, f"count_{i}") for i, r in enumerate(rows))
    forget()
    best = float("inf")
    for n in range(rounds):
        start = time.perf_counter()
        for i, row in enumerate(rows):
            evaluate(row, f"round{n}_{i}")
        best = min(best, time.perf_counter() - start)
        forget()
    return {"check": len(rows) / best, "pass": passed}


def time_bfcl_mt(
    rows: list[dict[str, Any]], rounds: int, python: Path | None, script: str
) -> dict[str, float] | None:
    """bfcl-eval's figures: here, or in `python` (None: here or nowhere)."""
    if python is None:
        if not bfcl_importable("mpmath"):
            return None
        with tempfile.TemporaryDirectory() as scratch:
            os.environ.setdefault("BFCL_PROJECT_ROOT", scratch)
            return time_bfcl_mt_here(rows, rounds)
    with tempfile.TemporaryDirectory() as scratch:
        rows_file = Path(scratch) / "mt_rows.json"
        rows_file.write_text(json.dumps(rows), encoding="utf-8")
        env = {**os.environ, "BFCL_PROJECT_ROOT": scratch}
        command = [str(python), script, "--bfcl-mt-only", str(rows_file)]
        command += ["--mt-rounds", str(rounds)]
        out = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if out.returncode:
        print(f"bfcl-eval's multi-turn checker failed in {python}:\n{out.stderr[-2000:]}")
        return None
    figures: dict[str, float] = json.loads(out.stdout)
    return figures


def multi_turn(
    data: Path, categories: list[str], rounds: int, python: Path | None, script: str
) -> int:
    """Time multi-turn judging both ways and print the figures; 1 when the goal is missed."""
    rows = mt_rows(data, categories)
    # Alternate the two timings twice, keep each one's best (the machine may be shared).
    ours = time_toolgrade_mt(rows, rounds)
    theirs = time_bfcl_mt(rows, rounds, python, script)
    ours = _merge(ours, time_toolgrade_mt(rows, rounds))
    if theirs is not None:
        theirs = _merge(theirs, time_bfcl_mt(rows, rounds, python, script))
    steps = sum(len(turn) for r in rows for turn in r["result"])
    print(f"BFCL multi-turn ({', '.join(categories)}): {len(rows)} entries, {steps} steps,")
    print("  the ground truth replayed as function-calling steps")
    print(f"toolgrade, check_multi_turn (profile bfcl): {ours['check']:10,.0f} entries/s")
    if theirs is None:
        print("bfcl-eval's multi-turn checker not importable (set BFCL_PYTHON, or make")
        print("bfcl-verdicts and add mpmath to .venv-bfcl): no ratio")
        return 0
    print(f"bfcl-eval, decode + multi_turn_checker:     {theirs['check']:10,.0f} entries/s")
    print(f"passing: toolgrade {ours['pass']:.0f}, bfcl-eval {theirs['pass']:.0f} of {len(rows)}")
    ratio = ours["check"] / theirs["check"]
    verdict = "met" if ratio >= MT_GOAL else "missed"
    print(f"multi-turn ratio: {ratio:.2f}x (goal >= {MT_GOAL:.2f}x: {verdict})")
    return 0 if ratio >= MT_GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
