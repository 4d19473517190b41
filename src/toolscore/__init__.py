"""toolscore: measure how correctly a language model or an agent calls tools.

Everything public is importable from here; every other module is an implementation
detail whose layout may change.
"""

from toolscore._version import __version__
from toolscore.calls import AccuracyScore, CallPair, ToolCall, score_calls
from toolscore.errors import (
    BackendError,
    BackendHTTPError,
    BackendTimeout,
    BackendUnreachable,
    BaselineError,
    ConfigError,
    InputError,
    StoreError,
    SuiteError,
    ToolscoreError,
)
from toolscore.extract import Extraction, ExtractionError
from toolscore.match import Mismatch
from toolscore.results import CaseResult, PairResult, RunResult, Status
from toolscore.suite import Case, ChatMessage, Suite, SuiteDefaults, ToolSpec

__all__ = [
    "AccuracyScore",
    "BackendError",
    "BackendHTTPError",
    "BackendTimeout",
    "BackendUnreachable",
    "BaselineError",
    "CallPair",
    "Case",
    "CaseResult",
    "ChatMessage",
    "ConfigError",
    "Extraction",
    "ExtractionError",
    "InputError",
    "Mismatch",
    "PairResult",
    "RunResult",
    "Status",
    "StoreError",
    "Suite",
    "SuiteDefaults",
    "SuiteError",
    "ToolCall",
    "ToolSpec",
    "ToolscoreError",
    "__version__",
    "score_calls",
]
