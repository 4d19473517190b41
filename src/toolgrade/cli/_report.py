"""`toolgrade report RUN --format ...`: render a stored run as a report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import toolgrade
from toolgrade.cli._options import DbOption
from toolgrade.errors import ConfigError
from toolgrade.metrics import check_cluster_by
from toolgrade.report import FAILURES_SHOWN
from toolgrade.suite import Rubric

__all__ = ["report"]


def report(
    run: Annotated[
        str,
        typer.Argument(help="Run id (or unique prefix), tag, run folder, or exported JSON file."),
    ],
    fmt: Annotated[
        str,
        typer.Option("--format", "-f", help="Report format."),
    ] = "text",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the report to FILE instead of printing it."),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option("--baseline", help="Compare with this run (id, tag or file)."),
    ] = None,
    threshold: Annotated[
        float,
        typer.Option(help="Accuracy drop, in points, that counts as a regression."),
    ] = 2.0,
    alpha: Annotated[float, typer.Option(help="Significance level of McNemar's test.")] = 0.05,
    db: DbOption = None,
    profile: Annotated[
        str | None,
        typer.Option(help="Re-judge the stored outputs under this profile (default or bfcl)."),
    ] = None,
    rubric: Annotated[
        Rubric | None,
        typer.Option(help="Re-judge the stored outputs under this rubric."),
    ] = None,
    suite: Annotated[
        str | None,
        typer.Option(help="Suite to re-judge against (default: the built-in suite of that name)."),
    ] = None,
    max_failures: Annotated[
        str,
        typer.Option(
            "--max-failures",
            metavar="N|all",
            help="Failures the text report details, or all; the rest are counted by status.",
        ),
    ] = str(FAILURES_SHOWN),
    cluster_by: Annotated[
        str,
        typer.Option(
            "--cluster-by",
            metavar="case|category|tag|tag:PREFIX",
            help="Cluster the accuracy intervals by case (its tries), category, or"
            " cases sharing a tag (tags starting with PREFIX).",
        ),
    ] = "case",
) -> None:
    """Render a run as a text, JSON, Markdown, HTML, JUnit XML or Prometheus report.

    With --profile, --rubric or --suite the stored raw outputs are extracted and judged
    again (the model is not called) before the report is rendered.
    """
    try:
        check_cluster_by(cluster_by)
    except ValueError as exc:
        raise ConfigError(f"--cluster-by: {exc}") from exc
    result = toolgrade.resolve_run(run, db=db)
    if profile is not None or rubric is not None or suite is not None:
        source = suite or result.suite_name
        result = toolgrade.rescore_run(
            result, toolgrade.load_suite(source), profile=profile, rubric=rubric
        )
    comparison = None
    if baseline is not None:
        comparison = toolgrade.compare_runs(
            toolgrade.resolve_run(baseline, db=db), result, threshold=threshold, alpha=alpha
        )
    shown = _failures_shown(max_failures)
    metrics = toolgrade.compute_metrics(result, cluster_by=cluster_by)
    if output is None:
        text = toolgrade.render_report(
            result, fmt, comparison=comparison, metrics=metrics, max_failures=shown
        )
        typer.echo(text, nl=False)
        return
    written = toolgrade.write_report(
        result, fmt, output, comparison=comparison, metrics=metrics, max_failures=shown
    )
    typer.echo(f"wrote {fmt} report to {written}", err=True)


def _failures_shown(value: str) -> int | None:
    """`--max-failures`: a count from 0, or `all` (None).

    Raises:
        ConfigError: neither.
    """
    if value.strip().lower() == "all":
        return None
    try:
        count = int(value)
    except ValueError:
        count = -1
    if count < 0:
        raise ConfigError(f"--max-failures must be a number from 0 or 'all', got {value!r}")
    return count
