"""toolgrade: measure how correctly a language model or an agent calls tools.

Everything public is importable from here; every other module is an implementation
detail whose layout may change.
"""

from toolgrade._version import __version__
from toolgrade.agent._check import assert_tool_calls
from toolgrade.agent._tools import call_tool, tool_definitions
from toolgrade.agent._trajectory import assert_trajectory
from toolgrade.backends import (
    DEFAULT_MAX_TOKENS,
    Backend,
    BackendSettings,
    Diagnosis,
    create_backend,
    diagnose_backend,
    register_backend,
)
from toolgrade.bfcl import bfcl_categories, convert_bfcl_results, import_bfcl
from toolgrade.calls import AccuracyScore, CallPair, ToolCall, score_calls
from toolgrade.compare import (
    Comparison,
    Delta,
    Flip,
    MultiComparison,
    compare_many,
    compare_runs,
)
from toolgrade.conversation import judge_conversation
from toolgrade.errors import (
    BackendError,
    BackendHTTPError,
    BackendTimeout,
    BackendUnreachable,
    BaselineError,
    ConfigError,
    FileSystemError,
    InputError,
    RunLockedError,
    SaveError,
    StoreError,
    SuiteError,
    ToolgradeError,
)
from toolgrade.extract import Extraction, ExtractionProblem, extract_calls
from toolgrade.extract._deprecated import DEPRECATED as _DEPRECATED
from toolgrade.extract._deprecated import deprecated_attribute as _deprecated_attribute
from toolgrade.judge import judge
from toolgrade.match import Mismatch
from toolgrade.metrics import Breakdown, Rate, RunMetrics, compute_metrics
from toolgrade.report import describe_failure, render_report, write_report
from toolgrade.results import CaseResult, ConversationRecord, PairResult, RunResult, Status
from toolgrade.runner import (
    RunOptions,
    aresume_run,
    arun_suite,
    rescore_run,
    resume_run,
    run_suite,
)
from toolgrade.stats import (
    Interval,
    bootstrap_interval,
    bootstrap_mean_interval,
    mcnemar_exact,
    wilson_interval,
)
from toolgrade.store import data_dir, list_runs, load_run_folder, resolve_run, save_run, tag_run
from toolgrade.suite import (
    Case,
    ChatMessage,
    Conversation,
    Selection,
    Suite,
    SuiteDefaults,
    ToolSpec,
    Turn,
    builtin_suite_names,
    load_suite,
    parse_suite,
    select_cases,
    suite_schema,
)

__all__ = [
    "AccuracyScore",
    "Backend",
    "BackendError",
    "BackendHTTPError",
    "BackendSettings",
    "BackendTimeout",
    "BackendUnreachable",
    "BaselineError",
    "Breakdown",
    "CallPair",
    "Case",
    "CaseResult",
    "ChatMessage",
    "Comparison",
    "ConfigError",
    "Conversation",
    "ConversationRecord",
    "DEFAULT_MAX_TOKENS",
    "Delta",
    "Diagnosis",
    "Extraction",
    "ExtractionError",
    "ExtractionProblem",
    "FileSystemError",
    "Flip",
    "InputError",
    "Interval",
    "Mismatch",
    "MultiComparison",
    "PairResult",
    "Rate",
    "RunLockedError",
    "RunMetrics",
    "RunOptions",
    "RunResult",
    "SaveError",
    "Selection",
    "Status",
    "StoreError",
    "Suite",
    "SuiteDefaults",
    "SuiteError",
    "ToolCall",
    "ToolSpec",
    "ToolgradeError",
    "Turn",
    "__version__",
    "aresume_run",
    "arun_suite",
    "assert_tool_calls",
    "assert_trajectory",
    "bfcl_categories",
    "bootstrap_interval",
    "bootstrap_mean_interval",
    "builtin_suite_names",
    "call_tool",
    "compare_many",
    "compare_runs",
    "compute_metrics",
    "convert_bfcl_results",
    "create_backend",
    "data_dir",
    "describe_failure",
    "diagnose_backend",
    "extract_calls",
    "import_bfcl",
    "judge",
    "judge_conversation",
    "list_runs",
    "load_run_folder",
    "load_suite",
    "mcnemar_exact",
    "parse_suite",
    "register_backend",
    "render_report",
    "rescore_run",
    "resolve_run",
    "resume_run",
    "run_suite",
    "save_run",
    "score_calls",
    "select_cases",
    "suite_schema",
    "tag_run",
    "tool_definitions",
    "wilson_interval",
    "write_report",
]


def __getattr__(name: str) -> object:
    # Deprecated names (listed in `_DEPRECATED`, with the version that removes them):
    # `ExtractionError` became `ExtractionProblem` and goes away in 0.3.
    return _deprecated_attribute(__name__, name, _DEPRECATED)
