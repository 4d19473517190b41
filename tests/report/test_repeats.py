"""With `--repeat K`, the text and Markdown reports show consistency and pass^k."""

from __future__ import annotations

import json

import pytest

import toolgrade

# Three tries each: A always passes, B passes twice out of three, C never passes.
OUTCOMES = {"A": "ccc", "B": "cwc", "C": "www"}


@pytest.fixture
def repeated(make_run) -> toolgrade.RunResult:
    status = {"c": "correct", "w": "wrong_args"}
    rows = [
        {"case_id": case, "status": status[o], "category": "simple", "repeat": k}
        for case, tries in OUTCOMES.items()
        for k, o in enumerate(tries)
    ]
    return make_run(rows, repeat=3)


def test_text_report_repeats_show_consistency_pass_k_and_changed_cases(
    repeated: toolgrade.RunResult,
) -> None:
    metrics = toolgrade.compute_metrics(repeated)
    assert metrics.consistency == pytest.approx(2 / 3)
    assert metrics.pass_hat_k == pytest.approx(1 / 3)
    lines = toolgrade.render_report(repeated, "text").splitlines()
    # The interval is clustered by case: 9 tries of 3 cases are not 9 independent trials.
    accuracy = lines.index("Accuracy: 55.6% (95% CI: 14.6% - 90.1%, clustered: 9 tries of 3 cases)")
    assert lines[accuracy + 1 : accuracy + 4] == [
        "Repeats: 3 tries per case",
        "Consistency: 66.7% (2/3 cases had the same outcome on every try)",
        "pass^3: 33.3% (chance that all 3 tries of a case pass)",
    ]
    changed = lines.index("Changed Between Tries:")
    assert lines[changed + 1] == "  B (2/3 passed)"
    assert lines[changed + 2] == ""


def test_markdown_report_repeats_show_consistency_pass_k_and_changed_cases(
    repeated: toolgrade.RunResult,
) -> None:
    text = toolgrade.render_report(repeated, "markdown")
    assert (
        "**Repeats:** 3 tries per case · **Consistency:** 66.7% (2/3 cases had the same"
        " outcome on every try) · **pass^3:** 33.3% (chance that all 3 tries of a case pass)"
    ) in text
    assert "Outcome changed between tries: B (2/3 passed)" in text


def test_reports_without_repeats_show_no_repeat_lines(run: toolgrade.RunResult) -> None:
    for fmt in ("text", "markdown"):
        text = toolgrade.render_report(run, fmt)
        assert "Consistency" not in text and "pass^" not in text
        assert "Changed Between Tries" not in text and "Outcome changed" not in text


def test_text_report_repeats_without_enough_scored_tries_say_n_a(make_run) -> None:
    # Every try but one timed out: no case has two scored tries.
    rows = [
        {"case_id": "A", "status": "correct", "repeat": 0},
        {"case_id": "A", "status": "timeout", "repeat": 1},
    ]
    text = toolgrade.render_report(make_run(rows, repeat=2), "text")
    assert "Consistency: n/a (no case has two scored tries)" in text
    assert "pass^2: n/a (no case has 2 scored tries)" in text


def test_reports_repeats_rows_carry_clustered_intervals_and_the_mark(
    repeated: toolgrade.RunResult,
) -> None:
    text = toolgrade.render_report(repeated, "text")
    assert "  Simple:  55.6% (5/9)  95% CI: 14.6% - 90.1%  too few cases to tell" in text
    markdown = toolgrade.render_report(repeated, "markdown")
    assert "| Simple | 55.6% | 5/9 | 14.6% - 90.1% (too few cases to tell) |" in markdown
    row = json.loads(toolgrade.render_report(repeated, "json"))["metrics"]["by_category"][0]
    assert (row["clusters"], row["too_few_to_tell"]) == (3, True)
    # Design effect 63/20 (CR1 factor included): 9 tries are worth 20/7 trials.
    assert row["effective_n"] == pytest.approx(20 / 7)


def test_reports_clustered_by_category_say_so(repeated: toolgrade.RunResult) -> None:
    metrics = toolgrade.compute_metrics(repeated, cluster_by="category")
    text = toolgrade.render_report(repeated, "text", metrics=metrics)
    assert "clustered by category: 9 tries of 1 cluster)" in text


def _flipping(make_run, cases: int, flipping: int, temperature: float) -> toolgrade.RunResult:
    """`cases` cases of two tries, the first `flipping` of them passing once only."""
    rows = [
        {
            "case_id": f"TC-{i:03d}",
            "status": "wrong_args" if i < flipping and k == 1 else "correct",
            "repeat": k,
        }
        for i in range(cases)
        for k in range(2)
    ]
    return make_run(rows, repeat=2, backend={"temperature": temperature})


def test_reports_show_the_noise_floor_and_the_temperature_zero_warning(make_run) -> None:
    run = _flipping(make_run, 10, 3, 0.0)
    summary = "3 of 10 cases (30.0%) gave different verdicts across 2 tries"
    warning = "temperature 0, yet 3 cases flipped: this server is not deterministic"
    text = toolgrade.render_report(run, "text")
    assert f"Noise floor: {summary} (flip rate 30.0%" in text
    assert f"Warning: {warning}" in text
    markdown = toolgrade.render_report(run, "markdown")
    assert f"**Noise floor:** {summary}" in markdown and f"> **Warning:** {warning}." in markdown
    html = toolgrade.render_report(run, "html")
    assert f"Noise floor: {summary}" in html and warning.capitalize() in html
    assert '<property name="noise_floor.share" value="0.3000" />' in toolgrade.render_report(
        run, "junit"
    )
    prometheus = toolgrade.render_report(run, "prometheus")
    assert 'toolgrade_noise_floor{model="test/model",suite="test-suite"} 0.3' in prometheus
    assert 'toolgrade_not_deterministic{model="test/model",suite="test-suite"} 1.0' in prometheus


@pytest.mark.parametrize(("temperature", "flipping"), [(0.7, 3), (0.0, 0)])
def test_reports_say_nothing_of_determinism_when_sampling_or_steady(
    make_run, temperature: float, flipping: int
) -> None:
    run = _flipping(make_run, 10, flipping, temperature)
    for fmt in ("text", "markdown", "html"):
        assert "not deterministic" not in toolgrade.render_report(run, fmt)
    text = toolgrade.render_report(run, "text")
    assert f"Noise floor: {flipping} of 10 cases" in text


def test_reports_list_the_first_twenty_flipped_cases_and_count_the_rest(make_run) -> None:
    run = _flipping(make_run, 30, 25, 0.7)
    lines = toolgrade.render_report(run, "text").splitlines()
    start = lines.index("Changed Between Tries:")
    listed = lines[start + 1 : start + 21]
    assert listed == [f"  TC-{i:03d} (1/2 passed)" for i in range(20)]
    assert lines[start + 21] == "  ... and 5 more (the JSON report lists every one)"
    markdown = toolgrade.render_report(run, "markdown")
    assert "TC-019 (1/2 passed) … and 5 more" in markdown
    assert "TC-020 (1/2 passed)" not in markdown
    html = toolgrade.render_report(run, "html")
    assert "<code>TC-019 (1/2 passed)</code> and 5 more" in html
    document = json.loads(toolgrade.render_report(run, "json"))
    assert len(document["metrics"]["noise_floor"]["flipped_cases"]) == 25
