"""The leaderboard's rank intervals and separated pairs, in its text, JSON and HTML forms."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

import toolgrade
from toolgrade.sweep import (
    BoardInput,
    Leaderboard,
    RankInterval,
    build_leaderboard,
    leaderboard,
    render_leaderboard_html,
    render_leaderboard_text,
)

RunFactory = Callable[..., toolgrade.RunResult]


def _run(make_run: RunFactory, run_id: str, passed: set[int], n: int = 10) -> toolgrade.RunResult:
    rows = [
        {"case_id": f"c{i}", "status": "correct" if i in passed else "wrong_args"}
        for i in range(1, n + 1)
    ]
    return make_run(rows, run_id=run_id, model=f"test/{run_id}")


def _board(*runs: tuple[str, toolgrade.RunResult], seed: int = 0) -> Leaderboard:
    rows = [(label, run.model, run, None) for label, run in runs]
    return build_leaderboard("t", [BoardInput("s", rows)], seed=seed)


@pytest.fixture
def separated(make_run: RunFactory) -> Leaderboard:
    """40 cases: `strong` passes 36, `weak` 8 of them; `middle` 20."""
    strong = _run(make_run, "S", set(range(1, 37)), 40)
    middle = _run(make_run, "M", set(range(1, 21)), 40)
    weak = _run(make_run, "W", set(range(1, 9)), 40)
    return _board(("weak", weak), ("strong", strong), ("middle", middle))


@pytest.fixture
def unseparated(make_run: RunFactory) -> Leaderboard:
    """10 cases: 6 and 5 passed, 3 discordant: nothing to tell them apart."""
    return _board(
        ("first", _run(make_run, "A", {1, 2, 3, 4, 5, 6})),
        ("second", _run(make_run, "B", {1, 2, 3, 4, 7})),
    )


def test_entries_carry_rank_intervals_and_pairs(separated: Leaderboard) -> None:
    (suite,) = separated.suites
    assert [e.label for e in suite.entries] == ["strong", "middle", "weak"]
    assert [e.rank_interval for e in suite.entries] == [
        RankInterval(1, 1),
        RankInterval(2, 2),
        RankInterval(3, 3),
    ]
    assert [(p.first, p.second) for p in suite.pairs] == [
        ("strong", "middle"),
        ("strong", "weak"),
        ("middle", "weak"),
    ]
    assert all(p.separated for p in suite.pairs) and not suite.separates_none
    assert suite.summary is not None and suite.summary.startswith("The suite separates every pair")


def test_the_same_seed_gives_the_same_board(make_run: RunFactory) -> None:
    a = _run(make_run, "A", {1, 2, 3, 4, 5, 6})
    b = _run(make_run, "B", {1, 2, 3, 4, 7})
    first = _board(("a", a), ("b", b), seed=5).to_dict()
    assert _board(("a", a), ("b", b), seed=5).to_dict() == first
    assert first["seed"] == 5


def test_a_suite_that_separates_no_pair_says_so(unseparated: Leaderboard) -> None:
    (suite,) = unseparated.suites
    assert suite.separates_none and suite.separated_pairs == ()
    assert suite.summary is not None
    assert suite.summary.startswith("The suite does not separate these models:")
    first, second = suite.entries
    assert first.rank_interval is not None and second.rank_interval is not None
    assert first.rank_interval.overlaps(second.rank_interval)
    text = render_leaderboard_text(unseparated)
    assert "  The suite does not separate these models: no pair differs at alpha 0.05" in text
    assert re.search(r"\n  =\s+1-2\s+first\s", text) and re.search(r"\n  =\s+1-2\s+second\s", text)
    assert not re.search(r"\n  [12]\s+1-2\s", text)  # no clean ranking


def test_text_lists_the_separated_pairs(make_run: RunFactory) -> None:
    board = _board(
        ("a", _run(make_run, "A", set(range(1, 9)))),
        ("b", _run(make_run, "B", {1, 2, 3, 4, 9})),
        ("c", _run(make_run, "C", {1})),
    )
    text = render_leaderboard_text(board)
    assert "The suite separates 1 of 3 pairs at alpha 0.05" in text
    assert "a > c (Holm p 0.0469); the other pairs it cannot tell apart." in text
    assert "Rank CI" in text and re.search(r"\n  1\s+1-2\s+a\s", text)


def test_json_has_rank_intervals_pairs_and_the_sentence(unseparated: Leaderboard) -> None:
    data = json.loads(json.dumps(unseparated.to_dict()))
    (suite,) = data["suites"]
    assert suite["separates_none"] is True
    assert suite["summary"].startswith("The suite does not separate these models:")
    assert [e["rank_interval"] for e in suite["entries"]] == [
        {"low": 1, "high": 2, "level": 0.95}
    ] * 2
    (pair,) = suite["pairs"]
    assert pair == {
        "first": "first",
        "second": "second",
        "cases": 10,
        "delta": pytest.approx(0.1),
        "first_only": 2,
        "second_only": 1,
        "p_value": 1.0,
        "adjusted_p": 1.0,
        "separated": False,
    }


def test_html_shows_rank_intervals_pairs_and_the_sentence(
    separated: Leaderboard, unseparated: Leaderboard
) -> None:
    page = render_leaderboard_html(separated)
    assert '<button type="button">Rank CI</button>' in page
    assert '<p class="separation">The suite separates every pair at alpha 0.05' in page
    assert page.count('<tr class="separated">') == 3 and 'class="pairs"' in page
    assert "<td>strong</td><td>weak</td><td>+70.0 pts</td>" in page
    page = render_leaderboard_html(unseparated)
    assert '<p class="separation warning">The suite does not separate these models:' in page
    assert page.count("<td>=</td>") == 2 and page.count("<td>1-2</td>") == 2
    assert '<tr class="not-separated">' in page


def test_one_model_or_no_shared_case_has_no_pairs(make_run: RunFactory) -> None:
    (alone,) = _board(("a", _run(make_run, "A", {1, 2}))).suites
    assert alone.pairs == () and alone.summary is None and not alone.separates_none
    assert alone.entries[0].rank_interval is None
    x = make_run([{"case_id": "x", "status": "correct"}], run_id="X", model="test/X")
    y = make_run([{"case_id": "y", "status": "correct"}], run_id="Y", model="test/Y")
    (apart,) = _board(("x", x), ("y", y)).suites
    assert apart.pairs == () and apart.summary is None
    assert "does not separate" not in render_leaderboard_text(_board(("x", x), ("y", y)))


def test_leaderboard_of_runs_takes_a_seed(make_run: RunFactory) -> None:
    a = _run(make_run, "A", {1, 2, 3, 4, 5, 6})
    b = _run(make_run, "B", {1, 2, 3, 4, 7})
    assert leaderboard([a, b], seed=3).to_dict() == leaderboard([a, b], seed=3).to_dict()
    assert leaderboard([a, b], seed=3).seed == 3
