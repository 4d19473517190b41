"""Reports on a run: text, JSON, Markdown, HTML, JUnit XML and Prometheus."""

from toolgrade.report._describe import describe_failure
from toolgrade.report._json_report import REPORT_SCHEMA_VERSION, report_schema
from toolgrade.report._render import REPORT_FORMATS, ReportFormat, render_report, write_report

__all__ = [
    "REPORT_FORMATS",
    "REPORT_SCHEMA_VERSION",
    "ReportFormat",
    "describe_failure",
    "render_report",
    "report_schema",
    "write_report",
]
