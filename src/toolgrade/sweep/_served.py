"""The accuracy *as served* beside each model's accuracy on the leaderboard.

A model's accuracy counts its calls wherever it put them; an agent built on the OpenAI
SDK receives only the calls its server delivered as structured `tool_calls`, so
choosing a model for such an agent is choosing by the accuracy as served. The
leaderboard shows it beside the accuracy when the two differ for any model of a suite,
with the model's serving faults, and names the models whose order it reverses. The
ranks, the pairs and the standings stay on the model's accuracy.

The accuracy as served is reduced the way the leaderboard's accuracy is
(`compare.served_outcomes`): over the same cases, one outcome per case, a case passing
when a strict majority of its scored tries pass *as served*: status `correct` and every
call delivered as `tool_calls` in the run's mode (`serving.delivered`,
`metrics.run_is_native`), the definition of `RunMetrics.serving.as_served` per try.
With one try per case and every case compared, it is that number. The faults are the
run's serving section's (`metrics.serving_section`): every result counts, repetitions
and failed requests included.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject
from toolgrade.compare import served_outcomes
from toolgrade.metrics import cluster_keys, run_is_native, serving_section
from toolgrade.results import RunResult
from toolgrade.serving import FAULTS
from toolgrade.stats import Rate, rate_of

__all__ = ["EntryServing", "entry_serving", "served_differs", "served_swaps"]


@dataclass(frozen=True, slots=True)
class EntryServing:
    """How one model's answers on one suite reached the client.

    Examples:
        >>> s = EntryServing(rate_of(6, 85), 74, "calls_in_text", 74)
        >>> s.to_dict()["faults"], s.to_dict()["commonest_fault"]
        (74, 'calls_in_text')
    """

    as_served: Rate
    """Accuracy as served over the cases the entry's accuracy is over, with its Wilson
    interval."""
    faults: int
    """Results in a serving fault class (`ServingMetrics.faults`)."""
    commonest_fault: str | None = None
    """The fault class with the most results (None: no fault); a tie goes to the class
    listed first in `serving.FAULTS`."""
    commonest_count: int = 0
    """Results in that class."""

    def to_dict(self) -> JsonObject:
        """Return the serving numbers as a JSON object."""
        return {
            "as_served": self.as_served.to_dict(),
            "faults": self.faults,
            "commonest_fault": self.commonest_fault,
            "commonest_count": self.commonest_count,
        }


def entry_serving(run: RunResult, cases: Collection[str] | None = None) -> EntryServing:
    """The accuracy as served and the serving faults of one model's run.

    Args:
        run: the model's run on the suite.
        cases: the case ids its leaderboard accuracy is over (the cases every model
            scored); None: every case it scored.

    Returns:
        The numbers shown beside its accuracy.
    """
    native = run_is_native(run.backend)
    outcomes = [
        passed
        for case_id, passed in served_outcomes(run).items()
        if cases is None or case_id in cases
    ]
    scored = [r for r in run.results if r.status.scored]
    section = serving_section(
        run.results, cluster_keys(scored), native=native, server=run.server, model=run.model
    )
    counts = [(kind.value, section.counts.get(kind.value, 0)) for kind in FAULTS]
    commonest, most = max(counts, key=lambda item: item[1])
    return EntryServing(
        as_served=rate_of(sum(outcomes), len(outcomes)),
        faults=section.faults,
        commonest_fault=commonest if most else None,
        commonest_count=most,
    )


def served_differs(accuracy: Rate | None, serving: EntryServing | None) -> bool:
    """Whether a model's accuracy as served is below its accuracy (same cases)."""
    if accuracy is None or serving is None:
        return False
    return serving.as_served.passed != accuracy.passed


def served_swaps(rows: Sequence[tuple[str, EntryServing | None]]) -> tuple[tuple[str, str], ...]:
    """The pairs of models whose order as served is the reverse of the listed order.

    Args:
        rows: the ranked models, in the leaderboard's order (label, serving numbers).

    Returns:
        (ahead, behind) pairs: `ahead` is listed below `behind` (lower accuracy, or a
        tie listed later) and has more cases passed as served; in the listed order.

    Examples:
        >>> a, b = EntryServing(rate_of(6, 85), 74), EntryServing(rate_of(23, 85), 1)
        >>> served_swaps([("native", a), ("structured", b)])
        (('structured', 'native'),)
    """
    served = [(label, s.as_served.passed) for label, s in rows if s is not None]
    return tuple(
        (ahead, behind)
        for k, (behind, high) in enumerate(served)
        for ahead, low in served[k + 1 :]
        if low > high
    )
