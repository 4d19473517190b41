"""toolgrade: measure how correctly a language model or an agent calls tools.

Everything public is importable from here; every other module is an implementation
detail whose layout may change.

Names are imported on first use (a module `__getattr__`, as PEP 562 describes), so that
`import toolgrade` and `toolgrade --version` stay instant: `toolgrade.score_calls`
loads what scoring needs and nothing of the HTTP client, the runner or the reports.
"""

import typing as _typing
from importlib import import_module as _import_module

from toolgrade._version import __version__

if _typing.TYPE_CHECKING:
    from toolgrade.agent import assert_tool_calls, assert_trajectory, call_tool, tool_definitions
    from toolgrade.backends import (
        DEFAULT_MAX_TOKENS,
        Backend,
        BackendSettings,
        Diagnosis,
        create_backend,
        diagnose_backend,
        register_backend,
    )
    from toolgrade.bfcl import (
        bfcl_categories,
        convert_bfcl_results,
        import_bfcl,
        import_when2call,
    )
    from toolgrade.calls import AccuracyScore, CallPair, ToolCall, score_calls
    from toolgrade.compare import (
        Comparison,
        Delta,
        Flip,
        MultiComparison,
        compare_many,
        compare_runs,
    )
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
    from toolgrade.judging import judge, judge_conversation
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
    from toolgrade.store import (
        data_dir,
        list_runs,
        load_run_folder,
        merge_runs,
        resolve_run,
        save_run,
        tag_run,
    )
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
        expected_outcome,
        load_suite,
        parse_suite,
        select_cases,
        suite_schema,
    )
    from toolgrade.sweep import (
        Leaderboard,
        SweepConfig,
        SweepResult,
        arun_sweep,
        leaderboard,
        load_sweep,
        run_sweep,
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
    "Leaderboard",
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
    "SweepConfig",
    "SweepResult",
    "ToolCall",
    "ToolSpec",
    "ToolgradeError",
    "Turn",
    "__version__",
    "aresume_run",
    "arun_suite",
    "arun_sweep",
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
    "expected_outcome",
    "extract_calls",
    "import_bfcl",
    "import_when2call",
    "judge",
    "judge_conversation",
    "leaderboard",
    "list_runs",
    "load_run_folder",
    "load_suite",
    "load_sweep",
    "mcnemar_exact",
    "merge_runs",
    "parse_suite",
    "register_backend",
    "render_report",
    "rescore_run",
    "resolve_run",
    "resume_run",
    "run_suite",
    "run_sweep",
    "save_run",
    "score_calls",
    "select_cases",
    "suite_schema",
    "tag_run",
    "tool_definitions",
    "wilson_interval",
    "write_report",
]

_MODULES: dict[str, tuple[str, ...]] = {
    "agent": ("assert_tool_calls", "assert_trajectory", "call_tool", "tool_definitions"),
    "backends": (
        "DEFAULT_MAX_TOKENS",
        "Backend",
        "BackendSettings",
        "Diagnosis",
        "create_backend",
        "diagnose_backend",
        "register_backend",
    ),
    "bfcl": ("bfcl_categories", "convert_bfcl_results", "import_bfcl", "import_when2call"),
    "calls": ("AccuracyScore", "CallPair", "ToolCall", "score_calls"),
    "compare": ("Comparison", "Delta", "Flip", "MultiComparison", "compare_many", "compare_runs"),
    "errors": (
        "BackendError",
        "BackendHTTPError",
        "BackendTimeout",
        "BackendUnreachable",
        "BaselineError",
        "ConfigError",
        "FileSystemError",
        "InputError",
        "RunLockedError",
        "SaveError",
        "StoreError",
        "SuiteError",
        "ToolgradeError",
    ),
    "extract": ("Extraction", "ExtractionProblem", "extract_calls"),
    "judging": ("judge", "judge_conversation"),
    "match": ("Mismatch",),
    "metrics": ("Breakdown", "Rate", "RunMetrics", "compute_metrics"),
    "report": ("describe_failure", "render_report", "write_report"),
    "results": ("CaseResult", "ConversationRecord", "PairResult", "RunResult", "Status"),
    "runner": (
        "RunOptions",
        "aresume_run",
        "arun_suite",
        "rescore_run",
        "resume_run",
        "run_suite",
    ),
    "stats": (
        "Interval",
        "bootstrap_interval",
        "bootstrap_mean_interval",
        "mcnemar_exact",
        "wilson_interval",
    ),
    "store": (
        "data_dir",
        "list_runs",
        "load_run_folder",
        "merge_runs",
        "resolve_run",
        "save_run",
        "tag_run",
    ),
    "suite": (
        "Case",
        "ChatMessage",
        "Conversation",
        "Selection",
        "Suite",
        "SuiteDefaults",
        "ToolSpec",
        "Turn",
        "builtin_suite_names",
        "expected_outcome",
        "load_suite",
        "parse_suite",
        "select_cases",
        "suite_schema",
    ),
    "sweep": (
        "Leaderboard",
        "SweepConfig",
        "SweepResult",
        "arun_sweep",
        "leaderboard",
        "load_sweep",
        "run_sweep",
    ),
}
"""Where each public name lives, by module under `toolgrade` (a test checks this against
the imports above, which are what type checkers read)."""
_HOME = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> object:
    module = _HOME.get(name)
    if module is not None:
        value = getattr(_import_module(f"toolgrade.{module}"), name)
        globals()[name] = value  # the next access is a plain attribute lookup
        return value
    from toolgrade.extract._deprecated import DEPRECATED, deprecated_attribute

    if name == "_DEPRECATED":
        return DEPRECATED
    # Deprecated names (listed in `_DEPRECATED`, with the version that removes them):
    # `ExtractionError` became `ExtractionProblem` and goes away in 0.3.
    return deprecated_attribute(__name__, name, DEPRECATED)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
