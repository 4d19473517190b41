"""What a comparison of two runs holds: the verdict, flips, group deltas.

`Comparison` is the one result of `compare_runs`; the paired conversations' own figures
(`ConversationComparison`, `_conversation_comparison.py`) are its optional section,
present only when some paired case is a conversation in both runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from toolgrade._core.json_data import JsonObject
from toolgrade.compare._noise import NoiseCheck
from toolgrade.compare._words import detectable_words, power_fields, verdict_words
from toolgrade.metrics import TOO_WIDE, Rate
from toolgrade.stats import Interval

if TYPE_CHECKING:
    from toolgrade.compare._conversation_comparison import ConversationComparison
    from toolgrade.compare._serving import ServingComparison

__all__ = ["Change", "Comparison", "Delta", "Flip"]

Change = Literal["regression", "improvement", "equivalent", "inconclusive"]
"""What the candidate's accuracy did against the baseline's (`Comparison.verdict`; the
rule is `toolgrade.compare.verdict_for`'s)."""


@dataclass(frozen=True, slots=True)
class Flip:
    """A case whose outcome changed between the runs."""

    case_id: str
    """The case."""
    baseline: str
    """Its status in the baseline."""
    candidate: str
    """Its status in the candidate."""

    def to_dict(self) -> JsonObject:
        """Return the flip as a JSON object."""
        return {"case_id": self.case_id, "baseline": self.baseline, "candidate": self.candidate}


@dataclass(frozen=True, slots=True)
class Delta:
    """The accuracy change of one group (category or tool) over the paired cases."""

    key: str
    """The group's name."""
    baseline: Rate | None
    """Baseline accuracy in the group (None: the group has no case in the baseline)."""
    candidate: Rate | None
    """Candidate accuracy in the group (None: no case in the candidate)."""
    delta: float | None
    """candidate - baseline as a fraction (None when one side is missing)."""
    interval: Interval | None = None
    """Newcombe's paired 95% interval of the change over the group's cases (those the
    baseline files under it, paired in both runs); None without such a case."""

    @property
    def too_few_to_tell(self) -> bool:
        """Whether the row says nothing.

        It has no interval, or one wider than `TOO_WIDE` (40 points), as a run's own
        rows are marked.
        """
        return self.interval is None or self.interval.width > TOO_WIDE

    @property
    def baseline_n(self) -> int:
        """Paired cases the baseline counts in the group (0 when it has none)."""
        return self.baseline.n if self.baseline else 0

    @property
    def candidate_n(self) -> int:
        """Paired cases the candidate counts in the group.

        It differs from `baseline_n` when the runs' suites file a case differently.
        """
        return self.candidate.n if self.candidate else 0

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        return {
            "key": self.key,
            "baseline": self.baseline.to_dict() if self.baseline else None,
            "candidate": self.candidate.to_dict() if self.candidate else None,
            "delta": self.delta,
            "interval": self.interval.to_dict() if self.interval else None,
            "too_few_to_tell": self.too_few_to_tell,
            "baseline_n": self.baseline_n,
            "candidate_n": self.candidate_n,
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """A candidate run against a baseline run, with a verdict."""

    baseline_id: str
    """Baseline run id."""
    candidate_id: str
    """Candidate run id."""
    baseline_label: str
    """How to name the baseline (its first tag, else its model)."""
    candidate_label: str
    """How to name the candidate."""
    shared_cases: int
    """Cases scored in both runs (the pairs)."""
    suite_hash_differs: bool
    """The runs used different suite contents."""
    baseline_accuracy: Rate
    """Baseline accuracy over the pairs."""
    candidate_accuracy: Rate
    """Candidate accuracy over the pairs."""
    delta: float
    """candidate - baseline accuracy, a fraction (0.02 = 2 points)."""
    delta_interval: Interval
    """Newcombe's paired 95% interval of the delta."""
    fixed: tuple[Flip, ...]
    """Cases failed in the baseline, correct in the candidate."""
    broken: tuple[Flip, ...]
    """Cases correct in the baseline, failed in the candidate."""
    p_value: float
    """McNemar's exact two-sided p-value over the pairs."""
    verdict: Change
    """`regression`, `improvement`, `equivalent` or `inconclusive`."""
    threshold: float
    """The threshold, in percentage points."""
    alpha: float
    """The significance level."""
    by_category: tuple[Delta, ...]
    """Accuracy change per category."""
    by_tool: tuple[Delta, ...]
    """Accuracy change per tool of the cases' primary expectations (each case is filed
    under the same tools in both runs, whichever alternative it matched)."""
    baseline_suite_hash: str = ""
    """The baseline's suite hash."""
    candidate_suite_hash: str = ""
    """The candidate's suite hash."""
    conversations: ConversationComparison | None = None
    """The conversations section: the paired conversations' own figures (None when no
    paired case is a conversation in both runs)."""
    equivalence_interval: Interval | None = None
    """Newcombe's paired `1 - 2·alpha` interval of the delta, the two one-sided tests'
    (`equivalent` when it lies inside ±threshold)."""
    mde: float | None = None
    """The minimum detectable effect: the smallest change, a fraction, that McNemar's
    exact test detects with probability `power` at this size and the observed
    discordance (None: no change is detected that often)."""
    power: float = 0.8
    """The power of `mde` and `cases_to_tell`."""
    cases_to_tell: int | None = None
    """For an `inconclusive` verdict, about how many paired cases would tell (None
    otherwise)."""
    same_settings: bool = False
    """The runs are of the same settings (`settings_differences` is empty): their flips
    are the noise floor."""
    settings_differences: tuple[str, ...] = ()
    """What differs between the runs' recorded settings, e.g. `temperature 0.0 -> 0.7`."""
    noise: NoiseCheck | None = None
    """The flips weighed against the noise floor measured by the runs' repeats, or by
    the runs themselves when they are of the same settings (None: nothing measures it)."""
    serving: ServingComparison | None = None
    """How the runs were served: what changed, the verdict as served, the flips by
    serving class (None only for a comparison built by hand)."""

    @property
    def is_regression(self) -> bool:
        """True when the verdict is `regression`."""
        return self.verdict == "regression"

    @property
    def discordance(self) -> float:
        """The share of paired cases that flipped, `(fixed + broken) / shared_cases`."""
        flips = len(self.fixed) + len(self.broken)
        return flips / self.shared_cases if self.shared_cases else 0.0

    @property
    def status(self) -> str:
        """The verdict in words, e.g. `Inconclusive: the suite cannot tell at this size`."""
        return verdict_words(
            self.verdict, self.threshold, self.equivalence_interval, self.cases_to_tell, "cases"
        )

    @property
    def detectable(self) -> str:
        """The minimum detectable effect in words."""
        flips = len(self.fixed) + len(self.broken)
        return detectable_words(self.mde, self.power, self.alpha, flips, self.shared_cases, "cases")

    @property
    def same_settings_text(self) -> str | None:
        """For runs of the same settings, what their flips are; else None."""
        if not self.same_settings:
            return None
        flips = len(self.fixed) + len(self.broken)
        return (
            f"Same settings (model, suite, request settings, server): these flips are the"
            f" noise floor, {flips} of {self.shared_cases} cases ({self.discordance:.1%})"
            " flipped with nothing changed"
        )

    def to_dict(self) -> JsonObject:
        """Return the comparison as a JSON object."""
        data: JsonObject = {
            "baseline_id": self.baseline_id,
            "candidate_id": self.candidate_id,
            "baseline_label": self.baseline_label,
            "candidate_label": self.candidate_label,
            "shared_cases": self.shared_cases,
            "suite_hash_differs": self.suite_hash_differs,
            "baseline_suite_hash": self.baseline_suite_hash,
            "candidate_suite_hash": self.candidate_suite_hash,
            "baseline_accuracy": self.baseline_accuracy.to_dict(),
            "candidate_accuracy": self.candidate_accuracy.to_dict(),
            "delta": self.delta,
            "delta_interval": self.delta_interval.to_dict(),
            "fixed": [f.to_dict() for f in self.fixed],
            "broken": [f.to_dict() for f in self.broken],
            "p_value": self.p_value,
            "verdict": self.verdict,
            "threshold": self.threshold,
            "alpha": self.alpha,
            "by_category": [d.to_dict() for d in self.by_category],
            "by_tool": [d.to_dict() for d in self.by_tool],
            **power_fields(
                self.equivalence_interval,
                self.discordance,
                self.mde,
                self.power,
                self.cases_to_tell,
            ),
            "same_settings": self.same_settings,
            "settings_differences": list(self.settings_differences),
            "noise": self.noise.to_dict() if self.noise is not None else None,
            "serving": self.serving.to_dict() if self.serving is not None else None,
        }
        # An optional section: a comparison without paired conversations has no such key.
        if self.conversations is not None:
            data["conversations"] = self.conversations.to_dict()
        return data
