"""The runner: send a suite's cases to a model, judge the answers, keep every result."""

from toolscore.runner._api import aresume_run, arun_suite, resume_run, run_suite
from toolscore.runner._options import RunOptions
from toolscore.runner._progress import Progress, ProgressKind, make_progress
from toolscore.runner._rescore import rescore_run

__all__ = [
    "Progress",
    "ProgressKind",
    "RunOptions",
    "aresume_run",
    "arun_suite",
    "make_progress",
    "rescore_run",
    "resume_run",
    "run_suite",
]
