"""The one view of a run that every format renders: its metrics and one view per case.

A case view (`CaseView`) is the same for every case: its display name, its one-line
reason, its result, and its serving verdict (how its answer reached the client). A
conversation adds its sections (`CaseView.conversation`: turns, steps, checks, state),
which each format lays out after what every case has.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from toolgrade.compare import Comparison
from toolgrade.metrics import (
    Detectable,
    RunMetrics,
    compute_metrics,
    detectable_change,
    run_is_native,
)
from toolgrade.report._describe import describe_failure
from toolgrade.report._plain import percentiles
from toolgrade.report._sections import ConversationView
from toolgrade.results import CaseResult, RunResult, Status
from toolgrade.serving import ServingClass, ServingVerdict, serving_verdict

__all__ = [
    "CUT_OFF",
    "FAILURES_SHOWN",
    "CaseView",
    "ReportInput",
    "build_input",
]

FAILURES_SHOWN = 50
"""Failures (and, apart, timeouts and errors) the text report details by default; the
rest are counted by status. The HTML and JSON reports list every one."""
CUT_OFF = "answer cut off at the token limit"
"""The mark of a case whose answer the server stopped at the token limit."""


@dataclass(frozen=True)
class CaseView:
    """One case as every report shows it: name, reason and result, worked out once.

    A conversation adds its sections (`conversation`); a single case has none.
    """

    result: CaseResult
    name: str
    """The case id, with ` repeat k` appended (k from 0) when the run repeats cases."""
    reason: str
    """`describe_failure(result)`."""
    native: bool = True
    """Whether the run sent its tools in the request (`run_is_native`): in prompt mode
    calls are read from the text by design."""

    @cached_property
    def serving(self) -> ServingVerdict:
        """How the case's answer reached the client (`serving_verdict`), worked out once."""
        return serving_verdict(self.result, native=self.native)

    @property
    def serving_fault(self) -> ServingVerdict | None:
        """The serving verdict to show beside the case: a fault its status does not tell.

        None when the class is clean, for `request_failed` on a timeout or an error (the
        status already says that no answer came), and for `truncated` on an answer
        already marked as cut off (`headline`).
        """
        verdict = self.serving
        told = (verdict.kind is ServingClass.REQUEST_FAILED and not self.result.status.scored) or (
            verdict.kind is ServingClass.TRUNCATED and self.cut_off
        )
        return None if verdict.kind.clean or told else verdict

    @cached_property
    def conversation(self) -> ConversationView | None:
        """The conversation's sections: turns, steps, checks, state; None for a single case."""
        record = self.result.conversation
        return None if record is None else ConversationView.of(record)

    @property
    def cut_off(self) -> bool:
        """Whether the server stopped the answer at the token limit (`finish_reason` length)."""
        return self.result.finish_reason == "length"

    @property
    def headline(self) -> str:
        """The reason, marked `(answer cut off at the token limit)` when it was."""
        return f"{self.reason} ({CUT_OFF})" if self.cut_off else self.reason


@dataclass(frozen=True, slots=True)
class ReportInput:
    """Everything a writer needs, computed once per report."""

    run: RunResult
    metrics: RunMetrics
    comparison: Comparison | None
    cases: tuple[CaseView, ...]
    """Every result of the run, in run order."""
    max_failures: int | None = FAILURES_SHOWN
    """Failures the text report details (the same again for timeouts and errors); None:
    every one."""
    detectable: Detectable | None = None
    """The smallest change a comparison of this run detects (None: nothing scored)."""

    @property
    def failures(self) -> tuple[CaseView, ...]:
        """Scored cases that did not pass."""
        return tuple(c for c in self.cases if _failed(c.result))

    @property
    def unscored(self) -> tuple[CaseView, ...]:
        """Timeouts and errors: shown, never scored."""
        return tuple(c for c in self.cases if not c.result.status.scored)

    @property
    def cut_off(self) -> int:
        """How many answers the server stopped at the token limit."""
        return sum(c.cut_off for c in self.cases)

    @property
    def ttft_ms(self) -> tuple[float, float] | None:
        """Median and 95th percentile time to first token; None when nothing was streamed."""
        values = [r.ttft_ms for r in self.run.results if r.ttft_ms is not None]
        found = percentiles(values, 50, 95)
        return None if found is None else (found[0], found[1])


def build_input(
    run: RunResult,
    *,
    metrics: RunMetrics | None,
    comparison: Comparison | None,
    max_failures: int | None = FAILURES_SHOWN,
) -> ReportInput:
    """Compute the metrics (unless given) and every case's display name and reason.

    Each case's serving verdict is worked out on first use, once (`CaseView.serving`).
    """
    repeated = run.repeat > 1 or any(r.repeat for r in run.results)
    native = run_is_native(run.backend)
    cases = tuple(
        CaseView(
            result=r,
            name=f"{r.case_id} repeat {r.repeat}" if repeated else r.case_id,
            reason=describe_failure(r),
            native=native,
        )
        for r in run.results
    )
    figures = metrics if metrics is not None else compute_metrics(run)
    scored = len({r.case_id for r in run.results if r.status.scored})
    return ReportInput(
        run=run,
        metrics=figures,
        comparison=comparison,
        cases=cases,
        max_failures=max_failures,
        detectable=detectable_change(scored, figures.noise),
    )


def _failed(result: CaseResult) -> bool:
    return result.status.scored and result.status is not Status.CORRECT
