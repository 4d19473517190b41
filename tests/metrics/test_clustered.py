"""The accuracy interval clustered by case: hand-computed values and simulated coverage."""

from __future__ import annotations

import numpy as np
import pytest

from toolgrade.metrics import (
    Breakdown,
    check_cluster_by,
    cluster_keys,
    cluster_totals,
    clustered_rate,
    compute_metrics,
)
from toolgrade.results import CaseResult, RunResult
from toolgrade.stats import rate_of, wilson_interval


def _result(case_id: str, *, category: str = "", tags: tuple[str, ...] = ()) -> CaseResult:
    return CaseResult(case_id=case_id, status="correct", score=1.0, category=category, tags=tags)


def test_clustered_rate_one_try_per_case_is_plain_wilson() -> None:
    c = clustered_rate([(1, 1)] * 42 + [(0, 1)] * 8)
    assert c.rate == rate_of(42, 50)
    assert (c.clusters, c.effective_n, c.design_effect) == (50, 50.0, 1.0)


def test_clustered_rate_hand_computed_design_effect() -> None:
    # p = 7/12; spread = ((3-1.75)^2 * 2 + 1.75^2 + 0.75^2) / 144; CR1 factor 4/3.
    c = clustered_rate([(3, 3), (0, 3), (3, 3), (1, 3)])
    p = 7 / 12
    spread = (2 * 1.25**2 + 1.75**2 + 0.75**2) / 144 * 4 / 3
    assert c.design_effect == pytest.approx(spread / (p * (1 - p) / 12))
    assert c.effective_n == pytest.approx(12 / c.design_effect)
    assert (c.rate.passed, c.rate.n) == (7, 12)


def test_clustered_rate_steady_cases_count_once_each() -> None:
    # Every case always passes or always fails: 30 tries are worth 10 cases.
    c = clustered_rate([(3, 3)] * 7 + [(0, 3)] * 3)
    plain = wilson_interval(7, 10)
    assert c.effective_n == pytest.approx(10, rel=0.15)
    assert c.rate.interval.width == pytest.approx(plain.width, rel=0.1)
    assert c.rate.interval.width > wilson_interval(21, 30).width


def test_clustered_rate_independent_tries_keep_their_evidence() -> None:
    # Within-case spread as large as between: no design effect to speak of.
    c = clustered_rate([(1, 2)] * 20 + [(2, 2), (0, 2)] * 5)
    assert c.design_effect == 1.0
    assert c.effective_n == 60.0


def test_clustered_rate_all_passed_counts_clusters() -> None:
    c = clustered_rate([(5, 5)] * 4)
    assert c.effective_n == 4.0
    assert c.rate.interval.high == 1.0
    assert c.rate.interval.low == pytest.approx(wilson_interval(4, 4).low)


def test_clustered_rate_one_cluster_is_one_observation() -> None:
    c = clustered_rate([(3, 5)])
    assert c.effective_n == 1.0
    assert c.rate.interval.width > 0.7


def test_clustered_rate_no_tries_is_whole_unit_interval() -> None:
    c = clustered_rate([])
    assert (c.rate.n, c.rate.interval.low, c.rate.interval.high) == (0, 0.0, 1.0)


@pytest.mark.parametrize("cells", [[(4, 3)], [(-1, 2)], [(1, -1)]])
def test_clustered_rate_counts_out_of_range_raise(cells: list[tuple[int, int]]) -> None:
    with pytest.raises(ValueError, match="passes"):
        clustered_rate(cells)


def test_cluster_totals_groups_in_first_seen_order() -> None:
    outcomes = [("b", True), ("a", False), ("b", False), ("a", False), ("b", True)]
    assert cluster_totals(outcomes) == [(2, 3), (0, 2)]


def test_cluster_keys_by_case_and_category() -> None:
    results = [_result("a", category="x"), _result("b", category="x"), _result("c")]
    assert cluster_keys(results) == ["case:a", "case:b", "case:c"]
    assert cluster_keys(results, "category") == ["category:x", "category:x", "case:c"]


def test_cluster_keys_by_tag_joins_chains_of_shared_tags() -> None:
    results = [
        _result("a", tags=("ctx-1",)),
        _result("b", tags=("ctx-1", "ctx-2")),
        _result("c", tags=("ctx-2", "git")),
        _result("d", tags=("git",)),
        _result("e"),
        _result("a", tags=("ctx-1",)),
    ]
    keys = cluster_keys(results, "tag")
    assert len({keys[0], keys[1], keys[2], keys[3], keys[5]}) == 1
    assert keys[4] not in keys[:4]
    by_prefix = cluster_keys(results, "tag:ctx-")
    assert by_prefix[0] == by_prefix[1] == by_prefix[2] == by_prefix[5]
    assert by_prefix[3] != by_prefix[2]


@pytest.mark.parametrize("bad", ["tags", "tag:", "", "Case"])
def test_check_cluster_by_unknown_raises(bad: str) -> None:
    with pytest.raises(ValueError, match="cluster by"):
        check_cluster_by(bad)


def _simulate(
    cases: int, tries: int, mean: float, icc: float, *, seed: int, runs: int = 2000
) -> tuple[float, float]:
    """Coverage of the clustered and the per-try Wilson interval over simulated suites.

    Each run draws `cases` true case rates from a Beta distribution of mean `mean` whose
    intra-case correlation is `icc`, then `tries` Bernoulli tries per case; the estimand
    is `mean`, the accuracy on cases drawn like these.
    """
    rng = np.random.default_rng(seed)
    strength = 1 / icc - 1
    clustered = per_try = 0
    for _ in range(runs):
        rates = rng.beta(mean * strength, (1 - mean) * strength, size=cases)
        passes = rng.binomial(tries, rates)
        clustered += clustered_rate([(int(p), tries) for p in passes]).rate.interval.contains(mean)
        per_try += wilson_interval(int(passes.sum()), cases * tries).contains(mean)
    return clustered / runs, per_try / runs


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cases", "tries", "mean", "icc", "seed"),
    [(50, 5, 0.7, 0.3, 20260101), (30, 3, 0.6, 0.5, 7), (20, 5, 0.8, 0.4, 11)],
    ids=["50x5", "30x3", "20x5"],
)
def test_clustered_simulated_coverage_is_near_nominal_and_per_try_under_covers(
    cases: int, tries: int, mean: float, icc: float, seed: int
) -> None:
    """2,000 simulated suites with clustered repeats: 93-97% covered; per-try Wilson < 90%."""
    clustered, per_try = _simulate(cases, tries, mean, icc, seed=seed)
    assert 0.93 <= clustered <= 0.97
    assert per_try < 0.90


def _tries(make_run, outcomes: dict[str, str], **fields: object) -> RunResult:
    status = {"c": "correct", "w": "wrong_args"}
    rows = [
        {"case_id": case, "status": status[o], "repeat": k, **fields}
        for case, tries in outcomes.items()
        for k, o in enumerate(tries)
    ]
    return make_run(rows, repeat=max(len(t) for t in outcomes.values()))


def test_compute_metrics_without_repeats_keeps_plain_wilson(make_run) -> None:
    m = compute_metrics(_tries(make_run, {f"c{i}": "c" if i < 42 else "w" for i in range(50)}))
    assert m.accuracy == rate_of(42, 50)
    assert m.accuracy_clustering is not None
    assert m.accuracy_clustering.design_effect == 1.0
    assert m.to_dict()["cluster_by"] == "case"


def test_compute_metrics_repeats_cluster_accuracy_and_rows_by_case(make_run) -> None:
    outcomes = {f"s{i}": "ccc" for i in range(6)} | {f"f{i}": "www" for i in range(4)}
    m = compute_metrics(_tries(make_run, outcomes, category="simple"))
    assert (m.accuracy.passed, m.accuracy.n) == (18, 30)
    assert m.accuracy.interval.width > rate_of(18, 30).interval.width * 1.3
    row = m.by_category[0]
    assert (row.clusters, row.rate) == (10, m.accuracy)
    assert m.to_dict()["accuracy_clustering"]["clusters"] == 10


def test_compute_metrics_cluster_by_category_groups_cases(make_run) -> None:
    outcomes = {f"c{i}": "c" for i in range(10)}
    m = compute_metrics(_tries(make_run, outcomes, category="simple"), cluster_by="category")
    assert m.accuracy_clustering is not None
    assert m.accuracy_clustering.clusters == 1
    assert m.accuracy.interval.width > 0.5
    assert m.cluster_by == "category"


def test_compute_metrics_unknown_cluster_by_raises(make_run) -> None:
    with pytest.raises(ValueError, match="cluster by"):
        compute_metrics(_tries(make_run, {"a": "c"}), cluster_by="suite")


@pytest.mark.parametrize(
    ("passed", "n", "too_few"), [(5, 5, True), (10, 10, False), (10, 20, True), (13, 25, False)]
)
def test_breakdown_too_few_to_tell_over_forty_points(passed: int, n: int, too_few: bool) -> None:
    row = Breakdown("k", rate_of(passed, n), 1.0)
    assert row.too_few_to_tell is too_few
    assert row.to_dict()["too_few_to_tell"] is too_few
