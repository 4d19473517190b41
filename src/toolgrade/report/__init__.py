"""Reports on a run: text, JSON, Markdown, HTML, JUnit XML and Prometheus."""

from toolgrade.report._describe import describe_failure
from toolgrade.report._json_report import REPORT_SCHEMA_VERSION, report_schema
from toolgrade.report._render import (
    REPORT_FORMATS,
    ReportFormat,
    ReportWriter,
    register_report,
    render_report,
    report_formats,
    write_report,
)
from toolgrade.report._view import ReportInput

__all__ = [
    "REPORT_FORMATS",
    "REPORT_SCHEMA_VERSION",
    "ReportFormat",
    "ReportInput",
    "ReportWriter",
    "describe_failure",
    "register_report",
    "render_report",
    "report_formats",
    "report_schema",
    "write_report",
]
