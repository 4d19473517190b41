"""Suites: tools, cases, loading, validation, selection and the built-in suites."""

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

__all__ = [
    "Case",
    "ChatMessage",
    "Difficulty",
    "Order",
    "Rubric",
    "Suite",
    "SuiteDefaults",
    "ToolSpec",
]
