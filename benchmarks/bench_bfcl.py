"""Benchmark: BFCL's checkers against the `bfcl` profile, single-turn and multi-turn.

Single-turn: every single-turn category bfcl-eval judges with `ast_checker`, plus the
three (ir)relevance categories (judged by decoding alone). Each entry's model output is
its ground truth (the first acceptable value of each argument, as scripts/bfcl_corpus.py
writes it): Python categories as prompting text (`[func(a=1, ...)]`), Java and
JavaScript in function-calling style (`{name: "<json arguments>"}` with source-text
values: bfcl-eval's prompting decoder for them needs tree-sitter, and toolgrade reads
no Java source). Irrelevance entries answer with prose, live_relevance entries call
their first function. toolgrade extracts the calls and judges them with the `bfcl`
profile (`extract_calls` + `judge`); bfcl-eval decodes and checks them as its evaluator
does (`_evaluate_single_ast_entry`, `_evaluate_single_relevance_entry`). Goal: at least
twice bfcl-eval's entries/s on every category it checks with `ast_checker`, in one run,
with the same pass counts. The (ir)relevance categories are shown but not part of the
goal: bfcl-eval runs no checker on them (`DECODE_ONLY`). Each side's figure is its best
round (CPU time of its own process) over `--alternations` alternating timings; `cold`
is toolgrade judging fresh copies of the cases once (nothing compiled or remembered).

Multi-turn: BFCL's four multi-turn categories (800 entries), each
entry's recorded result the ground truth replayed as function-calling steps. The
`bfcl` profile's checker (`check_multi_turn`) and bfcl-eval's decoder and
`multi_turn_checker` judge the same results. Target: at least twice as fast.

bfcl-eval runs where its checker imports: here, or in the Python `BFCL_PYTHON` names, or
in .venv-bfcl (`make bfcl-verdicts`); without it only toolgrade's figures are printed.

    .venv/bin/python benchmarks/bench_bfcl.py [--data-dir DIR_OR_WHEEL] [--rounds N]
        [--alternations N] [--category CATEGORY ...] [--multi-turn CATEGORY ...]
        [--mt-rounds N] [--skip-single-turn]

`--multi-turn` with no category skips multi-turn.
"""

from __future__ import annotations

import argparse
import copy
import glob
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import bfcl_corpus  # noqa: E402

CATEGORIES = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "irrelevance",
    "live_irrelevance",
    "live_relevance",
)
GOAL = 2.0
"""Single-turn: toolgrade's decode + judge at least this many times bfcl-eval's, per category."""
DECODE_ONLY = ("irrelevance", "live_irrelevance", "live_relevance")
"""Categories bfcl-eval judges by decoding alone (`_evaluate_single_relevance_entry`: does
its decoder return a call?), with no checker: timed and shown, but outside the goal, as
their ratio sets toolgrade's search of every format against one failed `ast.parse`."""
MIN_ROUND = 400
"""A timed round judges each category's entries over and over, at least this many in all
(live_parallel has 16 entries: one pass is too short to time)."""
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


def bfcl_rows(data: Path, categories: list[str]) -> list[dict[str, Any]]:
    """Every entry of the categories, with its docs, its possible answer and an output.

    The output is what scripts/bfcl_corpus.py calls the ground truth (its `outputs_for`
    writes the same text), in BFCL's result shape: text, or a `{name: "<json>"}` list.
    """
    from toolgrade.bfcl._data import BfclCategory, open_bfcl_data

    source = open_bfcl_data(data)
    rows = []
    for category in categories:
        for entry in source.entries(BfclCategory(category)):
            group = {
                "id": entry.id,
                "category": category,
                "functions": [dict(f) for f in entry.functions],
                "possible_answer": None
                if entry.answer is None
                else [dict(a) for a in entry.answer],
            }
            style, output = _ground_truth_output(group)
            rows.append({**group, "style": style, "output": output})
    return rows


def _ground_truth_output(group: dict[str, Any]) -> tuple[str, Any]:
    category = group["category"]
    if group["possible_answer"] is None:
        if category == "live_relevance":  # a call of the first function, as the corpus's
            outputs = bfcl_corpus.outputs_for(group)
            return "prompting", next(o["output"] for o in outputs if o["mutation"] == "a_call")
        return "prompting", bfcl_corpus.NO_CALL_TEXT
    calls = bfcl_corpus.ground_truth(group["possible_answer"])
    language = bfcl_corpus.LANGUAGES.get(category)
    if language is None:
        return "prompting", bfcl_corpus.prompting_text(calls)
    return "fc", bfcl_corpus.fc_result(bfcl_corpus.source_calls(group, calls, language))


def _best(run: Callable[[], object], rounds: int) -> float:
    """The shortest of `rounds` runs, in CPU seconds of this process.

    CPU time, not wall time: the machine may be shared, and a round another process
    preempts would count that process's work (both sides are timed the same way).
    """
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def _by_category(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        out.setdefault(row["category"], []).append(row)
    return out


def _passes(n: int) -> int:
    """How many passes over `n` entries one timed round makes (at least MIN_ROUND entries)."""
    return max(1, math.ceil(MIN_ROUND / n))


Figures = dict[str, dict[str, float]]
"""Per category: `full` (decode + check, entries/s), `check` (check alone), `pass`."""


Work = dict[str, list[tuple[Any, Any, Any]]]
"""Per category: (case, its tools, the model output as a run records it) per entry."""


def toolgrade_work(data: Path, rows: list[dict[str, Any]]) -> Work:
    """The imported cases, with their tools and outputs, per category (imported once)."""
    import toolgrade
    from toolgrade.bfcl._results import convert_result

    groups = _by_category(rows)
    suite = toolgrade.import_bfcl(list(groups), data_dir=data)
    cases = {c.id: c for c in suite.cases}
    works: Work = {}
    for category, members in groups.items():
        work = works[category] = []
        for r in members:
            case = cases[r["id"]]
            response = convert_result(r["id"], r["output"])
            output = response.output if response.output is not None else response.message
            work.append((case, suite.tools_for(case), output))
    return works


def time_toolgrade(works: Work, rounds: int) -> Figures:
    """Per category, entries/s: extraction + judge, and the judge alone (on extracted calls)."""
    import toolgrade

    extract, judge = toolgrade.extract_calls, toolgrade.judge
    figures: Figures = {}
    for category, work in works.items():
        passes = _passes(len(work))
        extracted = [extract(output) for _, _, output in work]
        passed = sum(
            judge(c, e, tools=t, profile="bfcl").status.value == "correct"
            for (c, t, _), e in zip(work, extracted, strict=True)
        )

        def full(work: list[tuple[Any, Any, Any]] = work, passes: int = passes) -> None:
            for _ in range(passes):
                _judge_all(work, extract, judge)

        def judge_only(
            work: list[tuple[Any, Any, Any]] = work,
            extracted: list[Any] = extracted,
            passes: int = passes,
        ) -> None:
            for _ in range(passes):
                for (case, tools, _), extraction in zip(work, extracted, strict=True):
                    judge(case, extraction, tools=tools, profile="bfcl")

        n = len(work) * passes
        figures[category] = {
            "full": n / _best(full, rounds),
            "check": n / _best(judge_only, rounds),
            "pass": passed,
        }
    return figures


def time_toolgrade_cold(works: Work, rounds: int) -> dict[str, float]:
    """Per category, entries/s of extraction + judge of every entry once, on fresh copies.

    Nothing derived from a copied case or tool (a compiled checker) is remembered yet:
    what judging a suite once costs. Timed after everything else, so that the copies do
    not weigh on the other timings.
    """
    import toolgrade

    extract, judge = toolgrade.extract_calls, toolgrade.judge
    cold: dict[str, float] = {}
    for category, work in works.items():
        best = float("inf")
        for _ in range(min(rounds, 3)):
            fresh = copy.deepcopy(work)
            best = min(best, _best(lambda w=fresh: _judge_all(w, extract, judge), 1))
        cold[category] = len(work) / best
    return cold


def _judge_all(work: list[tuple[Any, Any, Any]], extract: Any, judge: Any) -> None:
    for case, tools, output in work:
        judge(case, extract(output), tools=tools, profile="bfcl")


def time_bfcl_here(rows: list[dict[str, Any]], rounds: int) -> Figures:
    """Per category, bfcl-eval's decode + check, and its check alone (bfcl_eval importable).

    (Ir)relevance entries have no `ast_checker` step: `check` is not timed for them.
    """
    import bfcl_verdicts

    checker = bfcl_verdicts.Checker()
    figures: Figures = {}
    for category, members in _by_category(rows).items():
        items = [{"style": r["style"], "output": r["output"]} for r in members]
        passed = sum(checker.verdict(g, i)["valid"] for g, i in zip(members, items, strict=True))
        n = len(members) * _passes(len(members))
        full = _full_round(checker, members, items)
        figures[category] = {"full": n / _best(full, rounds), "pass": passed}
        if members[0]["possible_answer"] is not None:
            figures[category]["check"] = n / _best(_check_only(checker, members), rounds)
    return figures


def _full_round(
    checker: Any, members: list[dict[str, Any]], items: list[dict[str, Any]]
) -> Callable[[], None]:
    """One round of bfcl-eval's decode + check, as its evaluator runs them."""
    passes = _passes(len(members))

    def full() -> None:
        for _ in range(passes):
            for group, item in zip(members, items, strict=True):
                checker.verdict(group, item)

    return full


def _check_only(checker: Any, members: list[dict[str, Any]]) -> Callable[[], None]:
    """One round of bfcl-eval's `ast_checker` alone, on outputs decoded beforehand."""
    import bfcl_verdicts

    language, return_format = checker.languages[
        bfcl_corpus.LANGUAGES.get(members[0]["category"], "python")
    ]
    model = bfcl_verdicts.FC_MODEL if members[0]["style"] == "fc" else bfcl_verdicts.PROMPTING_MODEL
    decoded = [checker.decode(r["output"], r["style"], return_format) for r in members]
    passes = _passes(len(members))

    def check() -> None:
        for _ in range(passes):
            for row, calls in zip(members, decoded, strict=True):
                checker.ast_checker(
                    row["functions"],
                    calls,
                    row["possible_answer"],
                    language,
                    row["category"],
                    model,
                )

    return check


def bfcl_importable(*extra: str) -> bool:
    """Whether bfcl-eval's decoders import here (they need tree-sitter, tenacity, filelock).

    `make` installs bfcl-eval in .venv without its dependencies, for the multi-turn API
    classes only: its decoders then do not import.
    """
    needed = ("bfcl_eval", "tree_sitter", "tenacity", "filelock", *extra)
    return all(importlib.util.find_spec(name) is not None for name in needed)


def time_bfcl(rows: list[dict[str, Any]], rounds: int) -> Figures | None:
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
    figures: Figures = json.loads(out.stdout)
    return figures


def _merge(a: dict[str, float], b: dict[str, float] | None) -> dict[str, float]:
    if b is None:
        return a
    return {k: max(a[k], b[k]) for k in a}


def _merge_all(a: Figures, b: Figures | None) -> Figures:
    if b is None:
        return a
    return {category: _merge(a[category], b.get(category)) for category in a}


def main() -> int:
    parser = argparse.ArgumentParser(description="Score BFCL with the bfcl profile and bfcl-eval.")
    parser.add_argument("--data-dir", help="BFCL data: a folder or a bfcl_eval wheel.")
    # A round is at least MIN_ROUND entries (a few ms to 20 ms): on a shared machine, 5
    # rounds left either side's best several percent off its true cost, from run to run.
    parser.add_argument("--rounds", type=int, default=20, help="Timed rounds; the best counts.")
    parser.add_argument(
        "--alternations",
        type=int,
        default=3,
        help="Single-turn: times toolgrade's and bfcl-eval's timings alternate; the best counts.",
    )
    parser.add_argument(
        "--category",
        nargs="+",
        default=list(CATEGORIES),
        choices=CATEGORIES,
        metavar="CATEGORY",
        help="Single-turn categories to time (default: all).",
    )
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
    status = (
        0
        if args.skip_single_turn
        else single_turn(data, args.category, args.rounds, args.alternations)
    )
    if args.multi_turn:
        python = None if bfcl_importable("mpmath") else _bfcl_venv_python()
        status |= multi_turn(data, args.multi_turn, args.mt_rounds, python, __file__)
    return status


def single_turn(data: Path, categories: list[str], rounds: int, alternations: int) -> int:
    """Time each category both ways and print the figures; 1 when the goal is missed."""
    rows = bfcl_rows(data, categories)
    works = toolgrade_work(data, rows)
    # The machine may be shared: alternate the two timings, keep each one's best.
    ours: Figures | None = None
    theirs: Figures | None = None
    for _ in range(alternations):
        ours = _merge_all(time_toolgrade(works, rounds), ours)
        found = time_bfcl(rows, rounds)
        theirs = found if theirs is None else _merge_all(theirs, found)
    assert ours is not None
    cold = time_toolgrade_cold(works, rounds)
    sizes = {c: len(m) for c, m in works.items()}
    print(f"BFCL single-turn: {len(rows)} entries, ground-truth answers (see the docstring);")
    print("entries/s, decode + check (toolgrade: extract_calls + judge, profile bfcl)")
    if theirs is None:
        print("bfcl-eval not installed (make bfcl-verdicts installs it in .venv-bfcl): no ratio")
        for category, n in sizes.items():
            print(f"  {category:24} {n:5d}  toolgrade {ours[category]['full']:10,.0f}")
        return 0
    return _print_table(sizes, ours, theirs, cold)


def _print_table(
    sizes: dict[str, int], ours: Figures, theirs: Figures, cold: dict[str, float]
) -> int:
    header = f"{'category':24} {'n':>5} {'toolgrade':>10} {'bfcl-eval':>10} {'ratio':>6}"
    print(f"{header}  {'pass (tg/bfcl)':>14}  {'check-only':>10}  {'cold':>6}")
    missed, agree = [], True
    for category, n in sizes.items():
        o, t = ours[category], theirs[category]
        ratio = o["full"] / t["full"]
        if ratio < GOAL and category not in DECODE_ONLY:
            missed.append(category)
        agree &= o["pass"] == t["pass"]
        check = f"{o['check'] / t['check']:.2f}x" if "check" in t else "-"
        passes = f"{o['pass']:.0f}/{t['pass']:.0f}"
        print(
            f"{category:24} {n:5d} {o['full']:10,.0f} {t['full']:10,.0f} {ratio:5.2f}x"
            f"  {passes:>14}  {check:>10}  {cold[category] / t['full']:5.2f}x"
        )
    print("(check-only: judging alone vs ast_checker alone; cold: toolgrade's first judgement")
    print(" of fresh copies of the cases, nothing remembered, against bfcl-eval's best;")
    print(f" {', '.join(c for c in DECODE_ONLY if c in sizes) or 'the (ir)relevance categories'}:")
    print(" bfcl-eval runs no checker, only its decoder: shown, not part of the goal)")
    if not agree:
        print("pass counts differ between toolgrade and bfcl-eval: goal not met")
    verdict = "met" if not missed and agree else f"missed ({', '.join(missed) or 'pass counts'})"
    print(f"goal: >= {GOAL:.2f}x on every category bfcl-eval checks with ast_checker: {verdict}")
    return 0 if not missed and agree else 1


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
