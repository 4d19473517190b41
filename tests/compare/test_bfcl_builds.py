"""One model, two vLLM builds: BFCL's recorded verdicts compared category by category.

gpt-oss-120b answered BFCL v4 served by two vLLM builds: main of 2025-11-12, and a
branch with the gpt-oss (Harmony) prompting fixes of vllm-project/vllm#28729 (tool
responses addressed to the right function, reasoning and commentary restored across
turns). tests/data/bfcl/builds/README.md names the source; the data are BFCL's own
recorded verdicts, one per entry.
The fix changes what the model sees from the second turn on, so the multi-turn category
improves by 12 points (39 fixed, 15 broken of 200) while the single-turn simple_python
category, which has no tool response to carry back, moves by -0.75 points (8 fixed,
11 broken of 400): a large change reported as `improvement`, a sub-point one never as
`regression`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from toolgrade.cli._compare_text import format_comparison
from toolgrade.compare import Comparison, compare_runs
from toolgrade.results import RunResult

DATA = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "builds" / "gpt-oss-120b.jsonl"
RunFactory = Callable[..., RunResult]
BUILDS = {"main": "vllm-main-2025-11-12", "harmony_fixes": "vllm-harmony-fixes"}


def _entries() -> list[dict[str, str]]:
    with DATA.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def _run(make_run: RunFactory, build: str, category: str | None = None) -> RunResult:
    """The build's recorded verdicts as a run: BFCL's `valid` is `correct`.

    A comparison reads pass or fail only, so every failure (BFCL's error type is kept in
    the data) is filed as `wrong_args`.
    """
    rows = [
        {
            "case_id": entry["id"],
            "status": "correct" if entry[build] == "valid" else "wrong_args",
            "category": entry["category"],
        }
        for entry in _entries()
        if category is None or entry["category"] == category
    ]
    return make_run(
        rows,
        run_id=BUILDS[build],
        suite_hash="bfcl-v4",
        model="vllm/openai/gpt-oss-120b",
        tags=(BUILDS[build],),
    )


def _compare(make_run: RunFactory, category: str) -> Comparison:
    return compare_runs(_run(make_run, "main", category), _run(make_run, "harmony_fixes", category))


def test_the_data_hold_two_builds_of_the_recorded_categories() -> None:
    entries = _entries()
    sizes = {
        category: sum(1 for e in entries if e["category"] == category)
        for category in ("simple_python", "multi_turn_base")
    }
    assert sizes == {"simple_python": 400, "multi_turn_base": 200}
    assert len(entries) == 600
    assert len({e["id"] for e in entries}) == 600
    passed = {
        (build, category): sum(
            1 for e in entries if e["category"] == category and e[build] == "valid"
        )
        for build in BUILDS
        for category in sizes
    }
    # BFCL's own summaries (correct_count in each score file)
    assert passed == {
        ("main", "simple_python"): 347,
        ("main", "multi_turn_base"): 100,
        ("harmony_fixes", "simple_python"): 344,
        ("harmony_fixes", "multi_turn_base"): 124,
    }


def test_the_fixed_build_improves_multi_turn_base(make_run: RunFactory) -> None:
    comparison = _compare(make_run, "multi_turn_base")
    assert (comparison.shared_cases, len(comparison.fixed), len(comparison.broken)) == (
        200,
        39,
        15,
    )
    assert comparison.delta == pytest.approx(0.12)
    assert comparison.p_value == pytest.approx(0.0015, abs=1e-4)
    assert comparison.delta_interval.low > 0.02
    assert comparison.verdict == "improvement"
    assert comparison.status.startswith("Improvement")


def test_a_sub_point_change_on_simple_python_is_no_regression(make_run: RunFactory) -> None:
    comparison = _compare(make_run, "simple_python")
    assert (comparison.shared_cases, len(comparison.fixed), len(comparison.broken)) == (
        400,
        8,
        11,
    )
    assert comparison.delta == pytest.approx(-0.0075)
    assert comparison.p_value > 0.5
    assert comparison.verdict in ("equivalent", "inconclusive")  # never regression
    # 19 flips in 400: the 90% interval (-2.6 to +1.1 points) crosses -2, so not equivalent
    assert comparison.verdict == "inconclusive"
    assert comparison.equivalence_interval is not None
    assert comparison.equivalence_interval.low < -0.02 < comparison.equivalence_interval.high
    assert comparison.cases_to_tell is not None
    assert comparison.cases_to_tell > 400


def test_the_text_says_what_each_category_can_tell(make_run: RunFactory) -> None:
    improved = format_comparison(_compare(make_run, "multi_turn_base"))
    steady = format_comparison(_compare(make_run, "simple_python"))
    assert "Status: Improvement" in improved
    assert "Status: Inconclusive" in steady
    assert "Regression" not in steady
    assert "within acceptable variance" not in steady.lower()


def test_the_whole_run_carries_both_categories(make_run: RunFactory) -> None:
    comparison = compare_runs(_run(make_run, "main"), _run(make_run, "harmony_fixes"))
    deltas = {row.key: row.delta for row in comparison.by_category}
    assert deltas == {
        "multi_turn_base": pytest.approx(0.12),
        "simple_python": pytest.approx(-0.0075),
    }
    assert comparison.shared_cases == 600
    assert comparison.verdict == "improvement"
