"""The conversations section of `RunMetrics`: what only a conversation has.

Only results that carry a `ConversationRecord` count here; single cases never do, so a
run without conversations has no such section (None). The section's counts and
accuracy are counted as the run's are (`Counts`), over the conversations alone; on top
of them come progress, per-turn accuracy, trajectory P/R/F1, steps and calls, first
failure causes, modes and pass^k with bootstrap intervals. docs/metrics.md defines each.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import get_args

from toolgrade._core.json_data import JsonObject
from toolgrade._core.transcript import FAILURE_CAUSES, ConversationMode, ConversationRecord
from toolgrade.metrics._clustered import cluster_keys, cluster_totals, clustered_rate
from toolgrade.metrics._rates import Counts, mean
from toolgrade.metrics._repeats import PassHatK, pass_hat_k
from toolgrade.results import CaseResult, Status
from toolgrade.stats import Rate

__all__ = [
    "ConversationMetrics",
    "TurnAccuracy",
    "conversation_section",
    "modes_present",
    "per_turn_accuracy",
]

_MODES: tuple[ConversationMode, ...] = get_args(ConversationMode)


@dataclass(frozen=True, slots=True)
class TurnAccuracy:
    """How often one turn (by position) passed, across conversations that have it."""

    index: int
    """The turn's position, from 0."""
    rate: Rate
    """Conversations whose turn `index` passed / conversations with that many turns
    (clustered by conversation, so the tries of one conversation count together)."""

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        return {"index": self.index, **self.rate.to_dict()}


@dataclass(frozen=True, slots=True)
class ConversationMetrics:
    """The conversations section of a run's metrics (`RunMetrics.conversations`)."""

    total: int
    """Conversation results (every conversation and repetition), scored or not."""
    scored: int
    """Those whose status is not `timeout` or `error`."""
    timeouts: int
    """Conversations that ended on a timeout (not scored)."""
    errors: int
    """Conversations that could not be run to the end (not scored)."""
    accuracy: Rate
    """Passed / scored conversations, with a Wilson interval clustered by conversation."""
    mean_score: float
    """Mean rubric score of scored conversations (partial credit per check)."""
    mean_progress: float
    """Mean share of turns passed (turns never reached count as failed)."""
    per_turn: tuple[TurnAccuracy, ...]
    """Accuracy of each turn position, from turn 0."""
    precision: float | None
    """Matched calls / calls made, micro over conversations with a reference (None: no
    reference anywhere)."""
    recall: float | None
    """Matched calls / reference calls, same pool."""
    f1: float | None
    """Harmonic mean of `precision` and `recall`."""
    with_reference: int
    """Scored conversations with a reference (the pool of P/R/F1)."""
    mean_steps: float
    """Mean model replies per scored conversation."""
    mean_calls: float
    """Mean tool calls per scored conversation."""
    failure_causes: dict[str, int]
    """First-failure cause counts over every conversation, in `FAILURE_CAUSES` order
    (zeros included)."""
    modes: tuple[ConversationMode, ...]
    """The modes the conversations ran in (`on_policy`, `teacher_forced`)."""
    by_mode: dict[str, Rate]
    """Accuracy per mode present (one entry unless the run mixes modes), clustered."""
    pass_hat_k: PassHatK | None
    """pass^k with k = the run's repeats (None without repeats)."""

    def to_dict(self) -> JsonObject:
        """Return every conversation metric as a JSON object."""
        return {
            "total": self.total,
            "scored": self.scored,
            "timeouts": self.timeouts,
            "errors": self.errors,
            "accuracy": self.accuracy.to_dict(),
            "mean_score": self.mean_score,
            "mean_progress": self.mean_progress,
            "per_turn": [row.to_dict() for row in self.per_turn],
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "with_reference": self.with_reference,
            "mean_steps": self.mean_steps,
            "mean_calls": self.mean_calls,
            "failure_causes": dict(self.failure_causes),
            "modes": list(self.modes),
            "by_mode": {mode: rate.to_dict() for mode, rate in self.by_mode.items()},
            "pass_hat_k": self.pass_hat_k.to_dict() if self.pass_hat_k else None,
        }


def conversation_section(
    results: Sequence[CaseResult],
    *,
    repeats: int,
    seed: int,
    resamples: int = 2000,
    cluster_by: str = "case",
) -> ConversationMetrics | None:
    """The conversations section of a run's metrics (`compute_metrics` calls it).

    Args:
        results: every result of the run (single cases are passed over).
        repeats: tries per conversation (pass^k is computed when above 1).
        seed: seed of the pass^k bootstrap intervals.
        resamples: bootstrap resamples.
        cluster_by: what the intervals are clustered by (`cluster_keys`); `case`
            clusters the tries of each conversation.

    Returns:
        The section, or None when no result is a conversation.
    """
    talks = [(r, r.conversation) for r in results if r.conversation is not None]
    if not talks:
        return None
    counts = Counts.of(r for r, _ in talks)
    scored = [(r, c) for r, c in talks if r.status.scored]
    records = [c for _, c in scored]
    clusters = cluster_keys([r for r, _ in scored], cluster_by)
    passed = [r.status is Status.CORRECT for r, _ in scored]
    precision, recall, f1, pooled = _trajectory_prf(scored)
    modes = modes_present(c for _, c in talks)
    return ConversationMetrics(
        total=counts.total,
        scored=counts.scored,
        timeouts=counts.timeouts,
        errors=counts.errors,
        accuracy=clustered_rate(cluster_totals(zip(clusters, passed, strict=True))).rate,
        mean_score=mean([r.score for r, _ in scored]),
        mean_progress=mean([c.progress for c in records]),
        per_turn=per_turn_accuracy(records, clusters=clusters),
        precision=precision,
        recall=recall,
        f1=f1,
        with_reference=pooled,
        mean_steps=mean([c.steps for c in records]),
        mean_calls=mean([len(c.calls) for c in records]),
        failure_causes=_causes(talks),
        modes=modes,
        by_mode={m: _mode_rate(scored, clusters, m) for m in modes},
        pass_hat_k=pass_hat_k(
            [(r.case_id, r.repeat, r.status is Status.CORRECT) for r, _ in scored],
            repeats,
            seed=seed,
            resamples=resamples,
        )
        if repeats > 1
        else None,
    )


def modes_present(records: Iterable[ConversationRecord]) -> tuple[ConversationMode, ...]:
    """The modes `records` ran in, in `ConversationMode` order (each once)."""
    present = {c.mode for c in records}
    return tuple(m for m in _MODES if m in present)


def _mode_rate(
    scored: Sequence[tuple[CaseResult, ConversationRecord]], clusters: Sequence[str], mode: str
) -> Rate:
    tries = [
        (cluster, r.status is Status.CORRECT)
        for (r, c), cluster in zip(scored, clusters, strict=True)
        if c.mode == mode
    ]
    return clustered_rate(cluster_totals(tries)).rate


def per_turn_accuracy(
    records: Sequence[ConversationRecord], *, clusters: Sequence[str] | None = None
) -> tuple[TurnAccuracy, ...]:
    """Accuracy of each turn position over `records` (unreached turns count as failed).

    Args:
        records: the conversations (one per result).
        clusters: each record's cluster (its conversation's id, `cluster_keys`), so that
            the tries of one conversation count together in a turn's interval; without
            it every record is its own cluster.

    Returns:
        One row per turn position, from 0 to the longest conversation's last turn.
    """
    keys = clusters if clusters is not None else [str(i) for i in range(len(records))]
    longest = max((c.total_turns for c in records), default=0)
    outcomes: list[list[tuple[str, bool]]] = [[] for _ in range(longest)]
    for record, key in zip(records, keys, strict=True):
        reached = {t.index: t.passed for t in record.turns}
        for i in range(record.total_turns):
            outcomes[i].append((key, reached.get(i, False)))
    return tuple(
        TurnAccuracy(i, clustered_rate(cluster_totals(outcomes[i])).rate) for i in range(longest)
    )


def _trajectory_prf(
    scored: Sequence[tuple[CaseResult, ConversationRecord]],
) -> tuple[float | None, float | None, float | None, int]:
    """Micro P/R/F1 over the conversations whose record has P/R/F1 (a reference)."""
    matched = made = reference = pooled = 0
    for result, record in scored:
        if record.precision is None or record.recall is None:
            continue
        pooled += 1
        # The record keeps rates; the result keeps both call lists (`expected` is the
        # reference, `actual` every call made), so the matched count is recovered.
        n_made, n_ref = len(result.actual), len(result.expected)
        hits = round(record.precision * n_made) if n_made else round(record.recall * n_ref)
        matched, made, reference = matched + hits, made + n_made, reference + n_ref
    if not pooled:
        return None, None, None, 0
    if not made and not reference:
        return 1.0, 1.0, 1.0, pooled
    precision = matched / made if made else 0.0
    recall = matched / reference if reference else 0.0
    total = precision + recall
    return precision, recall, (2 * precision * recall / total if total else 0.0), pooled


def _causes(talks: Sequence[tuple[CaseResult, ConversationRecord]]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for result, record in talks:
        if record.first_failure is not None:
            counts[record.first_failure.cause] += 1
        elif result.status is not Status.CORRECT and result.status.value in FAILURE_CAUSES:
            # A conversation cut short before it could be judged keeps only its status.
            counts[result.status.value] += 1
    return {cause: counts[cause] for cause in FAILURE_CAUSES}
