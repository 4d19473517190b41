"""The serving section of a comparison: what changed in how the runs were served.

A comparison's verdict is the model's (its calls read from wherever it put them). Its
serving section (`ServingComparison`, built by `toolgrade.compare._served`) adds how
the answers reached the client: which recorded serving fields differ between the runs,
the paired verdict of the accuracies *as served* (a case passes as served when it passes
and every call it made came as structured `tool_calls`, `toolgrade.serving.delivered`),
and the flipped cases grouped by serving class, each group read as the server's or the
model's doing. "As served, broke 6 cases: 6 calls_in_text (TC-003, TC-007, …): the
server's" is then one line: a server upgrade that stopped parsing the model's calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from toolgrade._core.json_data import JsonObject
from toolgrade.compare._words import detectable_words, verdict_words
from toolgrade.metrics import Rate
from toolgrade.serving import CLEAN
from toolgrade.stats import Interval

if TYPE_CHECKING:
    from toolgrade.compare._comparison import Change, Comparison

__all__ = ["FlipGroup", "Reading", "ServedFlip", "ServingComparison", "gate_verdict"]

Reading = Literal["server", "model"]
"""Whose doing a flip is: `server` (how the answer was served: the calls the model made
did not reach the client, or came damaged) or `model` (what the model said changed)."""

_IDS_SHOWN = 3


@dataclass(frozen=True, slots=True)
class ServedFlip:
    """One flipped case with the serving class of each side and whose doing it is."""

    case_id: str
    """The case."""
    baseline: str
    """Its status in the baseline (the model's verdict)."""
    candidate: str
    """Its status in the candidate."""
    baseline_class: str
    """Its serving class in the baseline (`toolgrade.serving.ServingClass`)."""
    candidate_class: str
    """Its serving class in the candidate."""
    reading: Reading
    """Whose doing the flip is (`Reading`)."""

    def to_dict(self) -> JsonObject:
        """Return the flip as a JSON object."""
        return {
            "case_id": self.case_id,
            "baseline": self.baseline,
            "candidate": self.candidate,
            "baseline_class": self.baseline_class,
            "candidate_class": self.candidate_class,
            "reading": self.reading,
        }


@dataclass(frozen=True, slots=True)
class FlipGroup:
    """The flipped cases of one serving class: the failing side's class.

    Broken cases are grouped by the candidate's class, fixed ones by the baseline's.
    """

    kind: str
    """The serving class."""
    flips: tuple[ServedFlip, ...]
    """The cases, in case id order."""
    hint: str | None = None
    """For calls found only in text, the server flag that would parse them."""

    @property
    def server(self) -> int:
        """Flips that are the server's doing."""
        return sum(f.reading == "server" for f in self.flips)

    @property
    def model(self) -> int:
        """Flips that are the model's doing."""
        return len(self.flips) - self.server

    @property
    def reading(self) -> str:
        """Whose doing the group is, in words: `the server's`, `the model's` or both."""
        if not self.model:
            return "the server's"
        if not self.server:
            return "the model's"
        return f"{self.server} the server's, {self.model} the model's"

    def words(self) -> str:
        """The group in words, e.g. `6 calls_in_text (TC-003, TC-007, …): the server's`."""
        ids = ", ".join(f.case_id for f in self.flips[:_IDS_SHOWN])
        more = ", …" if len(self.flips) > _IDS_SHOWN else ""
        return f"{len(self.flips)} {self.kind} ({ids}{more}): {self.reading}"

    def to_dict(self) -> JsonObject:
        """Return the group as a JSON object."""
        return {
            "class": self.kind,
            "count": len(self.flips),
            "server": self.server,
            "model": self.model,
            "hint": self.hint,
            "cases": [f.to_dict() for f in self.flips],
        }


def groups_words(verb: str, groups: tuple[FlipGroup, ...]) -> str:
    """`broke 6 cases: 6 calls_in_text (TC-003, …): the server's`; groups by `; `.

    Examples:
        >>> flip = ServedFlip("TC-1", "correct", "correct", "structured", "empty", "server")
        >>> groups_words("broke", (FlipGroup("empty", (flip,)),))
        "broke 1 case: 1 empty (TC-1): the server's"
    """
    total = sum(len(g.flips) for g in groups)
    cases = "case" if total == 1 else "cases"
    return f"{verb} {total} {cases}: " + "; ".join(g.words() for g in groups)


@dataclass(frozen=True, slots=True)
class ServingComparison:
    """How the two runs were served, and the comparison of their accuracies as served."""

    changes: tuple[str, ...]
    """The recorded serving fields that differ, in words, e.g.
    `server llama-cpp-python 0.3.36 → 0.3.40`, `option tool_choice auto → (none)`."""
    baseline_native: bool
    """Whether the baseline sent its tools in the request (else as served = the model's)."""
    candidate_native: bool
    """Whether the candidate did."""
    baseline_accuracy: Rate
    """The baseline's accuracy as served over the paired cases."""
    candidate_accuracy: Rate
    """The candidate's accuracy as served over the paired cases."""
    delta: float
    """candidate - baseline accuracy as served, a fraction."""
    delta_interval: Interval
    """Newcombe's paired 95% interval of the delta as served."""
    p_value: float
    """McNemar's exact two-sided p-value over the paired outcomes as served."""
    verdict: Change
    """The verdict as served, by the comparison's rule, threshold and alpha."""
    threshold: float
    """The threshold, in percentage points."""
    alpha: float
    """The significance level."""
    power: float
    """The power of `mde` and `cases_to_tell`."""
    equivalence_interval: Interval | None
    """Newcombe's paired `1 - 2·alpha` interval of the delta as served."""
    mde: float | None
    """The minimum detectable effect as served, a fraction (None: none is detected)."""
    cases_to_tell: int | None
    """For an `inconclusive` verdict as served, about how many paired cases would tell."""
    lost: tuple[int, int]
    """Paired cases that pass as the model's but not as served: (baseline, candidate)."""
    broken: tuple[FlipGroup, ...]
    """The model's broken cases (`Comparison.broken`), by the candidate's class."""
    fixed: tuple[FlipGroup, ...]
    """The model's fixed cases (`Comparison.fixed`), by the baseline's class."""
    broken_as_served: tuple[FlipGroup, ...]
    """Cases passed as served in the baseline, not in the candidate, by the candidate's
    class."""
    fixed_as_served: tuple[FlipGroup, ...]
    """Cases passed as served in the candidate, not in the baseline, by the baseline's
    class."""

    @property
    def changed(self) -> bool:
        """Whether any recorded serving field differs between the runs."""
        return bool(self.changes)

    @property
    def shown(self) -> bool:
        """Whether there is anything to say about how the runs were served.

        It holds when the serving changed, a paired case was lost between the model and
        the client in either run, or a flipped case is in a fault class.
        """
        faulty = any(
            f.baseline_class not in CLEAN or f.candidate_class not in CLEAN
            for groups in (self.broken, self.fixed, self.broken_as_served, self.fixed_as_served)
            for group in groups
            for f in group.flips
        )
        return self.changed or any(self.lost) or faulty

    @property
    def same_as_model(self) -> bool:
        """Whether every paired outcome as served is the model's.

        Nothing was lost between the model and the client in either run, so the figures
        as served repeat the comparison's own.
        """
        return not any(self.lost)

    @property
    def change_text(self) -> str:
        """The changes in words, e.g. `server llama-server b4000 → b4100; stream true → false`."""
        return "; ".join(self.changes) if self.changes else "no serving field differs"

    @property
    def status(self) -> str:
        """The verdict as served in words."""
        return verdict_words(
            self.verdict, self.threshold, self.equivalence_interval, self.cases_to_tell, "cases"
        )

    @property
    def detectable(self) -> str:
        """The minimum detectable effect as served in words."""
        flips = sum(len(g.flips) for g in (*self.broken_as_served, *self.fixed_as_served))
        n = self.baseline_accuracy.n
        return detectable_words(self.mde, self.power, self.alpha, flips, n, "cases")

    def flip_lines(self) -> list[str]:
        """One line per non-empty grouping, e.g. `As served, broke 6 cases: 6 calls_in_text …`.

        The flips as served are left out when they are the model's (`same_as_model`).
        """
        served = () if self.same_as_model else (self.broken_as_served, self.fixed_as_served)
        parts = (
            *zip(("As served, broke", "As served, fixed"), served, strict=False),
            ("Broke", self.broken),
            ("Fixed", self.fixed),
        )
        return [groups_words(verb, groups) for verb, groups in parts if groups]

    def to_dict(self) -> JsonObject:
        """Return the section as a JSON object."""
        return {
            "changed": self.changed,
            "changes": list(self.changes),
            "baseline_native": self.baseline_native,
            "candidate_native": self.candidate_native,
            "baseline_accuracy": self.baseline_accuracy.to_dict(),
            "candidate_accuracy": self.candidate_accuracy.to_dict(),
            "delta": self.delta,
            "delta_interval": self.delta_interval.to_dict(),
            "p_value": self.p_value,
            "verdict": self.verdict,
            "threshold": self.threshold,
            "alpha": self.alpha,
            "power": self.power,
            "equivalence_interval": (
                self.equivalence_interval.to_dict() if self.equivalence_interval else None
            ),
            "mde": self.mde,
            "cases_to_tell": self.cases_to_tell,
            "lost": {"baseline": self.lost[0], "candidate": self.lost[1]},
            "broken": [g.to_dict() for g in self.broken],
            "fixed": [g.to_dict() for g in self.fixed],
            "broken_as_served": [g.to_dict() for g in self.broken_as_served],
            "fixed_as_served": [g.to_dict() for g in self.fixed_as_served],
        }


def gate_verdict(comparison: Comparison, *, as_served: bool = False) -> Change:
    """The verdict a gate decides on: the model's, or the one as served.

    Args:
        comparison: the comparison.
        as_served: decide on the outcomes as served (`Comparison.serving.verdict`):
            the server-upgrade gate. A comparison without a serving section (built by
            hand) decides on the model's verdict.
    """
    if as_served and comparison.serving is not None:
        return comparison.serving.verdict
    return comparison.verdict
