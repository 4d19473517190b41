"""The decisions section: the confusion matrix, per-outcome precision and recall,
macro-F1, call rate, accuracy when called and the tool-hallucination rate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolgrade.metrics import DID, EXPECTED, compute_metrics, decision_section
from toolgrade.results import CaseResult, RunResult

RunFactory = Callable[..., RunResult]

REPLIES = {
    "clarify": "Which file do you mean?",
    "refuse": "I can't book flights with the tools I have.",
    "answer": "The capital of France is Paris.",
    "unclassified": "打开文件",
}
CALL = {"name": "read_file", "arguments": {"path": "a.txt"}}


def result(case_id: str, expect: str | None, did: str, *, status: str = "correct") -> CaseResult:
    """A result whose reply the classifier reads as `did`."""
    data: dict[str, Any] = {"case_id": case_id, "status": status, "score": 0.0, "expect": expect}
    if did == "call":
        data["actual"] = [CALL]
    else:
        data["raw_response"] = {"role": "assistant", "content": REPLIES[did]}
    if expect == "call" or expect is None:
        data["expected"] = [CALL]
        data["primary_tools"] = ["read_file"]
    return CaseResult.model_validate(data)


def every_cell() -> list[CaseResult]:
    """One result per cell of the matrix; a call expected and made fails once."""
    out = [result(f"{e}-{d}", e, d) for e in EXPECTED for d in DID]
    out.append(result("call-call-failed", "call", "call", status="wrong_args"))
    return out


def test_every_cell_is_counted_once(make_run: RunFactory) -> None:
    d = compute_metrics(make_run(every_cell())).decisions
    assert d is not None
    assert d.matrix == {e: {k: 1 + (e == k == "call") for k in DID} for e in EXPECTED}
    assert d.items == 21
    assert d.abstained == 4
    assert d.turns == 0


def test_rates_of_every_cell(make_run: RunFactory) -> None:
    d = compute_metrics(make_run(every_cell())).decisions
    assert d is not None
    # Classified: 17; right: 5 (call twice, the three others once).
    assert (d.accuracy.passed, d.accuracy.n) == (5, 17)
    call = d.outcomes[0]
    assert call.outcome == "call"
    assert (call.precision.passed, call.precision.n) == (2, 5)
    assert (call.recall.passed, call.recall.n) == (2, 5)
    clarify = d.outcomes[1]
    assert (clarify.precision.passed, clarify.precision.n) == (1, 4)
    assert (clarify.recall.passed, clarify.recall.n) == (1, 4)
    assert clarify.expected == 5
    assert clarify.f1 == pytest.approx(0.25)
    assert call.f1 == pytest.approx(0.4)
    assert d.macro_f1 == pytest.approx((0.4 + 0.25 * 3) / 4)
    assert (d.call_rate.passed, d.call_rate.n) == (5, 21)
    # Called where a call was expected: two, one of them passed.
    assert (d.accuracy_when_called.passed, d.accuracy_when_called.n) == (1, 2)
    # Called where no call was right: three of the fifteen items not expecting a call.
    assert (d.hallucination.passed, d.hallucination.n) == (3, 15)
    assert 0 < d.hallucination.interval.low < 0.2 < d.hallucination.interval.high


def test_status_is_unchanged_by_the_decision(make_run: RunFactory) -> None:
    run = make_run(every_cell())
    assert [r.status.value for r in run.results].count("correct") == 20


def test_a_run_without_stated_outcomes_has_no_section(make_run: RunFactory) -> None:
    run = make_run([result("a", None, "call"), result("b", None, "clarify")])
    m = compute_metrics(run)
    assert m.decisions is None
    assert "decisions" not in m.to_dict()


def test_unstated_results_expecting_calls_count_as_call(make_run: RunFactory) -> None:
    plain = CaseResult(case_id="n", status="correct", score=1.0)  # no call expected: left out
    run = make_run([result("a", "clarify", "clarify"), result("b", None, "answer"), plain])
    d = compute_metrics(run).decisions
    assert d is not None
    assert d.items == 2
    assert d.matrix["call"]["answer"] == 1


def test_unscored_results_are_left_out() -> None:
    timeout = result("t", "clarify", "clarify", status="timeout")
    d = decision_section([timeout, result("a", "refuse", "refuse")])
    assert d is not None
    assert d.items == 1


def test_conversation_turns_join_the_matrix(make_run: RunFactory) -> None:
    turns = [
        {"index": 0, "user": "Open it", "reply": "Which file do you mean?", "expect": "clarify"},
        {
            "index": 1,
            "user": "a.txt",
            "steps": [{"calls": [CALL]}],
            "expected": [CALL],
        },
        {"index": 2, "user": "Thanks", "reply": "You are welcome."},
    ]
    conversation = CaseResult.model_validate(
        {
            "case_id": "conv",
            "status": "correct",
            "score": 1.0,
            "conversation": {"turns": turns, "passed": True},
        }
    )
    d = compute_metrics(make_run([conversation])).decisions
    assert d is not None
    assert (d.items, d.turns) == (2, 2)
    assert d.matrix["clarify"]["clarify"] == d.matrix["call"]["call"] == 1
    assert (d.accuracy_when_called.passed, d.accuracy_when_called.n) == (1, 1)


def test_to_dict_has_every_row_and_column(make_run: RunFactory) -> None:
    data = compute_metrics(make_run(every_cell())).to_dict()["decisions"]
    assert isinstance(data, dict)
    matrix = data["matrix"]
    assert isinstance(matrix, dict)
    assert list(matrix) == list(EXPECTED)
    assert data["abstained"] == 4
