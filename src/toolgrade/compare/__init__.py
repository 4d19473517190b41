"""Comparing runs: baseline vs candidate with one of four verdicts, or several side by side.

`compare_runs` compares two runs with or without conversations; the paired
conversations' figures are a section of its one `Comparison`, and so is the noise floor
its flips are weighed against (`NoiseCheck`: from the runs' repeats, or from the runs
themselves when they are of the same settings, `settings_differences`), and so is how
the runs were served (`ServingComparison`: what changed, the verdict as served, the flips
by serving class; `gate_verdict` picks the verdict a gate decides on).
"""

from toolgrade.compare._comparison import Change, Comparison, Delta, Flip
from toolgrade.compare._conversation_comparison import ConversationComparison, ModeGap, TurnDelta
from toolgrade.compare._many import MultiComparison, MultiEntry, MultiRow, compare_many
from toolgrade.compare._noise import REQUEST_SETTINGS, NoiseCheck, settings_differences
from toolgrade.compare._outcomes import case_outcomes, majority
from toolgrade.compare._runs import compare_runs
from toolgrade.compare._served import served_outcomes, serving_changes
from toolgrade.compare._serving import FlipGroup, ServedFlip, ServingComparison, gate_verdict
from toolgrade.compare._verdict import cases_to_tell, equivalence_interval, verdict_for

__all__ = [
    "Change",
    "Comparison",
    "ConversationComparison",
    "Delta",
    "Flip",
    "FlipGroup",
    "ModeGap",
    "MultiComparison",
    "MultiEntry",
    "MultiRow",
    "NoiseCheck",
    "REQUEST_SETTINGS",
    "ServedFlip",
    "ServingComparison",
    "TurnDelta",
    "case_outcomes",
    "cases_to_tell",
    "compare_many",
    "compare_runs",
    "equivalence_interval",
    "gate_verdict",
    "majority",
    "served_outcomes",
    "serving_changes",
    "settings_differences",
    "verdict_for",
]
