"""Reports on a run: text, JSON, Markdown, HTML, JUnit XML and Prometheus."""

from toolgrade.report._charts import Chart, bar_chart
from toolgrade.report._describe import describe_failure
from toolgrade.report._json_report import REPORT_SCHEMA_VERSION, report_schema
from toolgrade.report._plain import clip, pct, terminal_safe
from toolgrade.report._render import (
    REPORT_FORMATS,
    ReportFormat,
    ReportWriter,
    register_report,
    render_report,
    report_formats,
    write_report,
)
from toolgrade.report._serving import as_served_line
from toolgrade.report._view import FAILURES_SHOWN, ReportInput

__all__ = [
    "Chart",
    "FAILURES_SHOWN",
    "REPORT_FORMATS",
    "REPORT_SCHEMA_VERSION",
    "ReportFormat",
    "ReportInput",
    "ReportWriter",
    "as_served_line",
    "bar_chart",
    "clip",
    "describe_failure",
    "pct",
    "register_report",
    "render_report",
    "report_formats",
    "report_schema",
    "terminal_safe",
    "write_report",
]
