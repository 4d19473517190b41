"""Comparing the conversations of two runs: paired accuracy, per-turn deltas, mode gap.

Conversations pair like cases (`toolgrade.compare._runs`): one outcome per conversation
id and run (majority over repetitions), over the ids scored in both runs, with
McNemar's exact test on the discordant pairs. On top of that:

- **per-turn deltas**: the accuracy of each turn position in each run, over every
  scored try of the paired conversations (a turn never reached counts as failed);
- **error compounding**: when the two runs differ only in mode (same model and suite,
  one run `on_policy` and the other `teacher_forced`), the on-policy accuracy against
  the teacher-forced accuracy over the paired conversations. Teacher forcing restarts
  every turn from the reference, so the gap is how much an early mistake costs later
  turns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolgrade._conversation_metrics import TurnAccuracy, modes_present, per_turn_accuracy
from toolgrade._core.json_data import JsonObject
from toolgrade._core.transcript import ConversationMode, ConversationRecord
from toolgrade.compare._outcomes import Outcome
from toolgrade.results import RunResult
from toolgrade.stats import Rate, mcnemar_exact, rate_of

__all__ = ["ConversationComparison", "ModeGap", "TurnDelta", "compare_conversations"]


@dataclass(frozen=True, slots=True)
class TurnDelta:
    """The accuracy change of one turn position between the runs."""

    index: int
    """The turn's position, from 0."""
    baseline: Rate | None
    """Baseline accuracy of the turn (None: no paired conversation has it there)."""
    candidate: Rate | None
    """Candidate accuracy of the turn."""
    delta: float | None
    """candidate - baseline as a fraction (None when one side is missing)."""

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        return {
            "index": self.index,
            "baseline": self.baseline.to_dict() if self.baseline else None,
            "candidate": self.candidate.to_dict() if self.candidate else None,
            "delta": self.delta,
        }


@dataclass(frozen=True, slots=True)
class ModeGap:
    """On-policy against teacher-forced accuracy: how much errors compound."""

    on_policy: Rate
    """Accuracy of the on-policy run over the paired conversations."""
    teacher_forced: Rate
    """Accuracy of the teacher-forced run over the same conversations."""
    gap: float
    """teacher_forced - on_policy, a fraction (0.2 = 20 points lost to compounding)."""
    on_policy_side: str
    """Which run was on-policy: `baseline` or `candidate`."""

    def to_dict(self) -> JsonObject:
        """Return the gap as a JSON object."""
        return {
            "on_policy": self.on_policy.to_dict(),
            "teacher_forced": self.teacher_forced.to_dict(),
            "gap": self.gap,
            "on_policy_side": self.on_policy_side,
        }


@dataclass(frozen=True, slots=True)
class ConversationComparison:
    """The conversations of a candidate run against those of a baseline run."""

    shared: int
    """Conversations scored in both runs (the pairs)."""
    baseline_accuracy: Rate
    """Baseline accuracy over the paired conversations."""
    candidate_accuracy: Rate
    """Candidate accuracy over the paired conversations."""
    delta: float
    """candidate - baseline accuracy, a fraction."""
    p_value: float
    """McNemar's exact two-sided p-value over the paired conversations."""
    baseline_progress: float
    """Baseline mean progress over the paired conversations' scored tries."""
    candidate_progress: float
    """Candidate mean progress, likewise."""
    per_turn: tuple[TurnDelta, ...]
    """Accuracy change per turn position, from turn 0."""
    baseline_modes: tuple[ConversationMode, ...]
    """Modes of the baseline's conversations."""
    candidate_modes: tuple[ConversationMode, ...]
    """Modes of the candidate's conversations."""
    mode_gap: ModeGap | None
    """Error compounding, when the runs differ only in mode (else None)."""

    def to_dict(self) -> JsonObject:
        """Return the comparison as a JSON object."""
        return {
            "shared": self.shared,
            "baseline_accuracy": self.baseline_accuracy.to_dict(),
            "candidate_accuracy": self.candidate_accuracy.to_dict(),
            "delta": self.delta,
            "p_value": self.p_value,
            "baseline_progress": self.baseline_progress,
            "candidate_progress": self.candidate_progress,
            "per_turn": [row.to_dict() for row in self.per_turn],
            "baseline_modes": list(self.baseline_modes),
            "candidate_modes": list(self.candidate_modes),
            "mode_gap": self.mode_gap.to_dict() if self.mode_gap else None,
        }


def _records(run: RunResult, ids: set[str]) -> list[ConversationRecord]:
    """The scored conversation records of `run` whose case id is in `ids`."""
    return [
        r.conversation
        for r in run.results
        if r.conversation is not None and r.status.scored and r.case_id in ids
    ]


def _turn_deltas(
    base: Sequence[TurnAccuracy], cand: Sequence[TurnAccuracy]
) -> tuple[TurnDelta, ...]:
    rows = []
    for i in range(max(len(base), len(cand))):
        b = base[i].rate if i < len(base) and base[i].rate.n else None
        c = cand[i].rate if i < len(cand) and cand[i].rate.n else None
        rows.append(TurnDelta(i, b, c, c.rate - b.rate if b and c else None))
    return tuple(rows)


def _mean_progress(records: Sequence[ConversationRecord]) -> float:
    return sum(c.progress for c in records) / len(records) if records else 0.0


def compare_conversations(
    baseline: RunResult,
    candidate: RunResult,
    *,
    base: Mapping[str, Outcome],
    cand: Mapping[str, Outcome],
    ids: Sequence[str],
) -> ConversationComparison | None:
    """Compare the conversations of two runs over the paired case ids.

    Args:
        baseline: the reference run.
        candidate: the run under test.
        base: the baseline's outcomes per case id (`case_outcomes`).
        cand: the candidate's outcomes per case id.
        ids: the case ids scored in both runs.

    Returns:
        The comparison, or None when no paired case is a conversation in both runs.
    """
    talks = {r.case_id for r in baseline.results if r.conversation is not None}
    talks &= {r.case_id for r in candidate.results if r.conversation is not None}
    shared = [i for i in ids if i in talks]
    if not shared:
        return None
    base_records, cand_records = _records(baseline, set(shared)), _records(candidate, set(shared))
    first_only = sum(base[i].passed and not cand[i].passed for i in shared)
    second_only = sum(cand[i].passed and not base[i].passed for i in shared)
    base_rate = rate_of(sum(base[i].passed for i in shared), len(shared))
    cand_rate = rate_of(sum(cand[i].passed for i in shared), len(shared))
    base_modes, cand_modes = modes_present(base_records), modes_present(cand_records)
    return ConversationComparison(
        shared=len(shared),
        baseline_accuracy=base_rate,
        candidate_accuracy=cand_rate,
        delta=(second_only - first_only) / len(shared),
        p_value=mcnemar_exact(first_only, second_only),
        baseline_progress=_mean_progress(base_records),
        candidate_progress=_mean_progress(cand_records),
        per_turn=_turn_deltas(per_turn_accuracy(base_records), per_turn_accuracy(cand_records)),
        baseline_modes=base_modes,
        candidate_modes=cand_modes,
        mode_gap=_mode_gap(baseline, candidate, (base_modes, cand_modes), (base_rate, cand_rate)),
    )


def _mode_gap(
    baseline: RunResult,
    candidate: RunResult,
    modes: tuple[tuple[ConversationMode, ...], tuple[ConversationMode, ...]],
    rates: tuple[Rate, Rate],
) -> ModeGap | None:
    """The gap when one run is all on-policy, the other all teacher-forced, else None.

    Anything else that differs (the model, the suite) would be mixed into the gap, so
    then there is none to report.
    """
    if baseline.model != candidate.model or baseline.suite_hash != candidate.suite_hash:
        return None
    if modes == (("on_policy",), ("teacher_forced",)):
        return ModeGap(rates[0], rates[1], rates[1].rate - rates[0].rate, "baseline")
    if modes == (("teacher_forced",), ("on_policy",)):
        return ModeGap(rates[1], rates[0], rates[0].rate - rates[1].rate, "candidate")
    return None
