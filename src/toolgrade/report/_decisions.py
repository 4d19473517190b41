"""How a run's decisions section is worded: the confusion matrix and the rates.

The numbers are `RunMetrics.decisions`'s (`DecisionMetrics`); this module only words
them, as a header and rows for the matrix and as `(name, value)` rows for the rates,
which the text, Markdown and HTML reports lay out in their own way. A case's decision
(`case_decision`) carries the words the classifier saw, model text that each report
escapes for its medium.
"""

from __future__ import annotations

from toolgrade.decision import DecisionVerdict, decision_of
from toolgrade.metrics import DID, DecisionMetrics, RunMetrics
from toolgrade.report._plain import pct
from toolgrade.results import CaseResult
from toolgrade.stats import Rate

__all__ = ["case_decision", "decision_matrix", "decision_rows", "decision_verdict"]


def decision_matrix(m: RunMetrics) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The confusion matrix as a header and rows: expected outcome by what the model did.

    The header is `expected / did`, the five decisions and `total`; a row per expected
    outcome some item expected. Empty rows when the run has no decisions section.
    """
    d = m.decisions
    if d is None:
        return (), []
    header = ("expected / did", *DID, "total")
    rows = [
        (row, *(str(n) for n in cols.values()), str(sum(cols.values())))
        for row, cols in d.matrix.items()
        if sum(cols.values())
    ]
    return header, rows


def decision_rows(m: RunMetrics) -> list[tuple[str, str]]:
    """The decisions section's rates as (name, value) rows; empty without the section.

    Rows: `Items` (how many, conversation turns among them, abstentions), `Decision
    accuracy`, one row per expected outcome (precision and recall with their intervals,
    F1), `Macro-F1`, `Call rate`, `Accuracy when called` and `Tool hallucination`.
    """
    d = m.decisions
    if d is None:
        return []
    rows = [("Items", _items(d)), ("Decision accuracy", _rate(d.accuracy))]
    for o in d.outcomes:
        rows.append(
            (
                o.outcome,
                f"precision {_rate(o.precision)} · recall {_rate(o.recall)} · F1 {o.f1:.3f}",
            )
        )
    rows += [
        ("Macro-F1", f"{d.macro_f1:.3f} over {len(d.outcomes)} outcomes"),
        ("Call rate", _rate(d.call_rate)),
        ("Accuracy when called", _rate(d.accuracy_when_called)),
        ("Tool hallucination", _rate(d.hallucination) + ": calls where no call was right"),
    ]
    return rows


def decision_verdict(result: CaseResult) -> DecisionVerdict | None:
    """The decision of a single case that states its outcome; None otherwise."""
    if result.expect is None or result.conversation is not None:
        return None
    return decision_of(result)


def case_decision(result: CaseResult) -> str | None:
    """A case's decision in one line, when it states its outcome; None otherwise.

    Examples: `expected clarify, did call (calls: 1 call)`.
    """
    verdict = decision_verdict(result)
    if verdict is None:
        return None
    seen = f": {verdict.evidence}" if verdict.evidence else ""
    return f"expected {result.expect}, did {verdict.kind.value} ({verdict.rule}{seen})"


def _items(d: DecisionMetrics) -> str:
    turns = f", {d.turns} of them conversation turns" if d.turns else ""
    return f"{d.items}{turns}; unclassified {d.abstained} (never right, not in the accuracy)"


def _rate(rate: Rate) -> str:
    ci = rate.interval
    return (
        f"{pct(rate.rate)} ({rate.passed}/{rate.n}, {ci.level * 100:g}% CI"
        f" {pct(ci.low)} - {pct(ci.high)})"
    )
