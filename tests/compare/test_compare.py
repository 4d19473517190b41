"""compare_runs and compare_many over RunResults built from the result models."""

from __future__ import annotations

import json
import logging
from typing import get_args

import pytest

import toolgrade.compare
from toolgrade.compare import Change, compare_many, compare_runs, verdict_for
from toolgrade.errors import BaselineError
from toolgrade.power import minimum_detectable_effect
from toolgrade.stats import Interval, mcnemar_exact, paired_difference_interval

READ = [{"name": "read_file", "arguments": {"path": "a"}}]
SEARCH = [{"name": "search", "arguments": {"q": "x"}}]


def _rows(outcomes: str, *, prefix: str = "c", **fields: object) -> list[dict[str, object]]:
    """One row per character: c = correct, w = wrong_args, t = timeout."""
    status = {"c": "correct", "w": "wrong_args", "t": "timeout", "x": "wrong_tool"}
    return [
        {"case_id": f"{prefix}{i:03d}", "status": status[o], **fields}
        for i, o in enumerate(outcomes)
    ]


def test_compare_clear_regression_detected(make_run) -> None:
    base = make_run(_rows("c" * 50), run_id="base", tags=("v1.2",))
    cand = make_run(_rows("w" * 10 + "c" * 40), run_id="cand")
    comp = compare_runs(base, cand)
    assert comp.verdict == "regression"
    assert comp.is_regression
    assert comp.delta == pytest.approx(-0.2)
    assert comp.p_value == pytest.approx(mcnemar_exact(10, 0))
    assert [f.case_id for f in comp.broken] == [f"c{i:03d}" for i in range(10)]
    assert comp.broken[0].baseline == "correct"
    assert comp.broken[0].candidate == "wrong_args"
    assert comp.fixed == ()
    assert comp.baseline_label == "v1.2"
    assert comp.candidate_label == "test/model"
    assert comp.delta_interval.contains(comp.delta)
    assert comp.delta_interval.high < 0


def test_compare_small_drop_on_a_small_suite_is_inconclusive(make_run) -> None:
    # -2 points on 50 cases: the 90% interval reaches far beyond ±2 points.
    base = make_run(_rows("c" * 43 + "w" * 7))
    cand = make_run(_rows("w" + "c" * 42 + "w" * 7), run_id="cand")
    comp = compare_runs(base, cand)
    assert comp.delta == pytest.approx(-0.02)
    assert comp.verdict == "inconclusive"
    assert comp.cases_to_tell is not None
    assert comp.cases_to_tell > 50
    assert "within acceptable variance" not in comp.status


def test_compare_large_drop_but_few_flips_is_inconclusive(make_run) -> None:
    # 10 cases, 2 broken: -20 points, but McNemar p = 0.5
    base = make_run(_rows("c" * 10))
    cand = make_run(_rows("ww" + "c" * 8), run_id="cand")
    comp = compare_runs(base, cand)
    assert comp.delta == pytest.approx(-0.2)
    assert comp.p_value == pytest.approx(0.5)
    assert comp.verdict == "inconclusive"
    assert comp.mde is None  # 2 flips in 10 cases: no change is detected 80% of the time
    assert "cannot detect a change of any size" in comp.detectable


def test_compare_few_flips_on_a_large_suite_is_equivalent(make_run) -> None:
    # 400 cases, 6 fixed and 6 broken: the 90% interval lies inside ±2 points.
    base = make_run(_rows("c" * 6 + "w" * 6 + "c" * 388))
    cand = make_run(_rows("w" * 6 + "c" * 6 + "c" * 388), run_id="cand")
    comp = compare_runs(base, cand)
    assert comp.verdict == "equivalent"
    assert comp.equivalence_interval is not None
    assert comp.equivalence_interval.level == pytest.approx(0.9)
    assert -0.02 < comp.equivalence_interval.low < comp.equivalence_interval.high < 0.02
    assert comp.status.startswith("Equivalent: within acceptable variance")
    assert comp.cases_to_tell is None
    assert comp.mde == pytest.approx(0.0245, abs=1e-4)
    assert "can detect changes of about 2.4 points" in comp.detectable


def test_compare_reports_the_minimum_detectable_effect(make_run) -> None:
    base = make_run(_rows("c" * 50))
    cand = make_run(_rows("w" * 10 + "c" * 40), run_id="cand")
    comp = compare_runs(base, cand)
    assert comp.discordance == pytest.approx(0.2)
    assert comp.mde == pytest.approx(minimum_detectable_effect(50, 0.2))
    assert comp.power == 0.8


def test_compare_improvement_symmetric(make_run) -> None:
    base = make_run(_rows("w" * 10 + "c" * 40))
    cand = make_run(_rows("c" * 50), run_id="cand")
    comp = compare_runs(base, cand)
    assert comp.verdict == "improvement"
    assert len(comp.fixed) == 10


def test_compare_threshold_and_alpha_respected(make_run) -> None:
    base = make_run(_rows("c" * 50))
    cand = make_run(_rows("w" * 10 + "c" * 40), run_id="cand")
    assert compare_runs(base, cand, threshold=25).verdict == "inconclusive"
    assert compare_runs(base, cand, alpha=0.001).verdict == "inconclusive"


@pytest.mark.parametrize(
    ("delta", "p", "interval", "expected"),
    [
        (-0.02, 0.001, None, "inconclusive"),  # exactly the threshold: not larger
        (-0.0201, 0.001, None, "regression"),
        (-0.05, 0.05, None, "inconclusive"),  # p must be strictly below alpha
        (0.03, 0.01, None, "improvement"),
        (0.0, 1.0, None, "inconclusive"),  # no interval: equivalence is never shown
        (0.0, 1.0, Interval(-0.019, 0.019, 0.9), "equivalent"),
        (0.0, 1.0, Interval(-0.02, 0.01, 0.9), "inconclusive"),  # touching the margin
        (0.005, 0.01, Interval(0.001, 0.019, 0.9), "equivalent"),  # real but negligible
        (-0.03, 0.01, Interval(-0.019, 0.019, 0.9), "regression"),  # the test comes first
    ],
)
def test_verdict_rule_table(
    delta: float, p: float, interval: Interval | None, expected: str
) -> None:
    assert verdict_for(delta, p, threshold=2.0, alpha=0.05, equivalence=interval) == expected


def test_verdict_values_are_the_change_literal_and_no_second_verdict_type() -> None:
    assert get_args(Change) == ("regression", "improvement", "equivalent", "inconclusive")
    assert not hasattr(toolgrade.compare, "Verdict")


def test_compare_unscored_cases_are_not_paired(make_run) -> None:
    base = make_run(_rows("cct"))
    cand = make_run(_rows("tcw"), run_id="cand")
    comp = compare_runs(base, cand)
    assert comp.shared_cases == 1
    assert comp.baseline_accuracy.n == comp.candidate_accuracy.n == 1


def test_compare_different_suite_hash_warns_and_uses_shared_ids(make_run, caplog) -> None:
    base = make_run(_rows("cccc"), suite_hash="h1")
    cand = make_run(_rows("cc", prefix="c") + _rows("cc", prefix="new"), suite_hash="h2")
    with caplog.at_level(logging.WARNING, logger="toolgrade.compare"):
        comp = compare_runs(base, cand)
    assert comp.suite_hash_differs
    assert comp.shared_cases == 2
    assert "different suites" in caplog.text


def test_compare_no_shared_cases_raises(make_run) -> None:
    base = make_run(_rows("cc", prefix="a"))
    cand = make_run(_rows("cc", prefix="b"), run_id="cand")
    with pytest.raises(BaselineError, match="no scored case in common"):
        compare_runs(base, cand)


def test_compare_repeats_pair_by_majority(make_run) -> None:
    def repeated(pattern: list[str]) -> list[dict[str, object]]:
        rows = []
        for case_index, tries in enumerate(pattern):
            for k, t in enumerate(tries):
                rows += [dict(r, repeat=k) for r in _rows(t, prefix=f"k{case_index}-")]
        return rows

    base = make_run(repeated(["ccw", "ccc", "cww"]), repeat=3)
    cand = make_run(repeated(["cww", "cwc", "wcx"]), repeat=3, run_id="cand")
    comp = compare_runs(base, cand)
    assert comp.shared_cases == 3
    assert [f.case_id for f in comp.broken] == ["k0-000"]
    assert comp.broken[0].candidate == "wrong_args"
    assert comp.fixed == ()  # k2: 1 correct of 3 in both runs


def test_compare_repeats_tie_counts_as_failure(make_run) -> None:
    base = make_run([{"case_id": "a", "status": "correct", "repeat": 0}], run_id="b")
    cand = make_run(
        [
            {"case_id": "a", "status": "correct", "repeat": 0},
            {"case_id": "a", "status": "wrong_tool", "repeat": 1},
        ],
        repeat=2,
    )
    comp = compare_runs(base, cand)
    assert [(f.baseline, f.candidate) for f in comp.broken] == [("correct", "wrong_tool")]


def test_compare_per_category_and_tool_deltas(make_run) -> None:
    base = make_run(
        _rows("cc", prefix="s", category="simple", expected=READ)
        + _rows("cc", prefix="e", category="edge", expected=SEARCH)
        + _rows("c", prefix="n", category="edge")
    )
    cand = make_run(
        _rows("cw", prefix="s", category="simple", expected=READ)
        + _rows("cc", prefix="e", category="edge", expected=SEARCH)
        + _rows("w", prefix="n", category="edge"),
        run_id="cand",
    )
    comp = compare_runs(base, cand)
    cats = {d.key: d.delta for d in comp.by_category}
    tools = {d.key: d.delta for d in comp.by_tool}
    assert cats == pytest.approx({"edge": -1 / 3, "simple": -0.5})
    assert tools == pytest.approx({"(no call)": -1.0, "read_file": -0.5, "search": 0.0})


def test_compare_group_rows_carry_a_paired_interval_and_say_when_too_few(make_run) -> None:
    # 40 simple cases, 10 fixed: a row that says something; 5 edge cases, 2 fixed: the
    # "+40 points on five cases" a reader must not take for a finding.
    base = make_run(
        _rows("w" * 10 + "c" * 30, prefix="s", category="simple")
        + _rows("wwwcc", prefix="e", category="edge")
    )
    cand = make_run(
        _rows("c" * 40, prefix="s", category="simple")
        + _rows("ccwcc", prefix="e", category="edge"),
        run_id="cand",
    )
    rows = {d.key: d for d in compare_runs(base, cand).by_category}
    simple, edge = rows["simple"], rows["edge"]
    assert simple.interval == paired_difference_interval(30, 0, 10, 0)
    assert edge.interval == paired_difference_interval(2, 0, 2, 1)
    assert edge.delta == pytest.approx(0.4)
    assert (simple.too_few_to_tell, edge.too_few_to_tell) == (False, True)
    assert edge.to_dict()["too_few_to_tell"] is True
    assert edge.to_dict()["interval"] == edge.interval.to_dict()


def test_compare_group_present_in_one_run_only_has_none_delta(make_run) -> None:
    base = make_run(_rows("cc", category="old"))
    cand = make_run(_rows("cc", category="new"), run_id="cand")
    rows = {d.key: d for d in compare_runs(base, cand).by_category}
    assert rows["old"].candidate is None
    assert rows["old"].delta is None
    assert rows["new"].baseline is None


def test_compare_to_dict_round_trips_through_json(make_run) -> None:
    comp = compare_runs(make_run(_rows("cw")), make_run(_rows("wc"), run_id="cand"))
    data = json.loads(json.dumps(comp.to_dict()))
    assert data["verdict"] == "inconclusive"
    assert data["discordance"] == 1.0
    assert data["equivalence_interval"]["level"] == pytest.approx(0.9)
    assert {"mde", "power", "cases_to_tell"} <= data.keys()
    assert data["fixed"][0]["case_id"] == "c001"


def test_compare_many_marks_best_and_tests_others_against_it(make_run) -> None:
    a = make_run(_rows("c" * 20 + "w" * 20), run_id="a", model="m/a")
    b = make_run(_rows("c" * 38 + "w" * 2), run_id="b", model="m/b")
    c = make_run(_rows("c" * 36 + "w" * 4), run_id="c", model="m/c")
    many = compare_many([a, b, c])
    assert many.best_index == 1
    assert [e.is_best for e in many.entries] == [False, True, False]
    assert many.entries[1].p_value_vs_best is None
    assert many.entries[0].significantly_worse
    assert not many.entries[2].significantly_worse
    assert many.entries[0].delta_vs_best == pytest.approx(-0.45)
    assert many.shared_cases == 40
    assert json.loads(json.dumps(many.to_dict()))["best_index"] == 1


def test_compare_many_rows_and_duplicate_labels(make_run) -> None:
    a = make_run(_rows("cw", category="simple", expected=READ), run_id="a")
    b = make_run(_rows("cc", category="simple", expected=READ), run_id="b")
    many = compare_many([a, b])
    assert [e.label for e in many.entries] == ["test/model [a]", "test/model [b]"]
    (row,) = many.by_category
    assert row.key == "simple"
    assert row.best == 1
    assert [r.rate for r in row.rates if r] == [0.5, 1.0]
    assert many.by_tool[0].key == "read_file"


def test_compare_many_needs_two_runs(make_run) -> None:
    with pytest.raises(BaselineError, match="at least two"):
        compare_many([make_run(_rows("c"))])


def test_compare_by_tool_same_case_same_row_whichever_alternative(make_run) -> None:
    # The baseline matched the primary expectation, the candidate an alternative of
    # another tool: the case stays in the read_file row of both runs.
    base = make_run(_rows("c", expected=READ, primary_tools=["read_file"]), run_id="b")
    cand = make_run(
        _rows("c", expected=SEARCH, alternative=0, primary_tools=["read_file"]), run_id="c"
    )
    comp = compare_runs(base, cand)
    assert [(d.key, d.baseline_n, d.candidate_n) for d in comp.by_tool] == [("read_file", 1, 1)]
    assert comp.by_tool[0].to_dict()["candidate_n"] == 1


def test_compare_text_shows_both_counts_per_group(make_run) -> None:
    from toolgrade.cli._compare_text import format_comparison, format_many

    base = make_run(_rows("cc", expected=READ) + _rows("c", prefix="s", expected=SEARCH))
    cand = make_run(_rows("cw", expected=READ) + _rows("w", prefix="s", expected=SEARCH))
    text = format_comparison(compare_runs(base, cand))
    block = text.split("By Tool:\n")[1].split("\n\n")[0].splitlines()
    assert block[0].split()[:7] == [
        "read_file:",
        "100.0%",
        "(2/2)",
        "->",
        "50.0%",
        "(1/2)",
        "-50.0",
    ]
    assert block[1].split()[:7] == ["search:", "100.0%", "(1/1)", "->", "0.0%", "(0/1)", "-100.0"]
    # Each delta carries its paired interval; two cases cannot tell anything.
    assert block[0].endswith("too few cases to tell") and "95% CI" in block[0]
    many = format_many(compare_many([base, cand]))
    row = next(line for line in many.splitlines() if line.startswith("  read_file"))
    assert row.split() == ["read_file", "100.0%", "(2/2)*", "50.0%", "(1/2)"]


def test_compare_delta_counts_differ_when_suites_file_cases_differently(make_run) -> None:
    # The candidate's suite expects no call in c001 where the baseline's expected a read.
    base = make_run(_rows("cc", primary_tools=["read_file"]), run_id="b", suite_hash="sha256:a")
    cand_rows = _rows("cc", primary_tools=["read_file"])
    cand_rows[1]["primary_tools"] = []
    cand = make_run(cand_rows, run_id="c", suite_hash="sha256:b")
    comp = compare_runs(base, cand)
    rows = {d.key: (d.baseline_n, d.candidate_n) for d in comp.by_tool}
    assert rows == {"(no call)": (0, 1), "read_file": (2, 1)}
