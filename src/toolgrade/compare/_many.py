"""Several runs side by side: the "choose a model" view (re-exported by `toolgrade.compare`)."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject
from toolgrade.compare._outcomes import Outcome, case_outcomes, group_rates, run_label, tool_keys
from toolgrade.errors import BaselineError
from toolgrade.metrics import Rate, rate_of
from toolgrade.results import RunResult
from toolgrade.stats import mcnemar_exact

__all__ = ["MultiComparison", "MultiEntry", "MultiRow", "compare_many"]

logger = logging.getLogger("toolgrade.compare")


@dataclass(frozen=True, slots=True)
class MultiEntry:
    """One run of a side-by-side comparison."""

    run_id: str
    """The run."""
    label: str
    """How to name it (first tag, else model; run id added when labels collide)."""
    model: str
    """The model specification."""
    accuracy: Rate
    """Accuracy over the cases every run scored."""
    is_best: bool
    """The run with the highest accuracy (ties: earliest given)."""
    delta_vs_best: float
    """accuracy - best accuracy (0 for the best)."""
    p_value_vs_best: float | None
    """McNemar's exact p-value against the best run (None for the best itself)."""
    significantly_worse: bool
    """p_value_vs_best < alpha: the gap to the best is unlikely to be chance."""

    def to_dict(self) -> JsonObject:
        """Return the entry as a JSON object."""
        return {
            "run_id": self.run_id,
            "label": self.label,
            "model": self.model,
            "accuracy": self.accuracy.to_dict(),
            "is_best": self.is_best,
            "delta_vs_best": self.delta_vs_best,
            "p_value_vs_best": self.p_value_vs_best,
            "significantly_worse": self.significantly_worse,
        }


@dataclass(frozen=True, slots=True)
class MultiRow:
    """One category or tool across every run."""

    key: str
    """The group's name."""
    rates: tuple[Rate | None, ...]
    """Accuracy per run, in the order of `MultiComparison.entries` (None: no case); each
    rate carries its own `n`, the run's cases in the group."""
    best: int | None
    """Index of the run with the highest rate in this group."""

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        return {
            "key": self.key,
            "rates": [r.to_dict() if r else None for r in self.rates],
            "best": self.best,
        }


@dataclass(frozen=True, slots=True)
class MultiComparison:
    """Several runs side by side: the "choose a model" view."""

    entries: tuple[MultiEntry, ...]
    """One entry per run, in the order given."""
    best_index: int
    """Index of the best run in `entries`."""
    shared_cases: int
    """Cases scored in every run (all numbers are over these)."""
    suite_hash_differs: bool
    """Not every run used the same suite contents."""
    by_category: tuple[MultiRow, ...]
    """Accuracy per category, per run."""
    by_tool: tuple[MultiRow, ...]
    """Accuracy per tool of the cases' primary expectations, per run."""
    alpha: float
    """Significance level of the tests against the best run."""

    def to_dict(self) -> JsonObject:
        """Return the comparison as a JSON object."""
        return {
            "entries": [e.to_dict() for e in self.entries],
            "best_index": self.best_index,
            "shared_cases": self.shared_cases,
            "suite_hash_differs": self.suite_hash_differs,
            "by_category": [r.to_dict() for r in self.by_category],
            "by_tool": [r.to_dict() for r in self.by_tool],
            "alpha": self.alpha,
        }


def compare_many(runs: Sequence[RunResult], *, alpha: float = 0.05) -> MultiComparison:
    """Compare several runs side by side over the cases all of them scored.

    The best run has the highest accuracy (ties go to the earliest run given); each
    other run is tested against it with McNemar's exact test.

    Args:
        runs: two or more runs.
        alpha: significance level for "significantly worse than the best".

    Returns:
        The side-by-side comparison.

    Raises:
        BaselineError: fewer than two runs, or no case scored by every run.
    """
    if len(runs) < 2:
        raise BaselineError("comparing needs at least two runs")
    outcomes = [case_outcomes(run) for run in runs]
    ids = sorted(set.intersection(*(set(o) for o in outcomes)))
    if not ids:
        raise BaselineError("the runs have no scored case in common")
    if len({run.suite_hash for run in runs}) > 1:
        logger.warning("the runs used different suites; comparing shared cases only")
    passes = [[o[i].passed for i in ids] for o in outcomes]
    rates = [rate_of(sum(p), len(ids)) for p in passes]
    best = max(range(len(runs)), key=lambda k: (rates[k].passed, -k))
    labels = _unique_labels(runs)
    entries = []
    for k, run in enumerate(runs):
        p_value = None if k == best else _mcnemar_pair(passes[best], passes[k])
        entries.append(
            MultiEntry(
                run_id=run.run_id,
                label=labels[k],
                model=run.model,
                accuracy=rates[k],
                is_best=k == best,
                delta_vs_best=rates[k].rate - rates[best].rate,
                p_value_vs_best=p_value,
                significantly_worse=p_value is not None and p_value < alpha,
            )
        )
    return MultiComparison(
        entries=tuple(entries),
        best_index=best,
        shared_cases=len(ids),
        suite_hash_differs=len({run.suite_hash for run in runs}) > 1,
        by_category=_multi_rows(outcomes, ids, lambda o: (o.category,)),
        by_tool=_multi_rows(outcomes, ids, tool_keys),
        alpha=alpha,
    )


def _mcnemar_pair(best: Sequence[bool], other: Sequence[bool]) -> float:
    b = sum(x and not y for x, y in zip(best, other, strict=True))
    c = sum(y and not x for x, y in zip(best, other, strict=True))
    return mcnemar_exact(b, c)


def _unique_labels(runs: Sequence[RunResult]) -> list[str]:
    labels = [run_label(run) for run in runs]
    seen = Counter(labels)
    return [
        f"{lab} [{run.run_id}]" if seen[lab] > 1 else lab
        for lab, run in zip(labels, runs, strict=True)
    ]


def _multi_rows(
    outcomes: Sequence[Mapping[str, Outcome]],
    ids: Sequence[str],
    keys_of: Callable[[Outcome], Iterable[str]],
) -> tuple[MultiRow, ...]:
    per_run = [group_rates([o[i] for i in ids], keys_of) for o in outcomes]
    rows = []
    for key in sorted(set().union(*per_run)):
        rates = tuple(table.get(key) for table in per_run)
        scored = {k: r.rate for k, r in enumerate(rates) if r is not None}
        best = max(scored, key=lambda k: (scored[k], -k)) if scored else None
        rows.append(MultiRow(key, rates, best))
    return tuple(rows)
