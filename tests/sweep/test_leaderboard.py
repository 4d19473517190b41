"""The leaderboard's numbers checked by hand, and its text, JSON and HTML forms."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import toolgrade
from sweep.helpers import write_suite, write_sweep
from toolgrade.power import cases_needed
from toolgrade.sweep import (
    BoardInput,
    Leaderboard,
    build_leaderboard,
    history_leaderboard,
    leaderboard,
    load_sweep,
    render_leaderboard_html,
    render_leaderboard_text,
    run_sweep,
    write_leaderboard_html,
)

RunFactory = Callable[..., toolgrade.RunResult]
Z95 = 1.959963984540054


def wilson(passed: int, n: int) -> tuple[float, float]:
    """The Wilson score interval, written out (Newcombe 1998, method 3)."""
    p = passed / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return centre - half, centre + half


def mcnemar(b: int, c: int) -> float:
    """Two-sided exact McNemar: twice the binomial tail of the smaller discordant count."""
    n = b + c
    return min(1.0, 2 * sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n)


def _run(
    make_run: RunFactory, run_id: str, passed: set[int], **kinds: set[int]
) -> toolgrade.RunResult:
    """Cases c1..c10: `passed` correct, `timeout`/`error` as given, the rest wrong_args."""
    rows = []
    for i in range(1, 11):
        status = "correct" if i in passed else "wrong_args"
        for kind, ids in kinds.items():
            if i in ids:
                status = kind
        rows.append({"case_id": f"c{i}", "status": status})
    return make_run(rows, run_id=run_id, model=f"test/{run_id}")


@pytest.fixture
def board(make_run: RunFactory) -> Leaderboard:
    a = _run(make_run, "A", set(range(1, 9)))  # 8/10
    b = _run(make_run, "B", {1, 2, 3, 4, 9})  # 5/10: b = 4 (c5..c8), c = 1 (c9)
    c = _run(make_run, "C", {1})  # 1/10: b = 7 (c2..c8), c = 0
    return build_leaderboard(
        "hand",
        [
            BoardInput(
                "s",
                [
                    ("b", "test/B", b, None),
                    ("a", "test/A", a, None),
                    ("c", "test/C", c, None),
                    ("gone", "test/D", None, "failed: down"),
                ],
            )
        ],
    )


def test_leaderboard_numbers_match_the_hand_computation(board: Leaderboard) -> None:
    (suite,) = board.suites
    assert suite.compared_cases == 10
    a, b, c, gone = suite.entries
    assert [e.label for e in suite.entries] == ["a", "b", "c", "gone"]
    assert [e.rank for e in suite.entries] == [1, 2, 3, None]
    assert (a.accuracy.passed, a.accuracy.n, a.accuracy.rate) == (8, 10, 0.8)
    low, high = wilson(8, 10)
    assert a.accuracy.interval.low == pytest.approx(low, abs=1e-9)
    assert a.accuracy.interval.high == pytest.approx(high, abs=1e-9)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    assert a.standing == "best" and a.p_value is None and a.delta_vs_best is None
    assert b.p_value == pytest.approx(mcnemar(4, 1)) == pytest.approx(0.375)
    assert b.delta_vs_best == pytest.approx(-0.3)
    assert c.p_value == pytest.approx(mcnemar(7, 0)) == pytest.approx(0.015625)
    # Holm over the three pairs: a-c 3 x 0.015625, b-c 2 x mcnemar(4, 0), a-b 0.375.
    assert c.adjusted_p == pytest.approx(3 * 0.015625) and c.standing == "regression"
    assert b.adjusted_p == pytest.approx(0.375) and b.standing == "inconclusive"
    # About how many cases would tell: a 30-point gap, half of the cases flipping, at
    # the Bonferroni level over the three pairs.
    assert b.cases_to_tell == cases_needed(0.3, 0.5, alpha=0.05 / 3)
    assert c.cases_to_tell is None and a.adjusted_p is None and a.cases_to_tell is None
    # Equivalence is judged at alpha / 2 for the two models against the best: a 95% interval.
    assert b.equivalence_interval is not None and b.equivalence_interval.level == 0.95
    assert gone.standing == "no run" and gone.note == "failed: down" and gone.accuracy is None
    assert suite.best is a


def test_leaderboard_compares_only_cases_every_model_scored(make_run: RunFactory) -> None:
    a = _run(make_run, "A", set(range(1, 9)), timeout={9}, error={10})
    b = _run(make_run, "B", {1, 2, 3, 4, 9, 10}, error={1})
    (suite,) = build_leaderboard(
        "t", [BoardInput("s", [("a", "x", a, None), ("b", "y", b, None)])]
    ).suites
    assert suite.compared_cases == 7  # c2..c8
    first, second = suite.entries
    assert (first.label, first.accuracy.passed, first.accuracy.n) == ("a", 7, 7)
    assert (second.label, second.accuracy.passed, second.accuracy.n) == ("b", 3, 7)
    assert (first.timeouts, first.errors, second.errors) == (1, 1, 1)
    assert (first.scored, first.passed, second.scored, second.passed) == (8, 8, 9, 5)
    assert second.p_value == pytest.approx(mcnemar(4, 0))


def test_leaderboard_ties_share_a_rank_and_one_model_is_best(make_run: RunFactory) -> None:
    a = _run(make_run, "A", {1, 2, 3})
    b = _run(make_run, "B", {4, 5, 6})
    c = _run(make_run, "C", {1})
    (suite,) = build_leaderboard(
        "t", [BoardInput("s", [("a", "x", a, None), ("b", "y", b, None), ("c", "z", c, None)])]
    ).suites
    assert [(e.label, e.rank, e.standing) for e in suite.entries] == [
        ("a", 1, "best"),
        ("b", 1, "inconclusive"),
        ("c", 3, "inconclusive"),
    ]
    (alone,) = build_leaderboard("t", [BoardInput("s", [("a", "x", a, None)])]).suites
    assert alone.entries[0].standing == "best" and alone.compared_cases == 10


def test_leaderboard_text_lists_every_model(board: Leaderboard) -> None:
    text = render_leaderboard_text(board)
    assert text.startswith("Leaderboard: hand\n=================\n")
    assert "s: 10 cases scored by every model" in text
    assert re.search(r"1\s+1-2\s+a\s+80\.0% \(8/10\)\s+49\.0% - 94\.3%\s+10\s+0\s+0\s+best", text)
    assert re.search(r"3\s+3\s+c\s+10\.0% \(1/10\).*-70\.0 pts\s+0\.04688\s+regression", text)
    tell = cases_needed(0.3, 0.5, alpha=0.05 / 3)
    assert re.search(rf"2\s+.*\sb\s.*-30\.0 pts\s+0\.375\s+inconclusive \(~{tell:,}\)", text)
    assert "regression = its pair separated (Holm p < 0.05) and more than 2 points below" in text
    assert "  The suite separates 1 of 3 pairs at alpha 0.05" in text
    assert "a > c (Holm p 0.0469)" in text
    assert "  -  gone: failed: down" in text


def test_leaderboard_json_is_complete(board: Leaderboard) -> None:
    data = json.loads(json.dumps(board.to_dict()))
    assert data["schema_version"] == 3 and data["alpha"] == 0.05 and data["threshold"] == 2.0
    (suite,) = data["suites"]
    assert suite["best"] == "a" and suite["compared_cases"] == 10
    assert [e["standing"] for e in suite["entries"]] == [
        "best",
        "inconclusive",
        "regression",
        "no run",
    ]
    a, b, c, _ = suite["entries"]
    assert b["adjusted_p"] == pytest.approx(0.375) and c["adjusted_p"] == pytest.approx(0.046875)
    assert b["cases_to_tell"] == cases_needed(0.3, 0.5, alpha=0.05 / 3)
    assert c["cases_to_tell"] is None and a["equivalence_interval"] is None
    assert b["equivalence_interval"]["level"] == 0.95
    assert suite["entries"][0]["accuracy"]["interval"]["level"] == 0.95


HOSTILE = "<script>document.body.dataset.pwned=1</script>"


def test_leaderboard_html_escapes_labels_and_has_the_csp(
    make_run: RunFactory, tmp_path: Path
) -> None:
    a = _run(make_run, "A", {1, 2})
    b = _run(make_run, "B", {1})
    board = build_leaderboard(
        HOSTILE,
        [
            BoardInput(
                '<img src=x onerror="alert(1)">',
                [(HOSTILE, HOSTILE, a, None), ("b", "y", b, None), ("c", "z", None, HOSTILE)],
            )
        ],
    )
    page = render_leaderboard_html(board)
    assert HOSTILE not in page and "<img src=x" not in page
    assert "&lt;script&gt;document.body.dataset.pwned=1&lt;/script&gt;" in page
    assert page.count("<script>") == 1 and page.count("<script") == 1  # the page's own
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None
    policy = csp.group(1).replace("&#39;", "'")
    assert policy.startswith("default-src 'none'; img-src data:; script-src 'sha256-")
    assert "unsafe-inline" not in policy and "style-src 'sha256-" in policy
    assert "<svg" in page and 'class="leaderboard"' in page
    path = write_leaderboard_html(board, tmp_path / "out" / "board.html")
    assert path.read_text(encoding="utf-8") == page


def test_leaderboard_html_hash_pins_the_inline_script_and_style(board: Leaderboard) -> None:
    import base64
    import hashlib

    page = render_leaderboard_html(board)
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    assert script is not None and style is not None
    for kind, body in (("script", script.group(1)), ("style", style.group(1))):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{kind}-src &#39;sha256-{digest}&#39;" in page


def test_leaderboard_of_run_ids_groups_by_suite(make_run: RunFactory) -> None:
    a = _run(make_run, "A", set(range(1, 9)))
    b = _run(make_run, "B", {1})
    for run in (a, b):
        toolgrade.save_run(run)
    board = leaderboard(["A", "B"])
    (suite,) = board.suites
    assert suite.suite == "test-suite"
    assert [(e.label, e.standing) for e in suite.entries] == [
        ("test/A", "best"),
        ("test/B", "regression"),
    ]


def test_history_leaderboard_reads_the_sweeps_runs(tmp_path: Path) -> None:
    write_suite(tmp_path / "alpha.json", "alpha", 3)
    models = [
        {"label": "good", "model": "python/sweep.agents:good"},
        {"label": "later", "model": "python/sweep.agents:good", "repeat": 2},
    ]
    path = write_sweep(tmp_path / "s.toml", models=models[:1], suites=[{"suite": "alpha.json"}])
    result = run_sweep(load_sweep(path), handle_signals=False)
    path = write_sweep(tmp_path / "s.toml", models=models, suites=[{"suite": "alpha.json"}])
    board = history_leaderboard(load_sweep(path))
    (suite,) = board.suites
    good, later = suite.entries
    assert good.run_id == result.outcomes[0].run_id and good.standing == "best"
    assert later.standing == "no run" and later.note == "no finished run with these settings"
