"""Run metrics of conversations: what `RunMetrics.conversations` holds.

Only results that carry a `ConversationRecord` count here; single cases never do, so a
run without conversations has no conversation metrics at all (None). Definitions
(docs/metrics.md has the long form):

- **Scored** conversations are those whose status is not `timeout` or `error`, as for
  cases. Accuracy, progress, per-turn accuracy, trajectory P/R/F1, steps and calls are
  over scored conversations (every repetition a trial); failure causes count every
  conversation, so timeouts and errors show there.
- **Accuracy** = passed / scored, with a Wilson interval.
- **Progress** = mean of each conversation's share of turns passed (turns never reached
  count as failed).
- **Per-turn accuracy**: for turn i, the share of conversations with at least i + 1
  turns whose turn i was reached and passed.
- **Trajectory precision / recall / F1**, micro over calls, over conversations with a
  reference: matched calls / calls made, matched calls / reference calls.
- **pass^k** (k = repeats > 1), over conversations with at least k scored tries: the
  share that passed in all of their first k tries (tau-bench's pass^k), and the
  unbiased estimator mean C(c, k) / C(n, k) (c passes in n tries), each with a
  percentile-bootstrap interval that resamples whole conversations (seeded).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import get_args

from toolgrade._core.json_data import JsonObject
from toolgrade._core.transcript import FAILURE_CAUSES, ConversationMode, ConversationRecord
from toolgrade.results import CaseResult, Status
from toolgrade.stats import Interval, Rate, bootstrap_interval, rate_of

__all__ = [
    "ConversationMetrics",
    "PassHatK",
    "TurnAccuracy",
    "conversation_metrics",
    "modes_present",
    "pass_hat_k",
    "per_turn_accuracy",
]

_MODES: tuple[ConversationMode, ...] = get_args(ConversationMode)


@dataclass(frozen=True, slots=True)
class TurnAccuracy:
    """How often one turn (by position) passed, across conversations that have it."""

    index: int
    """The turn's position, from 0."""
    rate: Rate
    """Conversations whose turn `index` passed / conversations with that many turns."""

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        return {"index": self.index, **self.rate.to_dict()}


@dataclass(frozen=True, slots=True)
class PassHatK:
    """pass^k over conversations: do all k tries of a conversation pass?"""

    k: int
    """Tries per conversation."""
    conversations: int
    """Conversations with at least k scored tries (the others are left out)."""
    all_passed: float
    """Share of those conversations that passed in all of their first k tries."""
    all_passed_interval: Interval
    """Bootstrap interval of `all_passed` (conversations resampled)."""
    unbiased: float
    """Mean of C(c, k) / C(n, k) over those conversations (c passes of n tries)."""
    unbiased_interval: Interval
    """Bootstrap interval of `unbiased`."""
    curve: tuple[float, ...]
    """The unbiased pass^j for j = 1..k (`curve[0]` is the mean pass rate)."""
    resamples: int
    """Bootstrap resamples behind the intervals."""

    def to_dict(self) -> JsonObject:
        """Return pass^k as a JSON object."""
        return {
            "k": self.k,
            "conversations": self.conversations,
            "all_passed": self.all_passed,
            "all_passed_interval": self.all_passed_interval.to_dict(),
            "unbiased": self.unbiased,
            "unbiased_interval": self.unbiased_interval.to_dict(),
            "curve": list(self.curve),
            "resamples": self.resamples,
        }


@dataclass(frozen=True, slots=True)
class ConversationMetrics:
    """Every number reported about the conversations of one run."""

    total: int
    """Conversation results (every conversation and repetition), scored or not."""
    scored: int
    """Those whose status is not `timeout` or `error`."""
    timeouts: int
    """Conversations that ended on a timeout (not scored)."""
    errors: int
    """Conversations that could not be run to the end (not scored)."""
    accuracy: Rate
    """Passed / scored conversations, with a Wilson interval."""
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
    """Accuracy per mode present (one entry unless the run mixes modes)."""
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


def conversation_metrics(
    results: Sequence[CaseResult], *, repeats: int = 1, seed: int = 0, resamples: int = 2000
) -> ConversationMetrics | None:
    """Compute the conversation metrics of a run's results.

    Args:
        results: every result of the run (single cases are ignored).
        repeats: tries per conversation (pass^k is computed when above 1).
        seed: seed of the pass^k bootstrap intervals.
        resamples: bootstrap resamples.

    Returns:
        The metrics, or None when no result is a conversation.
    """
    talks = [(r, r.conversation) for r in results if r.conversation is not None]
    if not talks:
        return None
    scored = [(r, c) for r, c in talks if r.status.scored]
    records = [c for _, c in scored]
    passed = sum(c.passed for c in records)
    statuses = Counter(r.status for r, _ in talks)
    precision, recall, f1, pooled = _trajectory_prf(scored)
    modes = modes_present(c for _, c in talks)
    return ConversationMetrics(
        total=len(talks),
        scored=len(scored),
        timeouts=statuses[Status.TIMEOUT],
        errors=statuses[Status.ERROR],
        accuracy=rate_of(passed, len(scored)),
        mean_score=_mean([r.score for r, _ in scored]),
        mean_progress=_mean([c.progress for c in records]),
        per_turn=per_turn_accuracy(records),
        precision=precision,
        recall=recall,
        f1=f1,
        with_reference=pooled,
        mean_steps=_mean([c.steps for c in records]),
        mean_calls=_mean([len(c.calls) for c in records]),
        failure_causes=_causes(talks),
        modes=modes,
        by_mode={
            m: rate_of(
                sum(c.passed for c in records if c.mode == m), sum(c.mode == m for c in records)
            )
            for m in modes
        },
        pass_hat_k=pass_hat_k(
            [(r.case_id, r.repeat, c.passed) for r, c in scored],
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


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def per_turn_accuracy(records: Sequence[ConversationRecord]) -> tuple[TurnAccuracy, ...]:
    """Accuracy of each turn position over `records` (unreached turns count as failed).

    Args:
        records: the conversations (one per result).

    Returns:
        One row per turn position, from 0 to the longest conversation's last turn.
    """
    longest = max((c.total_turns for c in records), default=0)
    passed, having = [0] * longest, [0] * longest
    for record in records:
        reached = {t.index: t.passed for t in record.turns}
        for i in range(record.total_turns):
            having[i] += 1
            passed[i] += reached.get(i, False)
    return tuple(TurnAccuracy(i, rate_of(passed[i], having[i])) for i in range(longest))


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


def pass_hat_k(
    tries: Sequence[tuple[str, int, bool]], k: int, *, seed: int = 0, resamples: int = 2000
) -> PassHatK | None:
    """pass^k over conversations from their tries, with bootstrap intervals.

    Args:
        tries: `(conversation id, repeat index, passed)` for every scored try.
        k: tries that must all pass (at least 1).
        seed: seed of the bootstrap.
        resamples: bootstrap resamples.

    Returns:
        pass^k, or None when no conversation has k scored tries.

    Examples:
        >>> p = pass_hat_k([("a", 0, True), ("a", 1, True), ("b", 0, True), ("b", 1, False)], 2)
        >>> p.all_passed, p.unbiased, p.curve
        (0.5, 0.5, (0.75, 0.5))
    """
    grouped: defaultdict[str, list[tuple[int, bool]]] = defaultdict(list)
    for case_id, repeat, ok in tries:
        grouped[case_id].append((repeat, ok))
    counts: list[tuple[int, int]] = []
    first_k: list[float] = []
    for group in grouped.values():
        outcomes = [ok for _, ok in sorted(group)]
        if len(outcomes) >= k:
            counts.append((sum(outcomes), len(outcomes)))
            first_k.append(float(all(outcomes[:k])))
    if not counts:
        return None

    # Both statistics are means of one number per conversation: compute those once, and
    # resample them (not the conversations) so each bootstrap draw only sums.
    def unbiased_terms(j: int) -> list[float]:
        return [math.comb(c, j) / math.comb(n, j) for c, n in counts]

    terms = unbiased_terms(k)
    return PassHatK(
        k=k,
        conversations=len(counts),
        all_passed=_mean(first_k),
        all_passed_interval=bootstrap_interval(first_k, _mean, seed=seed, resamples=resamples),
        unbiased=_mean(terms),
        unbiased_interval=bootstrap_interval(terms, _mean, seed=seed, resamples=resamples),
        curve=tuple(_mean(unbiased_terms(j)) for j in range(1, k + 1)),
        resamples=resamples,
    )
