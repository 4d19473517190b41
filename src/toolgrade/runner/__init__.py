"""The runner: send a suite's cases to a model, judge the answers, keep every result."""

from toolgrade._health import run_summary_line, timeout_warning
from toolgrade.runner._api import aresume_run, arun_suite, resume_run, run_suite
from toolgrade.runner._option_specs import OPTION_SPECS, OptionSpec, RunOptionSpecs
from toolgrade.runner._options import RunOptions
from toolgrade.runner._progress import Progress, ProgressKind, make_progress
from toolgrade.runner._rescore import rescore_run
from toolgrade.runner._signals import run_main, stop_on_signals

__all__ = [
    "OPTION_SPECS",
    "OptionSpec",
    "Progress",
    "ProgressKind",
    "RunOptionSpecs",
    "RunOptions",
    "aresume_run",
    "arun_suite",
    "make_progress",
    "rescore_run",
    "resume_run",
    "run_main",
    "run_suite",
    "run_summary_line",
    "stop_on_signals",
    "timeout_warning",
]
