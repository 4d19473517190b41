"""The standings against the best: the four verdicts, never contradicting the Holm pairs."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

import toolgrade
from toolgrade.sweep import BoardInput, build_leaderboard, render_leaderboard_html

RunFactory = Callable[..., toolgrade.RunResult]


def _run(make_run: RunFactory, name: str, passed: list[bool]) -> toolgrade.RunResult:
    rows = [
        {"case_id": f"c{i:04d}", "status": "correct" if ok else "wrong_args"}
        for i, ok in enumerate(passed)
    ]
    return make_run(rows, run_id=name, model=f"test/{name}")


def _board(make_run: RunFactory, models: dict[str, list[bool]], **kwargs: float):
    rows = [(name, f"test/{name}", _run(make_run, name, p), None) for name, p in models.items()]
    return build_leaderboard("t", [BoardInput("s", rows)], **kwargs).suites[0]


@pytest.mark.parametrize("seed", range(12))
def test_standings_agree_with_the_holm_pairs(make_run: RunFactory, seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([20, 60, 150])
    rates = [rng.uniform(0.3, 0.9) for _ in range(rng.choice([2, 3, 4, 5]))]
    models = {f"m{k}": [rng.random() < r for _ in range(n)] for k, r in enumerate(rates)}
    suite = _board(make_run, models)
    best = suite.best
    assert best is not None
    pairs = {frozenset((p.first, p.second)): p for p in suite.pairs}
    for e in suite.entries:
        if e is best:
            continue
        pair = pairs[frozenset((best.label, e.label))]
        assert e.adjusted_p == pair.adjusted_p
        gap = -e.delta_vs_best * 100 if e.delta_vs_best is not None else 0.0
        # A regression is exactly a separated pair with a gap beyond the threshold.
        assert (e.standing == "regression") == (pair.separated and round(gap, 9) > 2.0)
        assert e.standing in ("regression", "equivalent", "inconclusive")
        assert (e.cases_to_tell is not None) == (e.standing == "inconclusive")
    if suite.separates_none:
        assert not any(e.standing == "regression" for e in suite.entries)


def test_an_uncorrected_difference_is_not_a_regression_after_holm(make_run: RunFactory) -> None:
    # b vs a: 7 cases only a passed, none only b (exact p 0.0156 < 0.05), but five models
    # make ten pairs and Holm lifts it above 0.05: the suite cannot tell.
    a = [True] * 10 + [False] * 10
    b = [False] * 7 + [True] * 3 + [False] * 10
    others = {f"x{k}": [True] * 3 + [False] * 17 for k in range(3)}
    suite = _board(make_run, {"a": a, "b": b, **others})
    entry = next(e for e in suite.entries if e.label == "b")
    assert entry.p_value == pytest.approx(0.015625)
    assert entry.adjusted_p is not None and entry.adjusted_p >= 0.05
    assert entry.standing == "inconclusive"


@pytest.mark.parametrize(
    ("flips", "threshold", "standing"),
    [
        (0, 2.0, "equivalent"),  # 2,000 cases, nothing flipped: inside ±2 points
        (6, 2.0, "equivalent"),  # 0.3 points apart, 6 flips one way: still inside
        (200, 2.0, "regression"),  # 10 points below, clearly: a regression
        (200, 20.0, "equivalent"),  # the same gap inside a 20-point margin
    ],
)
def test_equivalent_and_regression_standings(
    make_run: RunFactory, flips: int, threshold: float, standing: str
) -> None:
    a = [True] * 1500 + [False] * 500
    b = [False] * flips + [True] * (1500 - flips) + [False] * 500
    suite = _board(make_run, {"a": a, "b": b}, threshold=threshold)
    entry = suite.entries[1]
    assert entry.standing == standing
    assert entry.cases_to_tell is None
    assert suite.best is not None and suite.best.label == "a"


def test_html_shows_the_standing_holm_p_and_cases_to_tell(make_run: RunFactory) -> None:
    a = [True] * 8 + [False] * 2
    b = [True] * 5 + [False] * 5
    suite_board = build_leaderboard(
        "t",
        [
            BoardInput(
                "s",
                [
                    ("a", "test/a", _run(make_run, "a", a), None),
                    ("b", "test/b", _run(make_run, "b", b), None),
                ],
            )
        ],
    )
    entry = suite_board.suites[0].entries[1]
    assert entry.standing == "inconclusive" and entry.cases_to_tell is not None
    page = render_leaderboard_html(suite_board)
    assert 'class="standing-inconclusive"' in page
    assert f"about {entry.cases_to_tell:,} cases would tell" in page
    assert "Holm p" in page and "±2 points" in page
