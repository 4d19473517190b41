"""The decisions section: whether the model called, asked, refused or answered as expected.

The decision is scored on its own, beside the verdict: a result's status is not changed.
Only a run in which some case or turn states its outcome (`CaseResult.expect`,
`TurnResult.expect`) has the section. In such a run every scored single-case result and
every conversation turn with an expected outcome is one *item*: the outcome it states,
else `call` when it expects calls (a case or turn expecting no call and stating nothing
is left out). What the model did is `decision.decision_of` of the result, or
`decision.turn_decision` of the turn; `unclassified` is a fifth column, counted apart
and never right.

Every rate is a plain Wilson interval over the items (tries of a repeated case count
one by one): precision and recall per outcome and decision accuracy over the
classified items; call rate and tool-hallucination rate over every item.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject
from toolgrade._core.transcript import TurnResult
from toolgrade.decision import Decision, decision_of, turn_decision
from toolgrade.results import CaseResult, Status
from toolgrade.stats import Rate, rate_of

__all__ = ["DID", "EXPECTED", "DecisionMetrics", "OutcomeScore", "decision_section"]

EXPECTED: tuple[str, ...] = ("call", "clarify", "refuse", "answer")
"""The four outcomes a case or turn may expect: the matrix's rows, in order."""
DID: tuple[str, ...] = (*EXPECTED, Decision.UNCLASSIFIED.value)
"""What the model may have done: the matrix's columns, `unclassified` last."""


@dataclass(frozen=True, slots=True)
class OutcomeScore:
    """Precision, recall and F1 of one outcome, over the classified items."""

    outcome: str
    """The outcome (`call`, `clarify`, `refuse`, `answer`)."""
    expected: int
    """Items that expected it (the row's total, `unclassified` included)."""
    precision: Rate
    """Items that expected it among the classified items that did it."""
    recall: Rate
    """Classified items that did it among the classified items that expected it."""
    f1: float
    """Harmonic mean of precision and recall (0 when both are 0)."""

    def to_dict(self) -> JsonObject:
        """The outcome's scores as JSON."""
        return {
            "outcome": self.outcome,
            "expected": self.expected,
            "precision": self.precision.to_dict(),
            "recall": self.recall.to_dict(),
            "f1": self.f1,
        }


@dataclass(frozen=True, slots=True)
class DecisionMetrics:
    """Whether the model called, asked, refused or answered as expected (docs/metrics.md)."""

    matrix: dict[str, dict[str, int]]
    """Items per expected outcome (rows: `EXPECTED`) and decision (columns: `DID`),
    zeros included."""
    items: int
    """Items scored: results and conversation turns with an expected outcome."""
    turns: int
    """Of the items, how many are conversation turns."""
    accuracy: Rate
    """Decision accuracy: classified items that did what they expected."""
    abstained: int
    """Items the classifier left `unclassified` (never right, not in `accuracy`)."""
    outcomes: tuple[OutcomeScore, ...]
    """Precision, recall and F1 of every outcome some item expected, in `EXPECTED` order."""
    macro_f1: float
    """Mean F1 over `outcomes` (0 when there is none)."""
    call_rate: Rate
    """Items that called, over every item."""
    accuracy_when_called: Rate
    """Items that called where a call was expected and passed (status `correct`, or the
    turn held), over the items that called where a call was expected."""
    hallucination: Rate
    """Tool-hallucination rate: items that called where no call was right (expected
    outcome not `call`), over the items whose expected outcome is not `call`."""

    def to_dict(self) -> JsonObject:
        """The section as JSON."""
        return {
            "matrix": {row: dict(cols) for row, cols in self.matrix.items()},
            "items": self.items,
            "turns": self.turns,
            "accuracy": self.accuracy.to_dict(),
            "abstained": self.abstained,
            "outcomes": [o.to_dict() for o in self.outcomes],
            "macro_f1": self.macro_f1,
            "call_rate": self.call_rate.to_dict(),
            "accuracy_when_called": self.accuracy_when_called.to_dict(),
            "hallucination": self.hallucination.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class _Item:
    expected: str
    did: str
    passed: bool
    turn: bool


def decision_section(results: Sequence[CaseResult]) -> DecisionMetrics | None:
    """The decisions section of a run; None when no case or turn states an outcome.

    Examples:
        >>> from toolgrade.results import CaseResult
        >>> r = CaseResult(case_id="c", status="missed_call", score=0.0, expect="clarify",
        ...                raw_response={"role": "assistant", "content": "Which branch?"})
        >>> m = decision_section([r])
        >>> m.matrix["clarify"]["clarify"], m.accuracy.rate
        (1, 1.0)
        >>> decision_section([CaseResult(case_id="c", status="correct", score=1.0)]) is None
        True
    """
    if not any(_states_outcome(r) for r in results):
        return None
    items = list(_items(results))
    matrix = {row: dict.fromkeys(DID, 0) for row in EXPECTED}
    for item in items:
        matrix[item.expected][item.did] += 1
    classified = [i for i in items if i.did != Decision.UNCLASSIFIED.value]
    outcomes = tuple(_score(o, matrix, classified) for o in EXPECTED if sum(matrix[o].values()) > 0)
    called = [i for i in items if i.did == Decision.CALL.value]
    right_calls = [i for i in called if i.expected == "call"]
    no_call = [i for i in items if i.expected != "call"]
    return DecisionMetrics(
        matrix=matrix,
        items=len(items),
        turns=sum(i.turn for i in items),
        accuracy=rate_of(sum(i.did == i.expected for i in classified), len(classified)),
        abstained=len(items) - len(classified),
        outcomes=outcomes,
        macro_f1=sum(o.f1 for o in outcomes) / len(outcomes) if outcomes else 0.0,
        call_rate=rate_of(len(called), len(items)),
        accuracy_when_called=rate_of(sum(i.passed for i in right_calls), len(right_calls)),
        hallucination=rate_of(sum(i.did == Decision.CALL.value for i in no_call), len(no_call)),
    )


def _states_outcome(result: CaseResult) -> bool:
    if result.expect is not None:
        return True
    record = result.conversation
    return record is not None and any(t.expect is not None for t in record.turns)


def _items(results: Sequence[CaseResult]) -> Iterator[_Item]:
    for result in results:
        if result.conversation is not None:
            for turn, expected in _turn_items(result):
                did = turn_decision(turn).kind.value
                yield _Item(expected, did, turn.passed, turn=True)
            continue
        if not result.status.scored:
            continue
        outcome = result.expect or _call_expected(result)
        if outcome in EXPECTED:
            did = decision_of(result).kind.value
            yield _Item(outcome, did, result.status is Status.CORRECT, turn=False)


def _turn_items(result: CaseResult) -> Iterator[tuple[TurnResult, str]]:
    """The turns of a conversation that expect an outcome and got a reply."""
    record = result.conversation
    for turn in record.turns if record is not None else ():
        if turn.cause is not None and not turn.cause.scored:
            continue  # the request failed: no reply to classify
        expected = turn.expect or ("call" if turn.expected else None)
        if expected in EXPECTED:
            yield turn, expected


def _call_expected(result: CaseResult) -> str | None:
    """`call` when the case's primary expectation has calls, else None."""
    tools = result.primary_tools if result.primary_tools is not None else result.expected
    return "call" if tools else None


def _score(
    outcome: str, matrix: dict[str, dict[str, int]], classified: list[_Item]
) -> OutcomeScore:
    hits = matrix[outcome][outcome]
    did = sum(i.did == outcome for i in classified)
    expected = sum(i.expected == outcome for i in classified)
    precision, recall = rate_of(hits, did), rate_of(hits, expected)
    both = precision.rate + recall.rate
    return OutcomeScore(
        outcome=outcome,
        expected=sum(matrix[outcome].values()),
        precision=precision,
        recall=recall,
        f1=2 * precision.rate * recall.rate / both if both else 0.0,
    )
