"""The text report: the specification's layout, and terminal safety."""

from __future__ import annotations

import re

import toolgrade


def _sections(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith(" ")]


def test_text_sections_follow_specification_order(
    run: toolgrade.RunResult, comparison: toolgrade.Comparison
) -> None:
    text = toolgrade.render_report(run, "text", comparison=comparison)
    heads = [h.split(":")[0] for h in _sections(text)]
    order = [
        "Tool-Call Correctness Report",
        "Total Cases",
        "Passed",
        "Failed",
        "Timeouts",
        "Errors",
        "Accuracy",
        "By Category",
        "By Tool",
        "Failures",
        "Timeouts and Errors",
        "vs Baseline (v1.2)",
    ]
    positions = [heads.index(h) for h in order]
    assert positions == sorted(positions)
    assert text.splitlines()[1] == "=" * len("Tool-Call Correctness Report")


def test_text_counts_and_accuracy_line_match_metrics(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "text")
    m = toolgrade.compute_metrics(run)
    assert f"Total Cases: {m.total}\n" in text
    assert f"Passed: {m.passed}\nFailed: {m.failed}\nTimeouts: 1\nErrors: 1\n" in text
    assert re.search(r"^Accuracy: 27\.3% \(95% CI: \d+\.\d% - \d+\.\d%\)$", text, re.M)


def test_text_breakdown_labels_are_aligned(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "text")
    block = text.split("By Tool:\n")[1].split("\n\n")[0].splitlines()
    columns = {re.match(r"  .+?:\s+(?=\d)", line).end() for line in block}  # type: ignore[union-attr]
    assert len(columns) == 1
    assert "  read_file:   50.0% (1/2)  95% CI: 9.5% - 90.5%  too few cases to tell" in block
    assert "  Simple:   66.7% (2/3)  95% CI: 20.8% - 93.9%  too few cases to tell" in text


def test_text_every_failure_shows_prompt_expected_actual(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "text")
    failures = text.split("\nFailures:\n")[1].split("\n\n")[0]
    blocks = re.split(r"\n(?=  \S)", failures)
    assert len(blocks) == toolgrade.compute_metrics(run).failed
    for block in blocks:
        assert "    Prompt:" in block
        assert "    Expected:" in block
        assert "    Actual:" in block
    assert "  TC-015: Expected search, got read_file\n" in failures
    tc023 = next(r for r in run.results if r.case_id == "TC-023")
    assert f"  TC-023: {toolgrade.describe_failure(tc023)}\n" in failures


def test_text_baseline_block_has_delta_and_status(
    run: toolgrade.RunResult, comparison: toolgrade.Comparison
) -> None:
    text = toolgrade.render_report(run, "text", comparison=comparison)
    tail = text.split("vs Baseline (v1.2):\n")[1]
    assert tail.startswith(
        "  Delta: -27.3% (was 54.5%)\n  Status: Inconclusive: the suite cannot tell at this"
        " size; about 28 paired cases would\n"
    )
    assert "  This suite cannot detect a change of any size reliably" in tail


def test_text_control_characters_are_made_visible(run: toolgrade.RunResult) -> None:
    failing = run.results[3].model_copy(
        update={"prompt": "hi \x1b[2J\x1b]0;owned\x07 there", "raw_response": None}
    )
    text = toolgrade.render_report(run.model_copy(update={"results": (failing,)}), "text")
    assert "\x1b" not in text and "\x07" not in text
    assert "hi \\x1b[2J\\x1b]0;owned\\x07 there" in text


def test_text_empty_run_reports_no_scored_cases(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run.model_copy(update={"results": ()}), "text")
    assert "Total Cases: 0\n" in text
    assert "Accuracy: n/a (no scored cases)\n" in text
    assert "Failures:" not in text


def test_text_repeated_cases_are_numbered(run: toolgrade.RunResult) -> None:
    first = run.results[2]
    second = first.model_copy(update={"repeat": 1})
    repeated = run.model_copy(update={"results": (first, second), "repeat": 2})
    text = toolgrade.render_report(repeated, "text")
    assert "  TC-015 repeat 0: Expected search, got read_file" in text
    assert "  TC-015 repeat 1: Expected search, got read_file" in text


def test_text_warns_when_many_cases_timed_out(run: toolgrade.RunResult) -> None:
    # "75.0% (3/4)" over the cases that finished must not read as the model's accuracy.
    timed_out = [
        r.model_copy(update={"status": toolgrade.Status.TIMEOUT, "score": 0.0}) if i < 5 else r
        for i, r in enumerate(run.results)
    ]
    text = toolgrade.render_report(run.model_copy(update={"results": timed_out}), "text")
    n = sum(r.status == "timeout" for r in timed_out)
    assert f"Warning: {n} of {len(run.results)} cases timed out" in text
    assert "Warning:" not in toolgrade.render_report(run, "text")
