"""render_report / write_report: dispatch, given metrics, files and errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import toolgrade
from toolgrade.report import REPORT_FORMATS


def test_render_unknown_format_raises_config_error(run: toolgrade.RunResult) -> None:
    with pytest.raises(toolgrade.ConfigError, match="unknown report format 'pdf'"):
        toolgrade.render_report(run, "pdf")  # type: ignore[arg-type]


def test_render_uses_given_metrics(run: toolgrade.RunResult) -> None:
    metrics = dataclasses.replace(toolgrade.compute_metrics(run), total=999)
    assert "Total Cases: 999\n" in toolgrade.render_report(run, "text", metrics=metrics)


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
def test_write_report_creates_parents_and_matches_render(
    fmt: str, run: toolgrade.RunResult, tmp_path: Path
) -> None:
    target = tmp_path / "deep" / "er" / f"report.{fmt}"
    written = toolgrade.write_report(run, fmt, target)  # type: ignore[arg-type]
    assert written == target
    rendered = toolgrade.render_report(run, fmt)  # type: ignore[arg-type]
    assert target.read_text(encoding="utf-8") == rendered
    assert [p.name for p in target.parent.iterdir()] == [target.name]


def test_write_report_unwritable_path_raises_config_error(
    run: toolgrade.RunResult, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(toolgrade.ConfigError, match="cannot write the text report"):
        toolgrade.write_report(run, "text", blocker / "report.txt")


def test_write_report_replaces_existing_file(run: toolgrade.RunResult, tmp_path: Path) -> None:
    target = tmp_path / "r.txt"
    target.write_text("old")
    toolgrade.write_report(run, "text", target)
    assert target.read_text(encoding="utf-8").startswith("Tool-Call Correctness Report")
