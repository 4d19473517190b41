"""A leaderboard: from the sweep just run, from the history alone, or from any runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from toolgrade.results import RunResult
from toolgrade.store import resolve_run
from toolgrade.sweep._config import SweepConfig
from toolgrade.sweep._history import changed_note, stored_run
from toolgrade.sweep._leaderboard import BoardInput, Leaderboard, build_leaderboard
from toolgrade.sweep._plan import Combination, plan_sweep
from toolgrade.sweep._run import CombinationOutcome, SweepResult

__all__ = ["history_leaderboard", "leaderboard", "sweep_leaderboard"]


def _inputs(
    combos: Sequence[Combination],
    find: Callable[[Combination], tuple[RunResult | None, str | None]],
) -> list[BoardInput]:
    by_suite: dict[str, list[tuple[str, str, RunResult | None, str | None]]] = {}
    for combo in combos:
        run, note = find(combo)
        by_suite.setdefault(combo.suite_label, []).append(
            (combo.model.label, combo.model.model, run, note)
        )
    return [BoardInput(suite, rows) for suite, rows in by_suite.items()]


def _note(outcome: CombinationOutcome) -> str:
    if outcome.status == "failed":
        return f"failed: {outcome.error}"
    if outcome.status == "interrupted":
        return f"interrupted (run {outcome.run_id}): run the sweep again to finish it"
    return "not started: the sweep was stopped first"


def sweep_leaderboard(
    result: SweepResult, *, alpha: float = 0.05, threshold: float = 2.0
) -> Leaderboard:
    """The leaderboard of a sweep's finished runs; the others are listed with the reason.

    Args:
        result: what `run_sweep` returned.
        alpha: the family-wise significance level of the pairs' tests and the standings.
        threshold: the gap to the best, in points, that matters to a standing.

    Returns:
        The leaderboard.
    """
    outcomes = {(o.model, o.suite): o for o in result.outcomes}

    def find(combo: Combination) -> tuple[RunResult | None, str | None]:
        run = result.runs.get(combo.key)
        return run, None if run is not None else _note(outcomes[combo.key])

    inputs = _inputs(result.combinations, find)
    return build_leaderboard(result.config.name, inputs, alpha=alpha, threshold=threshold)


def history_leaderboard(
    config: SweepConfig, *, db: Path | None = None, alpha: float = 0.05, threshold: float = 2.0
) -> Leaderboard:
    """The leaderboard of a sweep from the history alone (`toolgrade sweep --report-only`).

    Each combination's run is the history's latest finished run with the file's current
    settings; nothing is run and no server is asked.

    Args:
        config: the sweep.
        db: the history database.
        alpha: the family-wise significance level of the pairs' tests and the standings.
        threshold: the gap to the best, in points, that matters to a standing.

    Returns:
        The leaderboard; a combination without such a run is listed with the reason.

    Raises:
        SuiteError: a suite cannot be loaded (its content is part of the settings).
        StoreError: the history database is unusable.
    """

    def find(combo: Combination) -> tuple[RunResult | None, str | None]:
        run = stored_run(combo, db=db)
        if run is not None:
            return run, None
        return None, changed_note(combo, db=db) or "no finished run with these settings"

    inputs = _inputs(plan_sweep(config), find)
    return build_leaderboard(config.name, inputs, alpha=alpha, threshold=threshold)


def leaderboard(
    runs: Sequence[str | Path | RunResult],
    *,
    db: Path | None = None,
    alpha: float = 0.05,
    name: str = "leaderboard",
    seed: int = 0,
    threshold: float = 2.0,
) -> Leaderboard:
    """A leaderboard of any runs: grouped by suite name, each model named by its spec.

    Args:
        runs: run ids, tags, run folders, exported files, or runs.
        db: the history database the ids and tags are looked up in.
        alpha: the family-wise significance level of the pairs' tests and the standings.
        name: the leaderboard's name.
        seed: seed of the rank intervals' bootstrap (at least 0).
        threshold: the gap to the best, in points, that matters to a standing.

    Returns:
        The leaderboard, one table per suite (in the order first seen).

    Raises:
        BaselineError: a run cannot be found.

    Examples:
        >>> board = leaderboard(["run-a", "run-b"])  # doctest: +SKIP
        >>> board.suites[0].best.label  # doctest: +SKIP
        'ollama/qwen3:8b'
    """
    loaded = [r if isinstance(r, RunResult) else resolve_run(str(r), db=db) for r in runs]
    by_suite: dict[str, list[RunResult]] = {}
    for run in loaded:
        by_suite.setdefault(run.suite_name, []).append(run)
    inputs = []
    for suite, members in by_suite.items():
        labels = [run.model for run in members]
        rows = [
            (f"{label} [{run.run_id}]" if labels.count(label) > 1 else label, run.model, run, None)
            for label, run in zip(labels, members, strict=True)
        ]
        inputs.append(BoardInput(suite, rows))
    return build_leaderboard(name, inputs, alpha=alpha, seed=seed, threshold=threshold)
