"""What `toolgrade run` and `toolgrade evaluate` do once a run has finished.

In order: resolve the baseline (before saving, so that a tag the new run carries can
not make the run its own baseline), save the run to the history, compare, print the
text report and the summary line (and the accuracy as served when it differs from the
model's), warn when too many cases timed out, write the requested report files, say
where the run is, and choose the exit code. A reader of the printed report that goes
away (`| head`) stops the printing only.

A run in which no case could be scored fails, so that CI does not pass on it: exit code
2 when the input was the cause (a responses file that answers none of the cases), 3 when
the model server was (every request failed or timed out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import typer

import toolgrade
from toolgrade.backends import NO_RECORDED_RESPONSE
from toolgrade.cli._process import silence_stdout
from toolgrade.compare import Comparison, gate_verdict
from toolgrade.errors import BaselineError, ConfigError, SaveError
from toolgrade.report import as_served_line, report_formats
from toolgrade.results import RunResult, Status
from toolgrade.runner import run_summary_line, timeout_warning

__all__ = ["PostRunOptions", "after_run"]


@dataclass(frozen=True, slots=True)
class PostRunOptions:
    """Options of `run`/`evaluate` that act on the finished run."""

    baseline: str | None = None
    """Run id, tag or exported file to compare with."""
    fail_on_regression: bool = False
    """Exit 1 when the comparison finds a regression."""
    fail_on_inconclusive: bool = False
    """Exit 3 when the comparison's verdict is `inconclusive` (a regression wins)."""
    as_served: bool = False
    """The gates decide on the verdict as served (`compare.gate_verdict`)."""
    threshold: float = 2.0
    """Accuracy drop, in points, that counts as a regression (with significance)."""
    alpha: float = 0.05
    """Significance level of McNemar's test."""
    reports: dict[str, Path] = field(default_factory=dict)
    """Report format -> output file, e.g. {"junit": Path("out.xml")}."""
    quiet: bool = False
    """Print nothing but errors."""
    db: Path | None = None
    """History database (default `<TOOLGRADE_HOME>/toolgrade.db`)."""
    save: bool = True
    """Save the run to the history database."""


def after_run(result: RunResult, options: PostRunOptions) -> int:
    """Save, compare and report a finished run; return the process exit code.

    Returns:
        2 (input) or 3 (server) when no case could be scored, else 1 when
        `fail_on_regression` is set and the comparison with the baseline finds a
        regression, else 3 when `fail_on_inconclusive` is set and its verdict is
        `inconclusive` (the code `toolgrade compare --fail-on-inconclusive` exits with),
        else 0.

    Raises:
        BaselineError: the baseline cannot be resolved or shares no case (the run is
            saved first).
        ConfigError: an unknown report format, or a report file cannot be written.
        SaveError: the run could not be saved to the history (raised after the report is
            printed; the message gives the command that saves it later).
    """
    known = report_formats()
    unknown = sorted(set(options.reports) - set(known))
    if unknown:
        raise ConfigError(
            f"unknown report format {', '.join(unknown)} (choose from {', '.join(known)})"
        )
    baseline: RunResult | None = None
    baseline_error: BaselineError | None = None
    if options.baseline is not None:
        try:
            baseline = toolgrade.resolve_run(options.baseline, db=options.db)
        except BaselineError as exc:
            baseline_error = exc
    saved = False
    save_error: SaveError | None = None
    if options.save:
        try:
            saved = _save(result, options)
        except SaveError as exc:
            save_error = exc  # raised once the report is out: the results are not lost
    if baseline_error is not None:
        raise baseline_error
    comparison: Comparison | None = None
    if baseline is not None:
        comparison = toolgrade.compare_runs(
            baseline, result, threshold=options.threshold, alpha=options.alpha
        )
    metrics = toolgrade.compute_metrics(result, seed=result.seed or 0)
    if not options.quiet:
        text = toolgrade.render_report(result, "text", comparison=comparison, metrics=metrics)
        try:
            typer.echo(text, nl=False)
            typer.echo(f"\nSummary: {run_summary_line(result.results)}")
            served = as_served_line(metrics)
            if served is not None:  # the accuracy a client reading tool_calls would see
                typer.echo(served)
        except BrokenPipeError:
            # The reader went away (`toolgrade run ... | head`): the run is saved; the
            # report files are still written and the exit code still tells the outcome.
            silence_stdout()
    warning = timeout_warning(result)
    if warning is not None:
        # Even with --quiet: the accuracy above measures only the cases that finished.
        typer.echo(f"warning: {warning}", err=True)
    for fmt in known:
        if fmt in options.reports:
            path = toolgrade.write_report(
                result, fmt, options.reports[fmt], comparison=comparison, metrics=metrics
            )
            if not options.quiet:
                typer.echo(f"wrote {fmt} report to {path}", err=True)
    if save_error is not None:
        raise save_error
    if saved and not options.quiet:
        typer.echo(saved_line(result.run_id, options.db), err=True)
    unmatched = _replay_unmatched(result)
    failure = _nothing_scored(result, unmatched)
    if failure is not None:
        code, message = failure
        typer.echo(f"error: {message}", err=True)
        return code
    if unmatched is not None and unmatched.missing:
        typer.echo(f"warning: {unmatched.partly()}", err=True)
    return _gate(comparison, options)


def _gate(comparison: Comparison | None, options: PostRunOptions) -> int:
    """The exit code of the comparison with the baseline: 1, 3 or 0 (see `after_run`)."""
    if comparison is None:
        return 0
    verdict = gate_verdict(comparison, as_served=options.as_served)
    if options.fail_on_regression and verdict == "regression":
        return 1
    if options.fail_on_inconclusive and verdict == "inconclusive":
        return 3
    return 0


def saved_line(run_id: str, db: Path | None) -> str:
    """Where a saved run is, and the commands that show it.

    Examples:
        >>> saved_line("R1", None)
        'run R1 saved; see it with: toolgrade runs show R1 (or toolgrade report R1)'
    """
    where = f" --db {db}" if db is not None else ""
    return (
        f"run {run_id} saved; see it with: toolgrade runs show {run_id}{where}"
        f" (or toolgrade report {run_id}{where})"
    )


def _save(result: RunResult, options: PostRunOptions) -> bool:
    """Save to the history, waiting out a locked database for a bounded time (30 s).

    Raises:
        SaveError: the run could not be saved. The command fails (exit code 2) with one
            line giving the reason and `toolgrade runs import FOLDER`, which saves the
            run later: its run folder keeps everything.
    """
    toolgrade.save_run(result, db=options.db)
    return True


def _nothing_scored(result: RunResult, unmatched: _Unmatched | None) -> tuple[int, str] | None:
    """The exit code and the message of a run in which no case could be scored."""
    results = result.results
    if not results or any(r.status.scored for r in results):
        return None
    if unmatched is not None:
        if len(unmatched.missing) == len({r.case_id for r in results}):
            return 2, unmatched.nothing()
        first = next(r for r in results if r.error)
        return 2, (
            f"no case could be scored: every recorded response in {unmatched.file} failed;"
            f" the first, {first.case_id}: {first.error}"
        )
    timeouts = sum(r.status is Status.TIMEOUT for r in results)
    first = next((r for r in results if r.status is Status.ERROR), results[0])
    advice = f"check the server with: toolgrade doctor --model {result.model}"
    if timeouts == len(results):
        advice = f"raise --timeout, or {advice}"
    return 3, (
        f"no case could be scored: all {len(results)} failed ({len(results) - timeouts} errors,"
        f" {timeouts} timed out); the first, {first.case_id}: {first.error}; {advice}"
    )


@dataclass(frozen=True, slots=True)
class _Unmatched:
    """How a responses file and the run's cases line up."""

    file: str
    """The responses file."""
    lines: int
    """Its non-blank lines."""
    recorded: int
    """How many distinct case ids the file holds."""
    sample: tuple[str, ...]
    """Its first case ids, in file order."""
    cases: tuple[str, ...]
    """The distinct case ids of the run, in order."""
    missing: tuple[str, ...]
    """The run's cases the file does not answer."""

    def nothing(self) -> str:
        if not self.recorded:
            return (
                f"no case could be scored: {self.file} has no recorded response"
                f" ({self.lines} lines with a case id)"
            )
        return (
            f"no case could be scored: none of the {len(self.cases)} selected cases has a"
            f" response in {self.file} ({self.lines} lines, {self.recorded} case ids:"
            f" {_sample(self.sample, total=self.recorded)}; the suite's: {_sample(self.cases)});"
            " are these the responses to another suite?"
        )

    def partly(self) -> str:
        return (
            f"{len(self.missing)} of {len(self.cases)} cases have no recorded response in"
            f" {self.file} (e.g. {_sample(self.missing)}); they are errors"
        )


def _replay_unmatched(result: RunResult) -> _Unmatched | None:
    """For a run of recorded responses: which of its cases the file answers (else None).

    The replay backend recorded what the file holds in the run's identity, so the file
    is not read again.
    """
    file = result.backend.get("file")
    lines, count, sample = (result.server.get(k) for k in _RECORDED)
    if not result.model.startswith("replay/") or not isinstance(file, str):
        return None
    if not (isinstance(lines, int) and isinstance(count, int) and isinstance(sample, list)):
        return None
    cases = tuple(dict.fromkeys(r.case_id for r in result.results))
    unanswered = {r.case_id for r in result.results if r.error == NO_RECORDED_RESPONSE}
    missing = tuple(c for c in cases if c in unanswered)
    return _Unmatched(file, lines, count, tuple(str(i) for i in sample), cases, missing)


_RECORDED = ("recorded_lines", "recorded_cases", "recorded_ids")
"""What the replay backend says about its file, in the run's `server` identity."""


def _sample(ids: tuple[str, ...], n: int = 3, *, total: int | None = None) -> str:
    shown = ", ".join(repr(i) for i in ids[:n])
    return shown + (", ..." if (len(ids) if total is None else total) > n else "")
