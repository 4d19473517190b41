"""Suites: tools, cases, conversations, loading, validation, selection, built-in suites."""

from toolgrade.suite._builtin import builtin_suite_names
from toolgrade.suite._case import Case, Conversation
from toolgrade.suite._end_checks import (
    CHECK_NAMES,
    CallPattern,
    CheckName,
    Checks,
    FinalStateCheck,
    TrajectoryCheck,
    TrajectoryMode,
)
from toolgrade.suite._environments import (
    Environment,
    PythonEnvironment,
    RuleWhen,
    ScriptedEnvironment,
    ScriptedRule,
)
from toolgrade.suite._expect import expected_outcome
from toolgrade.suite._io import load_suite, parse_suite
from toolgrade.suite._models import ChatMessage, Difficulty, Order, Rubric, ToolSpec
from toolgrade.suite._outcome import OUTCOMES, Outcome
from toolgrade.suite._schema import suite_schema, suite_schema_text
from toolgrade.suite._select import Selection, select_cases
from toolgrade.suite._shard import decode_positions, parse_shard, position_count, shard_of
from toolgrade.suite._states import merge_patch
from toolgrade.suite._suite_model import Suite, SuiteDefaults
from toolgrade.suite._turn import DEFAULT_MAX_STEPS, FailSpec, ReferenceTurn, Turn

__all__ = [
    "CHECK_NAMES",
    "CallPattern",
    "Case",
    "ChatMessage",
    "CheckName",
    "Checks",
    "Conversation",
    "DEFAULT_MAX_STEPS",
    "Difficulty",
    "Environment",
    "FailSpec",
    "FinalStateCheck",
    "OUTCOMES",
    "Order",
    "Outcome",
    "PythonEnvironment",
    "ReferenceTurn",
    "Rubric",
    "RuleWhen",
    "ScriptedEnvironment",
    "ScriptedRule",
    "Selection",
    "Suite",
    "SuiteDefaults",
    "ToolSpec",
    "TrajectoryCheck",
    "TrajectoryMode",
    "Turn",
    "builtin_suite_names",
    "decode_positions",
    "expected_outcome",
    "load_suite",
    "merge_patch",
    "parse_shard",
    "parse_suite",
    "position_count",
    "select_cases",
    "shard_of",
    "suite_schema",
    "suite_schema_text",
]
