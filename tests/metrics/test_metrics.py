"""compute_metrics over RunResults built directly from the result models."""

from __future__ import annotations

import json

import pytest

from toolgrade.metrics import NO_CALL_KEY, compute_metrics, rate_of

CALL_A = {"name": "read_file", "arguments": {"path": "a"}}
CALL_B = {"name": "search", "arguments": {"q": "x"}}


def _row(case_id: str, status: str, **fields: object) -> dict[str, object]:
    return {"case_id": case_id, "status": status, **fields}


def test_metrics_spec_example_accuracy_and_interval(make_run) -> None:
    rows = [_row(f"c{i}", "correct" if i < 42 else "wrong_args") for i in range(50)]
    m = compute_metrics(make_run(rows))
    assert (m.total, m.scored, m.passed, m.failed) == (50, 50, 42, 8)
    assert m.accuracy.rate == pytest.approx(0.84)
    assert round(m.accuracy.interval.low, 3) == 0.715
    assert round(m.accuracy.interval.high, 3) == 0.917


def test_metrics_timeouts_and_errors_counted_not_scored(make_run) -> None:
    rows = [
        _row("a", "correct"),
        _row("b", "wrong_tool"),
        _row("c", "timeout", error="took too long"),
        _row("d", "error", error="boom"),
    ]
    m = compute_metrics(make_run(rows))
    assert (m.total, m.scored, m.passed, m.failed, m.timeouts, m.errors) == (4, 2, 1, 1, 1, 1)
    assert m.accuracy.rate == 0.5
    assert m.status_counts["timeout"] == 1
    assert m.status_counts["extra_calls"] == 0
    assert len(m.status_counts) == 9


def test_metrics_empty_run_has_zero_accuracy_and_full_interval(make_run) -> None:
    m = compute_metrics(make_run([]))
    assert m.accuracy.n == 0
    assert (m.accuracy.interval.low, m.accuracy.interval.high) == (0.0, 1.0)
    assert m.latency_p50_ms is None
    assert m.consistency is None


def test_metrics_mean_score_partial_credit_and_seeded_interval(make_run) -> None:
    rows = [_row(f"c{i}", "wrong_args", score=0.5) for i in range(10)]
    rows += [_row(f"d{i}", "correct") for i in range(10)]
    run = make_run(rows)
    m = compute_metrics(run, seed=3)
    assert m.mean_score == pytest.approx(0.75)
    assert m.mean_score_interval.contains(0.75)
    assert m.mean_score_interval == compute_metrics(run, seed=3).mean_score_interval
    assert m.seed == 3


def test_metrics_call_level_precision_recall_f1_pooled(make_run) -> None:
    pair_ok = {"expected_index": 0, "actual_index": 0, "verdict": "correct", "credit": 1.0}
    pair_bad = {"expected_index": 1, "actual_index": None, "verdict": "missed", "credit": 0.0}
    rows = [
        # 2 expected, 1 actual, 1 correct
        _row(
            "a", "wrong_args", expected=[CALL_A, CALL_B], actual=[CALL_A], pairs=[pair_ok, pair_bad]
        ),
        # 1 expected, 2 actual (one extra), 1 correct
        _row("b", "extra_calls", expected=[CALL_A], actual=[CALL_A, CALL_B], pairs=[pair_ok]),
        # timeout: not pooled
        _row("c", "timeout", expected=[CALL_A], actual=[]),
    ]
    m = compute_metrics(make_run(rows))
    assert m.precision == pytest.approx(2 / 3)
    assert m.recall == pytest.approx(2 / 3)
    assert m.f1 == pytest.approx(2 / 3)


def test_metrics_correct_result_without_pairs_counts_its_calls(make_run) -> None:
    m = compute_metrics(make_run([_row("a", "correct", expected=[CALL_A], actual=[CALL_A])]))
    assert (m.precision, m.recall, m.f1) == (1.0, 1.0, 1.0)


def test_metrics_no_calls_anywhere_is_perfect_f1(make_run) -> None:
    m = compute_metrics(make_run([_row("a", "correct")]))
    assert (m.precision, m.recall, m.f1) == (1.0, 1.0, 1.0)


def test_metrics_tool_breakdown_counts_each_distinct_tool_and_no_call_row(make_run) -> None:
    rows = [
        _row("a", "correct", expected=[CALL_A, CALL_A, CALL_B]),
        _row("b", "wrong_args", expected=[CALL_A]),
        _row("c", "correct"),
        _row("d", "unexpected_call", actual=[CALL_B]),
    ]
    by_tool = {b.key: b.rate for b in compute_metrics(make_run(rows)).by_tool}
    assert list(by_tool) == ["read_file", "search", NO_CALL_KEY]
    assert (by_tool["read_file"].passed, by_tool["read_file"].n) == (1, 2)
    assert (by_tool["search"].passed, by_tool["search"].n) == (1, 1)
    assert (by_tool[NO_CALL_KEY].passed, by_tool[NO_CALL_KEY].n) == (1, 2)


def test_metrics_category_difficulty_tag_breakdowns(make_run) -> None:
    rows = [
        _row("a", "correct", category="simple", difficulty="hard", tags=["fs", "read"]),
        _row("b", "wrong_tool", category="simple", difficulty="easy", tags=["fs"]),
        _row("c", "correct", category="edge", difficulty="medium"),
        _row("d", "correct", category="", difficulty="weird"),
        _row("e", "timeout", category="complex", tags=["slow"]),
    ]
    m = compute_metrics(make_run(rows))
    assert [b.key for b in m.by_category] == ["edge", "simple", "(none)"]
    assert [b.key for b in m.by_difficulty] == ["easy", "medium", "hard", "weird"]
    assert {b.key: (b.rate.passed, b.rate.n) for b in m.by_tag} == {"fs": (1, 2), "read": (1, 1)}
    simple = next(b for b in m.by_category if b.key == "simple")
    assert simple.mean_score == 0.5
    assert simple.rate.interval == rate_of(1, 2).interval


def test_metrics_repeats_consistency_and_pass_hat_k(make_run) -> None:
    rows = []
    outcomes = {"a": "ccc", "b": "ccw", "c": "www", "d": "cwc"}
    for case_id, tries in outcomes.items():
        for k, t in enumerate(tries):
            rows.append(_row(case_id, "correct" if t == "c" else "wrong_args", repeat=k))
    m = compute_metrics(make_run(rows, repeat=3))
    assert m.repeats == 3
    assert m.consistency == pytest.approx(0.5)  # a and c never changed
    assert m.pass_hat_k == pytest.approx(0.25)  # only a passed all three
    per_case = {c.case_id: c for c in m.per_case_consistency}
    assert per_case["b"].agreement == pytest.approx(2 / 3)
    assert per_case["c"].passed == 0


def test_metrics_pass_hat_k_unbiased_estimate_with_more_tries(make_run) -> None:
    # k = 2 from run.repeat, but case "a" has 4 scored tries with 3 passes: C(3,2)/C(4,2) = 0.5
    rows = [_row("a", s, repeat=i) for i, s in enumerate(["correct"] * 3 + ["wrong_args"])]
    rows[3]["repeat"] = 1
    rows = [dict(r, repeat=i % 2) for i, r in enumerate(rows)]
    m = compute_metrics(make_run(rows, repeat=2))
    assert m.pass_hat_k == pytest.approx(0.5)


def test_metrics_single_repeat_has_no_consistency(make_run) -> None:
    m = compute_metrics(make_run([_row("a", "correct")]))
    assert (m.repeats, m.consistency, m.pass_hat_k, m.per_case_consistency) == (1, None, None, ())


def test_metrics_latency_percentiles(make_run) -> None:
    rows = [_row(f"c{i}", "correct", latency_ms=float(i)) for i in range(1, 101)]
    rows.append(_row("none", "correct"))
    m = compute_metrics(make_run(rows))
    assert m.latency_p50_ms == pytest.approx(50.5)
    assert m.latency_p95_ms == pytest.approx(95.05)


def test_metrics_to_dict_is_json_serialisable(make_run) -> None:
    rows = [
        _row("a", "correct", category="simple", tags=["t"], repeat=0),
        _row("a", "wrong_args", category="simple", tags=["t"], repeat=1),
    ]
    data = compute_metrics(make_run(rows, repeat=2)).to_dict()
    text = json.dumps(data)
    assert json.loads(text)["accuracy"]["n"] == 2
    assert data["by_category"][0]["key"] == "simple"  # type: ignore[index]


def test_metrics_by_tool_files_case_under_primary_expectation(make_run) -> None:
    # c1 matched an alternative calling run_command: it still counts for read_file.
    rows = [
        _row("c1", "correct", expected=[CALL_B], alternative=0, primary_tools=["read_file"]),
        _row("c2", "wrong_args", expected=[CALL_A], primary_tools=["read_file"]),
        _row("c3", "correct", expected=[CALL_A], alternative=0, primary_tools=[]),
    ]
    by_tool = {b.key: (b.rate.passed, b.rate.n) for b in compute_metrics(make_run(rows)).by_tool}
    assert by_tool == {"read_file": (1, 2), NO_CALL_KEY: (1, 1)}


def test_metrics_by_tool_old_results_fall_back_to_expected(make_run) -> None:
    rows = [_row("c1", "correct", expected=[CALL_A, CALL_B]), _row("c2", "correct")]
    by_tool = {b.key: b.rate.n for b in compute_metrics(make_run(rows)).by_tool}
    assert by_tool == {"read_file": 1, "search": 1, NO_CALL_KEY: 1}
