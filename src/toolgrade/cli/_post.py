"""What `toolgrade run` and `toolgrade evaluate` do once a run has finished.

In order: resolve the baseline (before saving, so that a tag the new run carries can
not make the run its own baseline), save the run to the history, compare, print the
text report and the summary line, warn when too many cases timed out, write the
requested report files, and choose the exit code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import typer

import toolgrade
from toolgrade.compare import Comparison
from toolgrade.errors import BaselineError, ConfigError, StoreError
from toolgrade.report import REPORT_FORMATS
from toolgrade.results import RunResult
from toolgrade.runner import run_summary_line, timeout_warning

__all__ = ["PostRunOptions", "after_run"]


@dataclass(frozen=True, slots=True)
class PostRunOptions:
    """Options of `run`/`evaluate` that act on the finished run."""

    baseline: str | None = None
    """Run id, tag or exported file to compare with."""
    fail_on_regression: bool = False
    """Exit 1 when the comparison finds a regression."""
    threshold: float = 2.0
    """Accuracy drop, in points, that counts as a regression (with significance)."""
    alpha: float = 0.05
    """Significance level of McNemar's test."""
    reports: dict[str, Path] = field(default_factory=dict)
    """Report format -> output file, e.g. {"junit": Path("out.xml")}."""
    quiet: bool = False
    """Print nothing but errors."""
    db: Path | None = None
    """History database (default `<TOOLGRADE_HOME>/toolgrade.db`)."""
    save: bool = True
    """Save the run to the history database."""


def after_run(result: RunResult, options: PostRunOptions) -> int:
    """Save, compare and report a finished run; return the process exit code.

    Returns:
        1 when `fail_on_regression` is set and the comparison with the baseline finds a
        regression, else 0.

    Raises:
        BaselineError: the baseline cannot be resolved or shares no case (the run is
            saved first).
        ConfigError: an unknown report format, or a report file cannot be written.
    """
    unknown = sorted(set(options.reports) - set(REPORT_FORMATS))
    if unknown:
        raise ConfigError(
            f"unknown report format {', '.join(unknown)} (choose from {', '.join(REPORT_FORMATS)})"
        )
    baseline: RunResult | None = None
    baseline_error: BaselineError | None = None
    if options.baseline is not None:
        try:
            baseline = toolgrade.resolve_run(options.baseline, db=options.db)
        except BaselineError as exc:
            baseline_error = exc
    if options.save:
        _save(result, options)
    if baseline_error is not None:
        raise baseline_error
    comparison: Comparison | None = None
    if baseline is not None:
        comparison = toolgrade.compare_runs(
            baseline, result, threshold=options.threshold, alpha=options.alpha
        )
    metrics = toolgrade.compute_metrics(result, seed=result.seed or 0)
    if not options.quiet:
        typer.echo(
            toolgrade.render_report(result, "text", comparison=comparison, metrics=metrics),
            nl=False,
        )
        typer.echo(f"\nSummary: {run_summary_line(result.results)}")
    warning = timeout_warning(result)
    if warning is not None:
        # Even with --quiet: the accuracy above measures only the cases that finished.
        typer.echo(f"warning: {warning}", err=True)
    for fmt in REPORT_FORMATS:
        if fmt in options.reports:
            path = toolgrade.write_report(
                result, fmt, options.reports[fmt], comparison=comparison, metrics=metrics
            )
            if not options.quiet:
                typer.echo(f"wrote {fmt} report to {path}", err=True)
    regression = comparison is not None and comparison.is_regression
    return 1 if options.fail_on_regression and regression else 0


def _save(result: RunResult, options: PostRunOptions) -> None:
    """Save to the history; a failure is reported but loses nothing (the run folder stays)."""
    try:
        toolgrade.save_run(result, db=options.db)
    except StoreError as exc:
        typer.echo(f"warning: the run was not saved to the history: {exc}", err=True)
