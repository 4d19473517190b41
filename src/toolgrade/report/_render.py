"""`render_report` and `write_report`: one entry point for every report format."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Literal, get_args

from toolgrade._files import atomic_write_text
from toolgrade.compare import Comparison
from toolgrade.errors import ConfigError, describe_os_error
from toolgrade.metrics import RunMetrics
from toolgrade.report._view import ReportInput, build_input
from toolgrade.results import RunResult

__all__ = ["REPORT_FORMATS", "ReportFormat", "render_report", "write_report"]

logger = logging.getLogger(__name__)

ReportFormat = Literal["text", "json", "markdown", "html", "junit", "prometheus"]
"""The report formats."""

REPORT_FORMATS: tuple[ReportFormat, ...] = get_args(ReportFormat)
"""Every report format, in the order the command line lists them."""

_WRITERS: dict[str, str] = {
    "text": "_text:render_text",
    "json": "_json_report:render_json",
    "markdown": "_markdown:render_markdown",
    "html": "_html:render_html",
    "junit": "_junit:render_junit",
    "prometheus": "_prometheus:render_prometheus",
}
"""Format -> `module:function`, imported on first use: jinja2 and prometheus-client load
only for the formats that need them, not with every `import toolgrade`."""


def _writer(format: str) -> Callable[[ReportInput], str] | None:
    target = _WRITERS.get(format)
    if target is None:
        return None
    module, name = target.split(":")
    writer: Callable[[ReportInput], str] = getattr(
        importlib.import_module(f"toolgrade.report.{module}"), name
    )
    return writer


def render_report(
    run: RunResult,
    format: ReportFormat,
    *,
    comparison: Comparison | None = None,
    metrics: RunMetrics | None = None,
) -> str:
    """Render a run as a report.

    Args:
        run: the run to report on.
        format: `text`, `json`, `markdown`, `html`, `junit` or `prometheus`.
        comparison: a comparison with a baseline (`compare_runs(baseline, run)`), shown
            as the report's "vs Baseline" part.
        metrics: the run's metrics when already computed (`compute_metrics(run)`);
            computed here otherwise.

    Returns:
        The report's text (the HTML report is one self-contained page).

    Raises:
        ConfigError: unknown format.

    Examples:
        >>> text = render_report(run, "text")  # doctest: +SKIP
        >>> text.splitlines()[0]  # doctest: +SKIP
        'Tool-Call Correctness Report'
    """
    writer = _writer(format)
    if writer is None:
        raise ConfigError(
            f"unknown report format {format!r} (choose from {', '.join(REPORT_FORMATS)})"
        )
    return writer(build_input(run, metrics=metrics, comparison=comparison))


def write_report(
    run: RunResult,
    format: ReportFormat,
    path: str | Path,
    *,
    comparison: Comparison | None = None,
    metrics: RunMetrics | None = None,
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

    Returns:
        The path written.

    Raises:
        ConfigError: unknown format, or the file cannot be written.
    """
    text = render_report(run, format, comparison=comparison, metrics=metrics)
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
