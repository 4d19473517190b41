"""Rank intervals and separated pairs: the pure functions behind the leaderboard."""

from __future__ import annotations

import random

import pytest

from toolgrade.sweep import PairTest, RankInterval, holm_adjust, pair_tests, rank_intervals
from toolgrade.sweep import separation_summary as summary

Outcomes = dict[str, bool]


def _model(rng: random.Random, n: int, accuracy: float) -> Outcomes:
    return {f"c{i}": rng.random() < accuracy for i in range(n)}


def test_a_model_far_ahead_has_rank_interval_one_to_one() -> None:
    rng = random.Random(3)
    leader = _model(rng, 60, 0.95)
    rest = [_model(rng, 60, 0.4) for _ in range(3)]
    first, *others = rank_intervals([leader, *rest])
    assert (first.low, first.high) == (1, 1)
    assert all(r.low >= 2 and r.high <= 4 for r in others)


def test_equal_models_have_overlapping_intervals() -> None:
    rng = random.Random(5)
    a, b = _model(rng, 80, 0.6), _model(rng, 80, 0.6)
    ra, rb = rank_intervals([a, b])
    assert ra.overlaps(rb) and (ra.low, ra.high) == (rb.low, rb.high) == (1, 2)
    same, twin = rank_intervals([a, dict(a)])  # identical outcomes: always tied for first
    assert same == twin == RankInterval(1, 1)


def test_rank_intervals_are_deterministic() -> None:
    rng = random.Random(7)
    models = [_model(rng, 40, p) for p in (0.5, 0.55, 0.6, 0.8)]
    first = rank_intervals(models, seed=11)
    assert rank_intervals(models, seed=11) == first
    assert rank_intervals([dict(reversed(m.items())) for m in models], seed=11) == first
    assert all(1 <= r.low <= r.high <= 4 and r.level == 0.95 for r in first)


def test_the_draws_are_paired() -> None:
    # b passes exactly the cases a passes plus one: on every draw b >= a, so b is never
    # ranked below a, which unpaired draws (each model resampled on its own) would do.
    a = {f"c{i}": i < 20 for i in range(40)}
    b = {**a, "c30": True}
    ra, rb = rank_intervals([a, b])
    assert rb.low == 1 and rb.high == 1 and ra.high == 2


def test_cases_a_model_lacks_are_left_out_of_its_accuracy() -> None:
    full = {f"c{i}": i % 2 == 0 for i in range(40)}  # 50%
    partial = {f"c{i}": True for i in range(20)}  # 100% of the 20 cases it has
    rf, rp = rank_intervals([full, partial])
    assert rp == RankInterval(1, 1) and rf == RankInterval(2, 2)
    rare = {"c0": True}  # most draws hold none of its cases: ranked on the others only
    (_, _, rr) = rank_intervals([full, partial, rare])
    assert rr.low == 1


def test_rank_intervals_reject_what_they_cannot_rank() -> None:
    assert rank_intervals([]) == ()
    with pytest.raises(ValueError, match="no case"):
        rank_intervals([{"c": True}, {}])
    with pytest.raises(ValueError, match="level"):
        rank_intervals([{"c": True}], level=1.0)
    with pytest.raises(ValueError, match="resamples"):
        rank_intervals([{"c": True}], resamples=10)
    with pytest.raises(ValueError, match="seed"):
        rank_intervals([{"c": True}], seed=-1)


def test_rank_interval_label_and_json() -> None:
    assert RankInterval(2, 4).label == "2-4" and RankInterval(1, 1).label == "1"
    assert RankInterval(2, 4).to_dict() == {"low": 2, "high": 4, "level": 0.95}
    assert not RankInterval(1, 1).overlaps(RankInterval(2, 3))


def test_holm_adjust_by_hand() -> None:
    # sorted: 0.01 (x3), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04, raised to 0.06)
    assert holm_adjust([0.01, 0.04, 0.03]) == pytest.approx((0.03, 0.06, 0.06))
    assert holm_adjust([0.5, 0.6]) == (1.0, 1.0)
    assert holm_adjust([]) == ()


def test_pair_tests_by_hand() -> None:
    a = {f"c{i}": i < 8 for i in range(10)}  # 8/10
    b = {f"c{i}": i in {0, 1, 2, 3, 8} for i in range(10)}  # 5/10: only a c4..c7, only b c8
    c = {f"c{i}": i == 0 for i in range(10)}  # 1/10: only a c1..c7
    ab, ac, bc = pair_tests(["a", "b", "c"], [a, b, c])
    assert (ab.first, ab.second, ab.first_only, ab.second_only) == ("a", "b", 4, 1)
    assert ab.p_value == pytest.approx(0.375) and ab.delta == pytest.approx(0.3)
    assert (ac.first_only, ac.second_only, ac.p_value) == (7, 0, pytest.approx(0.015625))
    assert (bc.first, bc.second, bc.first_only, bc.second_only) == ("b", "c", 4, 0)
    assert bc.p_value == pytest.approx(0.125)
    assert ac.adjusted_p == pytest.approx(3 * 0.015625) and ac.separated
    assert bc.adjusted_p == pytest.approx(0.25) and ab.adjusted_p == pytest.approx(0.375)
    assert not ab.separated and not bc.separated
    reversed_pair = pair_tests(["c", "a"], [c, a])[0]
    assert (reversed_pair.first, reversed_pair.second) == ("a", "c")


def test_pair_tests_use_the_cases_both_scored() -> None:
    a = {"c1": True, "c2": True, "c3": False}
    b = {"c2": False, "c3": True, "c4": True}
    (t,) = pair_tests(["a", "b"], [a, b])
    assert (t.cases, t.first_only, t.second_only, t.delta) == (2, 1, 1, 0.0)
    assert pair_tests(["a", "b"], [{"x": True}, {"y": True}]) == ()
    with pytest.raises(ValueError, match="labels"):
        pair_tests(["a"], [a, b])
    with pytest.raises(ValueError, match="alpha"):
        pair_tests(["a", "b"], [a, b], alpha=0.0)


def _null_run(rng: random.Random, difficulty: list[float]) -> Outcomes:
    """One model on cases of the given pass probabilities (the same for every model)."""
    return {f"c{i}": rng.random() < p for i, p in enumerate(difficulty)}


@pytest.mark.parametrize("models", [2, 4])
def test_equal_models_are_declared_separated_at_most_five_percent_of_the_time(
    models: int,
) -> None:
    """Family-wise error under a true null: every model has the same accuracy per case."""
    rng = random.Random(2024 + models)
    trials, false = 400, 0
    for _ in range(trials):
        # Cases of mixed difficulty (the models share it): 85 cases, mean accuracy ~60%.
        difficulty = [rng.choice((0.05, 0.5, 0.6, 0.95)) for _ in range(85)]
        runs = [_null_run(rng, difficulty) for _ in range(models)]
        false += any(t.separated for t in pair_tests([str(k) for k in range(models)], runs))
    assert false / trials <= 0.05


def test_a_real_gap_is_separated() -> None:
    rng = random.Random(9)
    strong, weak = _model(rng, 200, 0.9), _model(rng, 200, 0.5)
    (t,) = pair_tests(["weak", "strong"], [weak, strong])
    assert t.separated and t.first == "strong"


def test_separation_summary_sentences() -> None:
    kept = PairTest("a", "b", 84, 0.2, 20, 3, 0.001, 0.003, True)
    lost = PairTest("b", "c", 84, 0.01, 3, 2, 1.0, 1.0, False)
    none = summary([lost], alpha=0.05, cases=84)
    assert none is not None
    assert none.startswith("The suite does not separate these models: no pair differs at")
    assert "Holm-corrected over 1 pair, 84 cases" in none
    some = summary([kept, lost], alpha=0.05, cases=84)
    assert some is not None and some.startswith("The suite separates 1 of 2 pairs")
    assert "a > b (Holm p 0.003)" in some
    every = summary([kept], alpha=0.05, cases=84)
    assert every is not None and every.startswith("The suite separates every pair")
    assert summary([], alpha=0.05, cases=0) is None
