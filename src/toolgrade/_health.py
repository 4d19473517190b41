"""Is a run telling the truth about the model? Too many timeouts say it is not.

Used by the runner (a warning while it runs), the CLI (the summary line) and the text
report (the same warning), so it sits beside `results`, below all three.

Timeouts and errors do not count towards accuracy, so a run where half the cases timed
out still prints a clean-looking percentage over the other half. When more than a few
cases time out, the run says so while it runs and again at the end, with what to do.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolgrade.results import CaseResult, RunResult, Status

__all__ = [
    "TIMEOUT_WARN_MIN",
    "TIMEOUT_WARN_SHARE",
    "run_summary_line",
    "timeout_advice",
    "timeout_warning",
    "too_many_timeouts",
]

TIMEOUT_WARN_MIN = 3
"""At least this many timeouts before warning: one or two slow cases are the model's own."""
TIMEOUT_WARN_SHARE = 0.10
"""...and at least this share of the finished cases (3 of 1,000 is noise)."""


def too_many_timeouts(timeouts: int, finished: int) -> bool:
    """True when `timeouts` of `finished` cases deserve a warning (>= 3 and >= 10%).

    Examples:
        >>> too_many_timeouts(3, 4), too_many_timeouts(3, 40), too_many_timeouts(2, 2)
        (True, False, False)
    """
    return timeouts >= TIMEOUT_WARN_MIN and timeouts >= TIMEOUT_WARN_SHARE * finished


def timeout_advice(
    timeouts: int, finished: int, *, timeout: float | None, concurrency: int | None
) -> str:
    """The warning: how many timed out, under which settings, and what to change."""
    settings = []
    if timeout is not None:
        settings.append(f"--timeout {timeout:g}")
    if concurrency is not None:
        settings.append(f"--concurrency {concurrency}")
    under = f" with {', '.join(settings)}" if settings else ""
    return (
        f"{timeouts} of {finished} cases timed out{under}; timeouts do not count towards"
        " accuracy, so it measures only the cases that finished. Raise --timeout, lower"
        " --concurrency (a server that answers one request at a time makes the others"
        " wait), or cap the answer length with --max-tokens."
    )


def timeout_warning(run: RunResult) -> str | None:
    """The end-of-run warning when too many cases timed out, else None."""
    timeouts = sum(r.status is Status.TIMEOUT for r in run.results)
    if not too_many_timeouts(timeouts, len(run.results)):
        return None
    timeout = run.backend.get("timeout")
    concurrency = run.backend.get("concurrency")
    return timeout_advice(
        timeouts,
        len(run.results),
        timeout=float(timeout) if isinstance(timeout, int | float) else None,
        concurrency=concurrency if isinstance(concurrency, int) else None,
    )


def run_summary_line(results: Iterable[CaseResult]) -> str:
    """`75.0% (3/4) - 4 timed out, 0 errors`: accuracy over the scored cases, then the rest.

    Examples:
        >>> run_summary_line([])
        'n/a (0/0) - 0 timed out, 0 errors'
    """
    scored = correct = timeouts = errors = 0
    for r in results:
        if r.status.scored:
            scored += 1
            correct += r.status is Status.CORRECT
        elif r.status is Status.TIMEOUT:
            timeouts += 1
        else:
            errors += 1
    rate = f"{correct / scored:.1%}" if scored else "n/a"
    plural = "error" if errors == 1 else "errors"
    return f"{rate} ({correct}/{scored}) - {timeouts} timed out, {errors} {plural}"
