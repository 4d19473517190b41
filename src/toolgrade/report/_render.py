"""`render_report` and `write_report`: one entry point for every report format."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Literal, get_args

from toolgrade._core.files import atomic_write_text
from toolgrade._core.registry import Registry
from toolgrade.compare import Comparison
from toolgrade.errors import ConfigError, describe_os_error
from toolgrade.metrics import RunMetrics
from toolgrade.report._view import FAILURES_SHOWN, ReportInput, build_input
from toolgrade.results import RunResult

__all__ = [
    "REPORTS",
    "REPORT_FORMATS",
    "ReportFormat",
    "ReportWriter",
    "register_report",
    "render_report",
    "report_formats",
    "write_report",
]

logger = logging.getLogger(__name__)

ReportFormat = Literal["text", "json", "markdown", "html", "junit", "prometheus"]
"""The report formats."""

REPORT_FORMATS: tuple[ReportFormat, ...] = get_args(ReportFormat)
"""Every report format, in the order the command line lists them."""

ReportWriter = Callable[[ReportInput], str]
"""Renders a report from the run's report input (`toolgrade.report._view.ReportInput`)."""

REPORTS: Registry[ReportWriter] = Registry("report format", "toolgrade.reports")
"""Format -> writer. The built-ins are lazy `module:function` entries, so jinja2 and
prometheus-client load only for the formats that need them, not with every
`import toolgrade`; plug-ins come from the `toolgrade.reports` entry-point group."""
REPORTS.register("text", "toolgrade.report._text:render_text")
REPORTS.register("json", "toolgrade.report._json_report:render_json")
REPORTS.register("markdown", "toolgrade.report._markdown:render_markdown")
REPORTS.register("html", "toolgrade.report._html:render_html")
REPORTS.register("junit", "toolgrade.report._junit:render_junit")
REPORTS.register("prometheus", "toolgrade.report._prometheus:render_prometheus")


def register_report(name: str, writer: ReportWriter | str) -> None:
    """Make `render_report(run, name)` (and `--format name`) use `writer`.

    Args:
        name: the format name.
        writer: a function from `ReportInput` to text, or its lazy `"module:function"`.

    Raises:
        ConfigError: the name is empty or one of the built-in formats.
    """
    if not name or name in REPORT_FORMATS:
        raise ConfigError(f"cannot register a report format named {name!r}")
    REPORTS.register(name, writer)


def report_formats() -> list[str]:
    """Every report format: the built-ins in their order, then registered and plug-in ones."""
    return REPORTS.names()


def _writer(format: str) -> ReportWriter | None:
    return REPORTS.find(format)


def render_report(
    run: RunResult,
    format: ReportFormat | str,
    *,
    comparison: Comparison | None = None,
    metrics: RunMetrics | None = None,
    max_failures: int | None = FAILURES_SHOWN,
) -> str:
    """Render a run as a report.

    Args:
        run: the run to report on.
        format: `text`, `json`, `markdown`, `html`, `junit`, `prometheus`, or a
            registered or plug-in format (`report_formats()`).
        comparison: a comparison with a baseline (`compare_runs(baseline, run)`), shown
            as the report's "vs Baseline" part.
        metrics: the run's metrics when already computed (`compute_metrics(run)`);
            computed here otherwise.
        max_failures: the failures the text report details (50 by default; as many
            again for timeouts and errors), the rest counted by status; None details
            every one. The other formats have their own bounds (the HTML and JSON
            reports list every case).

    Returns:
        The report's text (the HTML report is one self-contained page).

    Raises:
        ConfigError: unknown format, or a negative `max_failures`.

    Examples:
        >>> text = render_report(run, "text")  # doctest: +SKIP
        >>> text.splitlines()[0]  # doctest: +SKIP
        'Tool-Call Correctness Report'
    """
    writer = _writer(format)
    if writer is None:
        raise ConfigError(
            f"unknown report format {format!r} (choose from {', '.join(report_formats())});"
            " a plug-in adds one through the 'toolgrade.reports' entry-point group, or call"
            " register_report (see docs/extending.md)"
        )
    if max_failures is not None and max_failures < 0:
        raise ConfigError(f"max_failures must be 0 or more (None: all), got {max_failures}")
    return writer(
        build_input(run, metrics=metrics, comparison=comparison, max_failures=max_failures)
    )


def write_report(
    run: RunResult,
    format: ReportFormat | str,
    path: str | Path,
    *,
    comparison: Comparison | None = None,
    metrics: RunMetrics | None = None,
    max_failures: int | None = FAILURES_SHOWN,
) -> Path:
    """Render a run as a report and write it to a file (UTF-8), replacing it atomically.

    The file is written beside its destination, synced to disk and renamed into place,
    so that a reader (node_exporter's textfile collector, a CI dashboard) never sees half
    a file, and a full disk leaves the old file (or none) rather than a truncated one.

    Args:
        run: the run to report on.
        format: `text`, `json`, `markdown`, `html`, `junit` or `prometheus`.
        path: the file to write; missing parent folders are created.
        comparison: as for `render_report`.
        metrics: as for `render_report`.
        max_failures: as for `render_report`.

    Returns:
        The path written.

    Raises:
        ConfigError: unknown format, or the file cannot be written.
    """
    text = render_report(
        run, format, comparison=comparison, metrics=metrics, max_failures=max_failures
    )
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, text)
    except OSError as exc:
        raise ConfigError(
            f"cannot write the {format} report: {describe_os_error(exc)}", path=str(target)
        ) from exc
    logger.info("wrote %s report to %s", format, target)
    return target
