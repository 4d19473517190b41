"""Comparing runs: baseline vs candidate with a regression verdict, or several side by side."""

from toolgrade.compare._conversations import ConversationComparison, ModeGap, TurnDelta
from toolgrade.compare._many import MultiComparison, MultiEntry, MultiRow, compare_many
from toolgrade.compare._outcomes import case_outcomes
from toolgrade.compare._runs import Comparison, Delta, Flip, Verdict, compare_runs, verdict_for

__all__ = [
    "Comparison",
    "ConversationComparison",
    "Delta",
    "Flip",
    "ModeGap",
    "MultiComparison",
    "MultiEntry",
    "MultiRow",
    "TurnDelta",
    "Verdict",
    "case_outcomes",
    "compare_many",
    "compare_runs",
    "verdict_for",
]
