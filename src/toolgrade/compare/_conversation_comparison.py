"""The conversations section of a comparison: the paired conversations' own figures.

`ConversationComparison` holds their accuracy, verdict and power, the accuracy change at
each turn position (`TurnDelta`) and the on-policy / teacher-forced gap (`ModeGap`); a
`Comparison` carries it only when some paired case is a conversation in both runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolgrade._core.json_data import JsonObject
from toolgrade._core.transcript import ConversationMode
from toolgrade.compare._words import detectable_words, power_fields, verdict_words
from toolgrade.metrics import Rate
from toolgrade.stats import Interval

if TYPE_CHECKING:
    from toolgrade.compare._comparison import Change

__all__ = ["ConversationComparison", "ModeGap", "TurnDelta"]


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
    """The conversations section of a `Comparison`: the paired conversations alone."""

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
    fixed: int = 0
    """Paired conversations failed in the baseline, passed in the candidate."""
    broken: int = 0
    """Paired conversations passed in the baseline, failed in the candidate."""
    delta_interval: Interval | None = None
    """Newcombe's paired 95% interval of the delta over the paired conversations."""
    verdict: Change = "inconclusive"
    """The verdict over the paired conversations, by the rule of the whole comparison
    (`toolgrade.compare.verdict_for`) with its threshold and alpha."""
    threshold: float = 2.0
    """The threshold, in percentage points."""
    alpha: float = 0.05
    """The significance level."""
    equivalence_interval: Interval | None = None
    """Newcombe's paired `1 - 2·alpha` interval of the delta (`equivalent` when it lies
    inside ±threshold)."""
    mde: float | None = None
    """The minimum detectable effect over the paired conversations, a fraction (None: no
    change is detected with probability `power`)."""
    power: float = 0.8
    """The power of `mde` and `cases_to_tell`."""
    cases_to_tell: int | None = None
    """For an `inconclusive` verdict, about how many paired conversations would tell."""

    @property
    def discordance(self) -> float:
        """The share of paired conversations that flipped, `(fixed + broken) / shared`."""
        return (self.fixed + self.broken) / self.shared if self.shared else 0.0

    @property
    def status(self) -> str:
        """The verdict in words, e.g. `Inconclusive: the suite cannot tell at this size`."""
        return verdict_words(
            self.verdict,
            self.threshold,
            self.equivalence_interval,
            self.cases_to_tell,
            "conversations",
        )

    @property
    def detectable(self) -> str:
        """The minimum detectable effect over the paired conversations, in words."""
        return detectable_words(
            self.mde, self.power, self.alpha, self.fixed + self.broken, self.shared, "conversations"
        )

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
            "fixed": self.fixed,
            "broken": self.broken,
            "delta_interval": self.delta_interval.to_dict() if self.delta_interval else None,
            "verdict": self.verdict,
            "threshold": self.threshold,
            "alpha": self.alpha,
            **power_fields(
                self.equivalence_interval,
                self.discordance,
                self.mde,
                self.power,
                self.cases_to_tell,
            ),
        }
