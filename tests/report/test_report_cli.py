"""`toolgrade report`: every format, to stdout or a file, with a baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
import toolgrade.report
from toolgrade.cli import app

DATA = Path(__file__).resolve().parent.parent / "data" / "report"
RUN = str(DATA / "run.json")
BASELINE = str(DATA / "baseline.json")


def test_report_cli_prints_text_by_default() -> None:
    result = CliRunner().invoke(app, ["report", RUN])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Tool-Call Correctness Report\n")
    assert "vs Baseline" not in result.stdout


def test_report_cli_baseline_adds_comparison() -> None:
    result = CliRunner().invoke(app, ["report", RUN, "--baseline", BASELINE])
    assert result.exit_code == 0, result.output
    assert "vs Baseline (v1.2):\n  Delta: -27.3% (was 54.5%)" in result.stdout


@pytest.mark.parametrize("fmt", toolgrade.report.REPORT_FORMATS)
def test_report_cli_output_file_matches_library(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / f"report-{fmt}"
    result = CliRunner().invoke(app, ["report", RUN, "--format", fmt, "-o", str(out)])
    assert result.exit_code == 0, result.output
    run = toolgrade.resolve_run(RUN)
    assert out.read_text(encoding="utf-8") == toolgrade.render_report(run, fmt)


def test_report_cli_stored_run_by_tag(tmp_path: Path) -> None:
    toolgrade.save_run(toolgrade.resolve_run(BASELINE))
    result = CliRunner().invoke(app, ["report", "v1.2", "-f", "markdown"])
    assert result.exit_code == 0, result.output
    assert "**Run:** 20260115-100000-base" in result.stdout


def test_report_cli_unknown_run_exits_2() -> None:
    result = CliRunner().invoke(app, ["report", "no-such-run"])
    assert result.exit_code == 2
    assert "no-such-run" in result.output


def test_report_cli_unknown_format_exits_2() -> None:
    result = CliRunner().invoke(app, ["report", RUN, "--format", "pdf"])
    assert result.exit_code == 2


def test_report_cli_cluster_by_category_clusters_the_accuracy() -> None:
    result = CliRunner().invoke(app, ["report", RUN, "-f", "json", "--cluster-by", "category"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)["metrics"]
    assert metrics["cluster_by"] == "category"
    assert metrics["accuracy_clustering"]["clusters"] == 3
    assert (
        "clustered by category"
        in CliRunner().invoke(app, ["report", RUN, "--cluster-by", "category"]).stdout
    )


def test_report_cli_unknown_cluster_by_exits_2() -> None:
    result = CliRunner().invoke(app, ["report", RUN, "--cluster-by", "suite"])
    assert result.exit_code == 2
    assert "--cluster-by" in result.output
