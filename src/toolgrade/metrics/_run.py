"""`compute_metrics`: every number of a run, in one `RunMetrics`.

The run's own figures count every result, conversations included (a conversation is one
result, its status the cause of its first failure); a run with conversations adds the
conversations section (`RunMetrics.conversations`), which a run without has not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.metrics._clustered import Clustering, cluster_keys, cluster_totals, clustered_rate
from toolgrade.metrics._conversations import ConversationMetrics, conversation_section
from toolgrade.metrics._decisions import DecisionMetrics, decision_section
from toolgrade.metrics._noise import NoiseFloor, noise_floor, request_temperature
from toolgrade.metrics._rates import (
    Breakdown,
    Counts,
    by_category,
    by_difficulty,
    by_tag,
    by_tool,
    call_level,
)
from toolgrade.metrics._repeats import CaseConsistency, all_agree, consistency, unbiased
from toolgrade.metrics._serving import ServingMetrics, run_is_native, serving_section
from toolgrade.results import CaseResult, RunResult, Status
from toolgrade.stats import Interval, Rate, bootstrap_mean_interval

__all__ = ["RunMetrics", "compute_metrics"]


@dataclass(frozen=True, slots=True)
class RunMetrics:
    """Every number reported about one run."""

    total: int
    """All results (every case and repetition), scored or not."""
    scored: int
    """Results other than `timeout` and `error`."""
    passed: int
    """Scored results with status `correct`."""
    failed: int
    """Scored results with any other status."""
    timeouts: int
    """Results with status `timeout` (not scored)."""
    errors: int
    """Results with status `error` (not scored)."""
    accuracy: Rate
    """passed / scored, with a Wilson interval clustered by case (by `cluster_by`): with
    one try per case it is the plain Wilson interval."""
    mean_score: float
    """Mean rubric score over scored results."""
    mean_score_interval: Interval
    """Seeded percentile-bootstrap interval of the mean score."""
    precision: float
    """Correct calls / actual calls, over scored results."""
    recall: float
    """Correct calls / expected calls, over scored results."""
    f1: float
    """Harmonic mean of precision and recall."""
    status_counts: dict[str, int]
    """Count of every status (all statuses present, zeros included)."""
    by_category: tuple[Breakdown, ...]
    """Accuracy per category."""
    by_tool: tuple[Breakdown, ...]
    """Accuracy per tool of the cases' primary expectations; `(no call)` for cases
    expecting none."""
    by_difficulty: tuple[Breakdown, ...]
    """Accuracy per difficulty (easy, medium, hard, then others)."""
    by_tag: tuple[Breakdown, ...]
    """Accuracy per tag."""
    repeats: int
    """Repetitions per case."""
    consistency: float | None
    """Share of cases whose repetitions all had the same outcome (None without repeats)."""
    pass_hat_k: float | None
    """pass^k with k = `repeats`: chance that all k tries pass (None without repeats)."""
    latency_p50_ms: float | None
    """Median latency per result (None when no latency was recorded)."""
    latency_p95_ms: float | None
    """95th-percentile latency per result."""
    per_case_consistency: tuple[CaseConsistency, ...] = ()
    """Per-case detail behind `consistency` (empty without repeats)."""
    seed: int = 0
    """Seed of the bootstrap intervals."""
    conversations: ConversationMetrics | None = None
    """The conversations section (None when the run has no conversation)."""
    cluster_by: str = "case"
    """What the intervals are clustered by (`cluster_keys`): `case`, `category`, `tag` or
    `tag:PREFIX`."""
    accuracy_clustering: Clustering | None = None
    """The clusters behind `accuracy`'s interval and what they are worth."""
    noise: NoiseFloor | None = None
    """The noise floor: the cases whose tries gave different verdicts with nothing
    changed (None without repeats, or when no case has two scored tries)."""
    serving: ServingMetrics | None = None
    """How the answers reached the client: the serving classes and the accuracy as
    served (None only for metrics built by hand)."""
    decisions: DecisionMetrics | None = None
    """Whether the model called, asked, refused or answered as expected (None when no
    case or turn of the run states an outcome)."""

    def to_dict(self) -> JsonObject:
        """Return every metric as a JSON object (breakdowns as lists of rows)."""

        def rows(items: Iterable[Breakdown | CaseConsistency]) -> list[JsonValue]:
            return [item.to_dict() for item in items]

        data: JsonObject = {
            "total": self.total,
            "scored": self.scored,
            "passed": self.passed,
            "failed": self.failed,
            "timeouts": self.timeouts,
            "errors": self.errors,
            "accuracy": self.accuracy.to_dict(),
            "mean_score": self.mean_score,
            "mean_score_interval": self.mean_score_interval.to_dict(),
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "status_counts": dict(self.status_counts),
            "by_category": rows(self.by_category),
            "by_tool": rows(self.by_tool),
            "by_difficulty": rows(self.by_difficulty),
            "by_tag": rows(self.by_tag),
            "repeats": self.repeats,
            "consistency": self.consistency,
            "pass_hat_k": self.pass_hat_k,
            "per_case_consistency": rows(self.per_case_consistency),
            "latency_p50_ms": self.latency_p50_ms,
            "latency_p95_ms": self.latency_p95_ms,
            "seed": self.seed,
            "cluster_by": self.cluster_by,
            "noise_floor": self.noise.to_dict() if self.noise is not None else None,
        }
        if self.accuracy_clustering is not None:
            data["accuracy_clustering"] = self.accuracy_clustering.to_dict()
        # An optional section: a run without conversations has no such key.
        if self.conversations is not None:
            data["conversations"] = self.conversations.to_dict()
        if self.serving is not None:
            data["serving"] = self.serving.to_dict()
        if self.decisions is not None:
            data["decisions"] = self.decisions.to_dict()
        return data


def compute_metrics(run: RunResult, *, seed: int = 0, cluster_by: str = "case") -> RunMetrics:
    """Compute every metric of a run.

    Args:
        run: the run.
        seed: seed of the bootstrap intervals (the mean score's, and pass^k's of the
            conversations section).
        cluster_by: what the accuracy intervals are clustered by (`cluster_keys`):
            `case` (the tries of a case are one cluster), `category`, `tag` or
            `tag:PREFIX` (cases sharing a context).

    Returns:
        The metrics.

    Raises:
        ValueError: an unknown `cluster_by`.

    Examples:
        >>> m = compute_metrics(run)  # doctest: +SKIP
        >>> f"{m.accuracy.rate:.1%}"  # doctest: +SKIP
        '84.0%'
    """
    import numpy as np  # deferred: numpy costs ~90 ms at import

    results = run.results
    counts = Counts.of(results)
    scored = [r for r in results if r.status.scored]
    clusters = cluster_keys(scored, cluster_by)
    clustering = clustered_rate(
        cluster_totals(zip(clusters, (r.status is Status.CORRECT for r in scored), strict=True))
    )
    scores = [r.score for r in scored]
    precision, recall, f1 = call_level(scored)
    repeats = max([run.repeat, *(r.repeat + 1 for r in results)])
    per_case = consistency(scored) if repeats > 1 else ()
    p50, p95 = _latency(results)
    return RunMetrics(
        total=counts.total,
        scored=counts.scored,
        passed=counts.passed,
        failed=counts.scored - counts.passed,
        timeouts=counts.timeouts,
        errors=counts.errors,
        accuracy=clustering.rate,
        mean_score=float(np.mean(scores)) if scores else 0.0,
        mean_score_interval=bootstrap_mean_interval(scores, seed=seed),
        precision=precision,
        recall=recall,
        f1=f1,
        status_counts={
            s.value: counts.statuses[s]
            for s in Status
            if counts.statuses[s] or not s.conversational
        },
        by_category=by_category(scored, clusters),
        by_tool=by_tool(scored, clusters),
        by_difficulty=by_difficulty(scored, clusters),
        by_tag=by_tag(scored, clusters),
        repeats=repeats,
        consistency=all_agree(per_case),
        pass_hat_k=unbiased([(c.passed, c.runs) for c in per_case], repeats) if per_case else None,
        latency_p50_ms=p50,
        latency_p95_ms=p95,
        per_case_consistency=per_case,
        seed=seed,
        conversations=conversation_section(
            results, repeats=repeats, seed=seed, cluster_by=cluster_by
        ),
        cluster_by=cluster_by,
        accuracy_clustering=clustering,
        noise=(
            noise_floor(
                scored, repeats, temperature=request_temperature(run.backend), per_case=per_case
            )
            if per_case
            else None
        ),
        serving=serving_section(
            results,
            clusters,
            native=run_is_native(run.backend),
            server=run.server,
            model=run.model,
        ),
        decisions=decision_section(results),
    )


def _latency(results: Sequence[CaseResult]) -> tuple[float | None, float | None]:
    import numpy as np  # deferred: numpy costs ~90 ms at import

    values = [r.latency_ms for r in results if r.latency_ms is not None]
    if not values:
        return None, None
    p50, p95 = np.percentile(np.asarray(values, dtype=np.float64), [50, 95])
    return float(p50), float(p95)
