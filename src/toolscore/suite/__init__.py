"""Suites: tools, cases, loading, validation, selection and the built-in suites."""

from toolscore.suite._builtin import builtin_suite_names
from toolscore.suite._io import load_suite, parse_suite
from toolscore.suite._models import (
    Case,
    ChatMessage,
    Difficulty,
    Order,
    Rubric,
    Suite,
    SuiteDefaults,
    ToolSpec,
)
from toolscore.suite._schema import suite_schema, suite_schema_text
from toolscore.suite._select import Selection, select_cases

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
