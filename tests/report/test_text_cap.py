"""The text report of a large run details the first failures and counts the rest.

A run of 20,000 cases with over 10,000 failures printed every one: the report lists the
first 50 failures (and 50 timeouts and errors), then one line counting the rest by
status and naming the reports that list every case. `max_failures=None` lists all.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

import toolgrade
from toolgrade.report._view import FAILURES_SHOWN


@pytest.fixture(scope="module")
def large(run: toolgrade.RunResult) -> toolgrade.RunResult:
    """The report fixture's 13 results repeated to 20,000 cases, each with its own id."""
    base = run.results
    results = [
        base[i % len(base)].model_copy(update={"case_id": f"TC-{i:05d}"}) for i in range(20_000)
    ]
    return run.model_copy(update={"results": tuple(results)})


def _headers(text: str, title: str) -> list[str]:
    section = text.split(f"\n{title}:\n", 1)[1]
    return re.findall(r"^  (TC-\d{5}): ", section.split("\n\n", 1)[0], flags=re.M)


def test_text_report_of_large_run_lists_first_failures_and_counts_rest(
    large: toolgrade.RunResult,
) -> None:
    started = time.perf_counter()
    text = toolgrade.render_report(large, "text")
    assert time.perf_counter() - started < 10
    failures = [r for r in large.results if r.status.scored and r.status != "correct"]
    unscored = [r for r in large.results if not r.status.scored]
    shown = _headers(text, "Failures")
    assert shown == [r.case_id for r in failures[:FAILURES_SHOWN]]
    rest = len(failures) - FAILURES_SHOWN
    line = next(
        line for line in text.splitlines() if line.startswith(f"  ... and {rest:,} more failures (")
    )
    wrong_args = sum(r.status == "wrong_args" for r in failures[FAILURES_SHOWN:])
    assert f"more failures (wrong_args {wrong_args:,} · " in line  # the most common first
    assert line.endswith(
        f": the HTML and JSON reports list every one (toolgrade report {large.run_id}"
        " --format html -o report.html), and so does this one with --max-failures all"
    )
    assert _headers(text, "Timeouts and Errors") == [r.case_id for r in unscored[:FAILURES_SHOWN]]
    assert f"  ... and {len(unscored) - FAILURES_SHOWN:,} more timeouts and errors (" in text
    assert len(text.splitlines()) < 1_000


def test_text_report_max_failures_none_lists_every_failure(large: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(large, "text", max_failures=None)
    failures = [r for r in large.results if r.status.scored and r.status != "correct"]
    assert len(_headers(text, "Failures")) == len(failures)
    assert "more failures" not in text


def test_text_report_max_failures_zero_only_counts(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "text", max_failures=0)
    assert _headers(text, "Failures") == []
    assert "  ... and 8 more failures (wrong_args 3 · " in text


def test_render_report_negative_max_failures_is_refused(run: toolgrade.RunResult) -> None:
    with pytest.raises(toolgrade.ConfigError, match="max_failures must be 0 or more"):
        toolgrade.render_report(run, "text", max_failures=-1)


def test_cli_report_max_failures_all_and_count(run: toolgrade.RunResult, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from toolgrade.cli import app

    base = run.results
    results = tuple(
        base[i % len(base)].model_copy(update={"case_id": f"TC-{i:05d}"}) for i in range(300)
    )
    medium = run.model_copy(update={"results": results})
    path = tmp_path / "run.json"
    path.write_text(medium.model_dump_json(), encoding="utf-8")
    failures = [r for r in medium.results if r.status.scored and r.status != "correct"]
    assert len(failures) > FAILURES_SHOWN
    runner = CliRunner()
    every = runner.invoke(app, ["report", str(path), "--max-failures", "all"])
    assert every.exit_code == 0, every.output
    assert len(_headers(every.output, "Failures")) == len(failures)
    three = runner.invoke(app, ["report", str(path), "--max-failures", "3"])
    assert _headers(three.output, "Failures") == [r.case_id for r in failures[:3]]
    bad = runner.invoke(app, ["report", str(path), "--max-failures", "-2"])
    assert bad.exit_code == 2
    assert "--max-failures must be a number from 0 or 'all', got '-2'" in bad.output
