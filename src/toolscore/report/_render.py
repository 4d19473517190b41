"""`render_report` and `write_report`: one entry point for every report format."""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Literal, get_args

from toolscore.compare import Comparison
from toolscore.errors import ConfigError
from toolscore.metrics import RunMetrics
from toolscore.report._html import render_html
from toolscore.report._json_report import render_json
from toolscore.report._junit import render_junit
from toolscore.report._markdown import render_markdown
from toolscore.report._prometheus import render_prometheus
from toolscore.report._text import render_text
from toolscore.report._view import ReportInput, build_input
from toolscore.results import RunResult

__all__ = ["REPORT_FORMATS", "ReportFormat", "render_report", "write_report"]

logger = logging.getLogger(__name__)

ReportFormat = Literal["text", "json", "markdown", "html", "junit", "prometheus"]
"""The report formats."""

REPORT_FORMATS: tuple[ReportFormat, ...] = get_args(ReportFormat)
"""Every report format, in the order the command line lists them."""

_WRITERS: dict[str, Callable[[ReportInput], str]] = {
    "text": render_text,
    "json": render_json,
    "markdown": render_markdown,
    "html": render_html,
    "junit": render_junit,
    "prometheus": render_prometheus,
}


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
    writer = _WRITERS.get(format)
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

    The file is written beside its destination and renamed into place, so that a
    reader (node_exporter's textfile collector, a CI dashboard) never sees half a file.

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
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            # mkstemp makes the file private (0600); a report gets the usual permissions.
            Path(tmp).chmod(0o666 & ~_umask())
            Path(tmp).replace(target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ConfigError(
            f"cannot write the {format} report: {exc.strerror or exc}", path=str(target)
        ) from None
    logger.info("wrote %s report to %s", format, target)
    return target


def _umask() -> int:
    """The process's umask (reading it means setting it; restored at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
