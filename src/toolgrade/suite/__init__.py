"""Suites: tools, cases, loading, validation, selection and the built-in suites."""

from toolgrade.suite._builtin import builtin_suite_names
from toolgrade.suite._io import load_suite, parse_suite
from toolgrade.suite._models import (
    Case,
    ChatMessage,
    Difficulty,
    Order,
    Rubric,
    Suite,
    SuiteDefaults,
    ToolSpec,
)
from toolgrade.suite._schema import suite_schema, suite_schema_text
from toolgrade.suite._select import Selection, select_cases

__all__ = [
    "Case",
    "ChatMessage",
    "Difficulty",
    "Order",
    "Rubric",
    "Selection",
    "Suite",
    "SuiteDefaults",
    "ToolSpec",
    "builtin_suite_names",
    "load_suite",
    "parse_suite",
    "select_cases",
    "suite_schema",
    "suite_schema_text",
]
