"""The leaderboard: per suite, every model's accuracy, the best, and who is worse than it.

The numbers are `compare_many`'s, the same as `toolgrade compare RUN RUN RUN...`:
each run is reduced to one outcome per case (majority over repetitions), only the
cases every model scored are compared (a timeout is no evidence either way, and a
model must not win by timing out on the hard cases), accuracy comes with its Wilson
interval, and each model's gap to the best with McNemar's exact p-value on those paired
cases. A model without a run is listed, last, with the reason.

Two more numbers say how far the order itself can be trusted, over the same paired
cases: each model's bootstrap rank interval (`rank_intervals`: the cases drawn again,
the same draws for every model), and every pair of models tested with McNemar's exact
test under Holm's correction (`pair_tests`). A suite that separates no pair says so in
one sentence (`SuiteBoard.summary`) instead of presenting its order as a ranking.

Each model's **standing** against the best is one of the comparison's verdicts,
`regression`, `equivalent` or `inconclusive`, read off its pair with the best in that
Holm family (`toolgrade.sweep._standing`): a `regression` is always a separated pair,
so the standing and the pairs never contradict each other.

Beside each accuracy, the accuracy **as served** (only the calls a client receives as
`tool_calls` count) and the serving faults (`toolgrade.sweep._served`); the ranks, the
pairs and the standings stay on the model's accuracy.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from toolgrade._core.json_data import JsonObject
from toolgrade.compare import MultiComparison, case_outcomes, compare_many
from toolgrade.errors import BaselineError
from toolgrade.results import RunResult, Status
from toolgrade.stats import Interval, Rate, rate_of
from toolgrade.sweep._pairs import PairTest, pair_tests, separation_summary
from toolgrade.sweep._ranks import RankInterval, rank_intervals
from toolgrade.sweep._served import EntryServing, entry_serving, served_differs, served_swaps
from toolgrade.sweep._standing import Standing, VersusBest, versus_best

__all__ = [
    "BoardInput",
    "Leaderboard",
    "LeaderboardEntry",
    "SuiteBoard",
    "build_leaderboard",
]

SCHEMA_VERSION = 3
"""Version of the leaderboard's JSON (2: the standings are the comparison's verdicts;
3: each model's `serving`, each suite's `serving_differs` and `served_swaps`)."""


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """One model on one suite."""

    label: str
    """The model's label."""
    model: str
    """The model specification."""
    run_id: str | None
    """Its run (None: no run)."""
    rank: int | None
    """1 for the best; models with the same accuracy share a rank (None: no run)."""
    accuracy: Rate | None
    """Accuracy over the suite's compared cases, with its Wilson interval."""
    scored: int
    """Cases the model's run scored (its own, compared or not)."""
    passed: int
    """Of those, cases it passed."""
    errors: int
    """Results that are errors (every repetition counts)."""
    timeouts: int
    """Results that timed out."""
    delta_vs_best: float | None
    """Accuracy minus the best's, a fraction (None for the best and for no run)."""
    p_value: float | None
    """McNemar's exact p-value against the best on the paired cases (uncorrected)."""
    standing: Standing
    """`best`; against it `regression` (its pair with the best separated, Holm-corrected,
    and a gap beyond the threshold), `equivalent` (the gap's interval inside
    ±threshold) or `inconclusive` (the suite cannot tell); `not compared` (no case in
    common with the others) or `no run`."""
    note: str | None = None
    """Why there is no run."""
    rank_interval: RankInterval | None = None
    """The ranks the paired bootstrap supports (None: nothing to rank against)."""
    adjusted_p: float | None = None
    """Its pair with the best's Holm-adjusted p-value (None for the best and no test)."""
    equivalence_interval: Interval | None = None
    """The paired interval of the gap to the best that decides `equivalent`."""
    cases_to_tell: int | None = None
    """For `inconclusive`, about how many compared cases would tell (None otherwise)."""
    serving: EntryServing | None = None
    """Its accuracy as served, over the same cases, and its serving faults (None: no run)."""

    def to_dict(self) -> JsonObject:
        """Return the entry as a JSON object."""
        return {
            "label": self.label,
            "model": self.model,
            "run_id": self.run_id,
            "rank": self.rank,
            "accuracy": self.accuracy.to_dict() if self.accuracy else None,
            "scored": self.scored,
            "passed": self.passed,
            "errors": self.errors,
            "timeouts": self.timeouts,
            "delta_vs_best": self.delta_vs_best,
            "p_value": self.p_value,
            "standing": self.standing,
            "note": self.note,
            "rank_interval": self.rank_interval.to_dict() if self.rank_interval else None,
            "adjusted_p": self.adjusted_p,
            "equivalence_interval": (
                self.equivalence_interval.to_dict() if self.equivalence_interval else None
            ),
            "cases_to_tell": self.cases_to_tell,
            "serving": self.serving.to_dict() if self.serving else None,
        }


@dataclass(frozen=True, slots=True)
class SuiteBoard:
    """One suite's table."""

    suite: str
    """The suite's label."""
    compared_cases: int
    """Cases every model with a run scored: the accuracies are over these (with one
    model, its own scored cases)."""
    suite_hash_differs: bool
    """The runs did not all use the same suite content (shared case ids only)."""
    entries: tuple[LeaderboardEntry, ...]
    """Models with a run in rank order, then those without, in file order."""
    pairs: tuple[PairTest, ...] = ()
    """Every pair of compared models, tested on the compared cases (Holm-corrected)."""
    summary: str | None = None
    """One sentence on which pairs the suite separates (None: fewer than two compared
    models)."""

    @property
    def separated_pairs(self) -> tuple[PairTest, ...]:
        """The pairs the suite tells apart."""
        return tuple(p for p in self.pairs if p.separated)

    @property
    def separates_none(self) -> bool:
        """Models were compared and the suite tells no pair apart: no ranking."""
        return bool(self.pairs) and not self.separated_pairs

    @property
    def serving_differs(self) -> bool:
        """Some model's accuracy as served differs from its accuracy: both are shown."""
        return any(served_differs(e.accuracy, e.serving) for e in self.entries)

    @property
    def served_swaps(self) -> tuple[tuple[str, str], ...]:
        """(ahead, behind): ranked models whose order as served reverses the listed one."""
        return served_swaps([(e.label, e.serving) for e in self.entries if e.rank is not None])

    @property
    def best(self) -> LeaderboardEntry | None:
        """The best model (None when no model has a run)."""
        return next((e for e in self.entries if e.standing == "best"), None)

    def to_dict(self) -> JsonObject:
        """Return the table as a JSON object."""
        return {
            "suite": self.suite,
            "compared_cases": self.compared_cases,
            "suite_hash_differs": self.suite_hash_differs,
            "best": self.best.label if self.best else None,
            "entries": [e.to_dict() for e in self.entries],
            "pairs": [p.to_dict() for p in self.pairs],
            "separates_none": self.separates_none,
            "summary": self.summary,
            "serving_differs": self.serving_differs,
            "served_swaps": [{"ahead": a, "behind": b} for a, b in self.served_swaps],
        }


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """Every suite's table."""

    name: str
    """The sweep's name (or what the caller called it)."""
    alpha: float
    """Family-wise significance level of the pairs' tests and the standings."""
    suites: tuple[SuiteBoard, ...]
    """One table per suite, in file order."""
    seed: int = 0
    """Seed of the rank intervals' bootstrap."""
    threshold: float = 2.0
    """The gap to the best, in points, that matters to a standing."""

    def to_dict(self) -> JsonObject:
        """Return the leaderboard as a JSON object (`toolgrade sweep --json`)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "name": self.name,
            "alpha": self.alpha,
            "threshold": self.threshold,
            "seed": self.seed,
            "suites": [s.to_dict() for s in self.suites],
        }


@dataclass(frozen=True, slots=True)
class BoardInput:
    """One suite's models, in file order: (label, model, run or None, note)."""

    suite: str
    """The suite's label."""
    models: Sequence[tuple[str, str, RunResult | None, str | None]]
    """Each model's label, specification, run (None: none) and why it has none."""


def build_leaderboard(
    name: str,
    suites: Sequence[BoardInput],
    *,
    alpha: float = 0.05,
    seed: int = 0,
    threshold: float = 2.0,
) -> Leaderboard:
    """Rank the models of each suite (see the module docstring).

    Args:
        name: the leaderboard's name.
        suites: each suite's models and runs.
        alpha: the family-wise significance level of the pairs' tests and the standings.
        seed: seed of the rank intervals' bootstrap (at least 0).
        threshold: the gap to the best, in points, that matters to a standing.

    Returns:
        The leaderboard.
    """
    boards = tuple(_board(s, alpha, seed, threshold) for s in suites)
    return Leaderboard(name, alpha, boards, seed, threshold)


def _board(data: BoardInput, alpha: float, seed: int, threshold: float) -> SuiteBoard:
    present = [(label, run) for label, _, run, _ in data.models if run is not None]
    missing = [
        _entry(label, spec, None, standing="no run", note=note or "no run")
        for label, spec, run, note in data.models
        if run is None
    ]
    runs = [run for _, run in present]
    many = _compare(runs, alpha)
    pairs: tuple[PairTest, ...] = ()
    if many is not None:
        labels = [label for label, _ in present]
        shared = _shared_outcomes(runs)
        intervals = rank_intervals(shared, seed=seed)
        pairs = pair_tests(labels, shared, alpha=alpha)
        versus = versus_best(
            labels, shared, many.best_index, pairs, threshold=threshold, alpha=alpha
        )
        ranked = [
            _entry(
                label,
                run.model,
                run,
                standing="best" if vs is None else vs.standing,
                accuracy=e.accuracy,
                delta=None if e.is_best else e.delta_vs_best,
                p_value=e.p_value_vs_best,
                rank_interval=interval,
                versus=vs,
                cases=shared[0].keys(),
            )
            for (label, run), e, interval, vs in zip(
                present, many.entries, intervals, versus, strict=True
            )
        ]
        compared, differs = many.shared_cases, many.suite_hash_differs
    else:
        # One model, or models with no scored case in common: each on its own cases.
        alone = len(runs) == 1
        ranked = [
            _entry(label, run.model, run, standing="best" if alone else "not compared")
            for label, run in present
        ]
        compared = ranked[0].scored if alone else 0
        differs = len({run.suite_hash for run in runs}) > 1
    ordered = _ranked(ranked)
    position = {e.label: k for k, e in enumerate(ordered)}
    pairs = tuple(sorted(pairs, key=lambda p: (position[p.first], position[p.second])))
    return SuiteBoard(
        data.suite,
        compared,
        differs,
        (*ordered, *missing),
        pairs,
        separation_summary(pairs, alpha=alpha, cases=compared),
    )


def _shared_outcomes(runs: Sequence[RunResult]) -> list[dict[str, bool]]:
    """Per run, whether it passed each case every run scored."""
    outcomes = [case_outcomes(run) for run in runs]
    shared = set.intersection(*(set(o) for o in outcomes))
    return [{i: o[i].passed for i in shared} for o in outcomes]


def _compare(runs: Sequence[RunResult], alpha: float) -> MultiComparison | None:
    if len(runs) < 2:
        return None
    try:
        return compare_many(runs, alpha=alpha)
    except BaselineError:
        return None  # no case scored by every model


def _entry(
    label: str,
    model: str,
    run: RunResult | None,
    *,
    standing: Standing,
    accuracy: Rate | None = None,
    delta: float | None = None,
    p_value: float | None = None,
    note: str | None = None,
    rank_interval: RankInterval | None = None,
    versus: VersusBest | None = None,
    cases: Collection[str] | None = None,
) -> LeaderboardEntry:
    outcomes = case_outcomes(run) if run is not None else {}
    passed = sum(o.passed for o in outcomes.values())
    if accuracy is None and run is not None:
        accuracy = rate_of(passed, len(outcomes))
    results = run.results if run is not None else ()
    return LeaderboardEntry(
        label=label,
        model=model,
        run_id=run.run_id if run is not None else None,
        rank=None,
        accuracy=accuracy,
        scored=len(outcomes),
        passed=passed,
        errors=sum(r.status is Status.ERROR for r in results),
        timeouts=sum(r.status is Status.TIMEOUT for r in results),
        delta_vs_best=delta,
        p_value=p_value,
        standing=standing,
        note=note,
        rank_interval=rank_interval,
        adjusted_p=versus.adjusted_p if versus else None,
        equivalence_interval=versus.equivalence_interval if versus else None,
        cases_to_tell=versus.cases_to_tell if versus else None,
        serving=entry_serving(run, cases) if run is not None else None,
    )


def _ranked(entries: Sequence[LeaderboardEntry]) -> list[LeaderboardEntry]:
    """By accuracy, best first (a tie keeps file order and shares the rank: 1, 2, 2, 4)."""

    def passed(e: LeaderboardEntry) -> int:
        return e.accuracy.passed if e.accuracy is not None else -1

    order = sorted(range(len(entries)), key=lambda k: (-passed(entries[k]), k))
    out: list[LeaderboardEntry] = []
    for position, k in enumerate(order):
        e = entries[k]
        tied = bool(out) and passed(out[-1]) == passed(e)
        rank = out[-1].rank if tied else position + 1
        if e.standing == "not compared":
            rank = None
        out.append(replace(e, rank=rank))
    return out
