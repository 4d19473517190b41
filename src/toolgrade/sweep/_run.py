"""Running a sweep: every combination once, resumable, groups of servers side by side.

Each combination is an ordinary run (`arun_suite`), saved to the history as `toolgrade
run` saves it. Before it starts, the history is asked (`find_previous`): a finished
run with the same settings is reused and nothing reaches the server; an interrupted
one is resumed (`aresume_run`: only its missing cases run); otherwise a new run starts.
`fresh` skips the question.

A combination that fails (its server is down, it scored nothing, it cannot be saved)
is reported and the others go on; Ctrl-C stops every run cleanly, and running the same
sweep again continues where it stopped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from toolgrade.errors import SaveError, ToolgradeError
from toolgrade.results import RunResult, Status
from toolgrade.runner import ProgressKind, aresume_run, arun_suite, run_main, stop_on_signals
from toolgrade.store import save_run
from toolgrade.sweep._config import SweepConfig
from toolgrade.sweep._history import FolderIndex, Previous, find_previous, scored_any
from toolgrade.sweep._plan import Combination, groups, plan_sweep

__all__ = ["CombinationOutcome", "SweepEvent", "SweepResult", "arun_sweep", "run_sweep"]

OutcomeStatus = Literal["reused", "resumed", "complete", "failed", "interrupted", "not_started"]
EventKind = Literal["reuse", "start", "resume", "done", "failed", "interrupted"]

_INTERRUPTED = 130


@dataclass(frozen=True, slots=True)
class CombinationOutcome:
    """What became of one combination."""

    model: str
    """The model's label."""
    suite: str
    """The suite's label."""
    status: OutcomeStatus
    """`reused` (an earlier run), `resumed`, `complete` (a new run), `failed`,
    `interrupted` (resumable) or `not_started` (the sweep stopped first)."""
    run_id: str | None = None
    """The run, when there is one (a failed run may have kept partial results)."""
    error: str | None = None
    """Why it failed."""
    exit_code: int = 0
    """The exit code of its failure (3: server unreachable or nothing scored; 2: input)."""

    @property
    def ok(self) -> bool:
        """True when the combination has a finished run."""
        return self.status in ("reused", "resumed", "complete")


@dataclass(frozen=True, slots=True)
class SweepEvent:
    """A combination starts, is reused, resumed, done or failed (for progress lines)."""

    kind: EventKind
    combination: str
    """`model x suite`."""
    run_id: str | None = None
    detail: str = ""

    def describe(self) -> str:
        """One line for a person.

        Examples:
            >>> SweepEvent("done", "qwen-q4 x coding-agent", "R1", "84.0%, 42/50 scored").describe()
            'done: qwen-q4 x coding-agent, run R1 (84.0%, 42/50 scored)'
        """
        run = f", run {self.run_id}" if self.run_id else ""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.kind}: {self.combination}{run}{detail}"


@dataclass(frozen=True, slots=True)
class SweepResult:
    """A sweep as it ended: an outcome per combination, and every finished run."""

    config: SweepConfig
    """The sweep."""
    combinations: tuple[Combination, ...]
    """The combinations, in plan order."""
    outcomes: tuple[CombinationOutcome, ...]
    """One per combination, in the same order."""
    runs: Mapping[tuple[str, str], RunResult] = field(default_factory=dict)
    """(model label, suite label) -> its finished run."""
    interrupted: bool = False
    """True when the sweep was stopped (Ctrl-C) before every combination ran."""

    @property
    def failed(self) -> tuple[CombinationOutcome, ...]:
        """The combinations that failed."""
        return tuple(o for o in self.outcomes if o.status == "failed")

    @property
    def exit_code(self) -> int:
        """130 when interrupted, else the highest failure's code (3 before 2), else 0."""
        if self.interrupted:
            return _INTERRUPTED
        return max((o.exit_code for o in self.failed), default=0)


@dataclass(slots=True)
class _Context:
    db: Path | None
    fresh: bool
    stop: asyncio.Event
    progress: ProgressKind
    folders: FolderIndex
    notify: Callable[[SweepEvent], None]
    runs: dict[tuple[str, str], RunResult] = field(default_factory=dict)


async def arun_sweep(
    config: SweepConfig,
    *,
    db: Path | None = None,
    fresh: bool = False,
    concurrency: int | None = None,
    stop: asyncio.Event | None = None,
    progress: ProgressKind = "none",
    on_event: Callable[[SweepEvent], None] | None = None,
) -> SweepResult:
    """Run every combination of a sweep that has no finished run yet (async core).

    Args:
        config: the sweep (`load_sweep`).
        db: the history database (default `<TOOLGRADE_HOME>/toolgrade.db`).
        fresh: run every combination again, ignoring earlier runs.
        concurrency: cases in flight per run for every model (None: each model's own).
        stop: set it to stop cleanly; unfinished runs stay resumable.
        progress: each run's progress display when one run goes at a time (`none` when
            several groups run at once: their displays would mix).
        on_event: called as each combination starts, is reused or ends.

    Returns:
        The outcome of every combination and the finished runs.

    Raises:
        ConfigError: a selection keeps no case, or two suites share a name.
        SuiteError: a suite cannot be loaded.
        StoreError: the history database is unusable.
    """
    combos = plan_sweep(config, concurrency=concurrency)
    batches = groups(combos, parallel=config.parallel)
    ctx = _Context(
        db=db,
        fresh=fresh,
        stop=stop or asyncio.Event(),
        progress=progress if len(batches) <= 1 else "none",
        folders=FolderIndex({}) if fresh else FolderIndex.scan(),
        notify=on_event or (lambda event: None),
    )
    outcomes: dict[tuple[str, str], CombinationOutcome] = {}

    async def run_group(batch: Sequence[Combination]) -> None:
        for combo in batch:
            outcomes[combo.key] = await _one(combo, ctx)

    await asyncio.gather(*(run_group(b) for b in batches))
    ordered = tuple(outcomes[c.key] for c in combos)
    stopped = ctx.stop.is_set() or any(o.status == "interrupted" for o in ordered)
    return SweepResult(config, combos, ordered, dict(ctx.runs), interrupted=stopped)


async def _one(combo: Combination, ctx: _Context) -> CombinationOutcome:
    name = combo.describe()
    if ctx.stop.is_set():
        return CombinationOutcome(*combo.key, status="not_started")
    previous = (
        Previous("none") if ctx.fresh else find_previous(combo, db=ctx.db, folders=ctx.folders)
    )
    if previous.kind == "complete" and previous.run is not None:
        ctx.runs[combo.key] = previous.run
        ctx.notify(SweepEvent("reuse", name, previous.run.run_id, _accuracy(previous.run)))
        return CombinationOutcome(*combo.key, status="reused", run_id=previous.run.run_id)
    try:
        if previous.kind == "unfinished" and previous.folder is not None:
            ctx.notify(SweepEvent("resume", name, previous.folder.name))
            run = await aresume_run(
                previous.folder, suite=combo.cases, progress=ctx.progress, stop=ctx.stop
            )
            status: OutcomeStatus = "resumed"
        else:
            ctx.notify(SweepEvent("start", name, detail=previous.note or ""))
            run = await arun_suite(
                combo.cases,
                combo.model.model,
                options=combo.options,
                progress=ctx.progress,
                stop=ctx.stop,
            )
            status = "complete"
    except ToolgradeError as exc:
        ctx.notify(SweepEvent("failed", name, detail=str(exc)))
        return CombinationOutcome(
            *combo.key, status="failed", error=str(exc), exit_code=exc.exit_code
        )
    if run.status == "interrupted":
        ctx.notify(SweepEvent("interrupted", name, run.run_id, f"{len(run.results)} results kept"))
        return CombinationOutcome(*combo.key, status="interrupted", run_id=run.run_id)
    return await _finish(combo, run, status, ctx)


async def _finish(
    combo: Combination, run: RunResult, status: OutcomeStatus, ctx: _Context
) -> CombinationOutcome:
    """Save a finished run; a run that scored nothing is saved, and reported as failed."""
    name = combo.describe()
    try:
        # In a thread: a save waiting for a locked database must not hold up the other
        # groups' runs, which share this event loop.
        await asyncio.to_thread(save_run, run, db=ctx.db)
    except SaveError as exc:
        ctx.notify(SweepEvent("failed", name, run.run_id, exc.message))
        return CombinationOutcome(
            *combo.key, status="failed", run_id=run.run_id, error=str(exc), exit_code=exc.exit_code
        )
    if not scored_any(run):
        timeouts = sum(r.status is Status.TIMEOUT for r in run.results)
        error = (
            f"no case could be scored: all {len(run.results)} failed"
            f" ({len(run.results) - timeouts} errors, {timeouts} timed out)"
        )
        ctx.notify(SweepEvent("failed", name, run.run_id, error))
        return CombinationOutcome(
            *combo.key, status="failed", run_id=run.run_id, error=error, exit_code=3
        )
    ctx.runs[combo.key] = run
    ctx.notify(SweepEvent("done", name, run.run_id, _accuracy(run)))
    return CombinationOutcome(*combo.key, status=status, run_id=run.run_id)


def _accuracy(run: RunResult) -> str:
    scored = [r for r in run.results if r.status.scored]
    passed = sum(r.status is Status.CORRECT for r in scored)
    if not scored:
        return "nothing scored"
    return f"{passed / len(scored):.1%}, {passed}/{len(scored)} scored"


def run_sweep(
    config: SweepConfig,
    *,
    db: Path | None = None,
    fresh: bool = False,
    concurrency: int | None = None,
    progress: ProgressKind = "none",
    on_event: Callable[[SweepEvent], None] | None = None,
    handle_signals: bool = True,
) -> SweepResult:
    """Run a sweep (see `arun_sweep`); Ctrl-C and SIGTERM stop it cleanly.

    Args:
        config: the sweep (`load_sweep`).
        db: the history database.
        fresh: run every combination again, ignoring earlier runs.
        concurrency: cases in flight per run for every model.
        progress: each run's progress display.
        on_event: called as each combination starts, is reused or ends.
        handle_signals: turn SIGINT/SIGTERM into a clean stop.

    Returns:
        The sweep's outcome; run it again to continue an interrupted one.

    Examples:
        >>> result = run_sweep(load_sweep("sweep.toml"))  # doctest: +SKIP
        >>> result.exit_code  # doctest: +SKIP
        0
    """

    async def main() -> SweepResult:
        stop = asyncio.Event()
        sweep = arun_sweep(
            config,
            db=db,
            fresh=fresh,
            concurrency=concurrency,
            stop=stop,
            progress=progress,
            on_event=on_event,
        )
        if not handle_signals:
            return await sweep
        with stop_on_signals(stop):
            return await sweep

    return run_main(main())
