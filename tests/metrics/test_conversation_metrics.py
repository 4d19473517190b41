"""The conversations section of `compute_metrics` over hand-built conversation results."""

from __future__ import annotations

import json

import pytest

from toolgrade._core.transcript import FAILURE_CAUSES
from toolgrade.metrics import ConversationMetrics, compute_metrics, pass_hat_k, rate_of
from toolgrade.results import CaseResult, ConversationRecord

CALL = {"name": "read_file", "arguments": {"path": "a.md"}}


def _talk(
    case_id: str,
    turns: str,
    *,
    total: int | None = None,
    status: str | None = None,
    cause: str | None = None,
    repeat: int = 0,
    mode: str = "on_policy",
    calls_per_turn: int = 1,
    reference: int | None = None,
    precision: float | None = None,
    recall: float | None = None,
) -> CaseResult:
    """A conversation result: `turns` has one letter per reached turn, P passed, F failed."""
    total = len(turns) if total is None else total
    passed = turns == "P" * total
    made = len(turns) * calls_per_turn
    record = ConversationRecord.model_validate(
        {
            "mode": mode,
            "turns": [
                {
                    "index": i,
                    "user": f"u{i}",
                    "steps": [{"calls": [CALL] * calls_per_turn}, {"raw_response": "done"}],
                    "passed": t == "P",
                    "checked": True,
                }
                for i, t in enumerate(turns)
            ],
            "total_turns": total,
            "passed": passed,
            "progress": turns.count("P") / total,
            "first_failure": None if passed else {"cause": cause or "wrong_args", "message": "x"},
            "precision": precision,
            "recall": recall,
            "f1": None if precision is None else 0.0,
        }
    )
    return CaseResult.model_validate(
        {
            "case_id": case_id,
            "status": status or ("correct" if passed else cause or "wrong_args"),
            "score": 1.0 if passed else 0.5,
            "actual": [CALL] * made,
            "expected": [CALL] * (reference or 0),
            "repeat": repeat,
            "conversation": record,
        }
    )


def _section(make_run, results: list[CaseResult]) -> ConversationMetrics | None:
    """The conversations section of a run of `results` (repeats from their indexes)."""
    return compute_metrics(make_run(results)).conversations


def test_conversation_metrics_single_case_run_has_none(make_run) -> None:
    run = make_run([{"case_id": "c1", "status": "correct"}])
    m = compute_metrics(run)
    assert m.conversations is None
    assert "conversations" not in m.to_dict()


def test_conversation_metrics_counts_unreached_turns_as_failed(make_run) -> None:
    results = [
        _talk("a", "PPP"),
        _talk("b", "PF", total=3, cause="wrong_args"),
        _talk("c", "F", total=3, cause="step_limit"),
        _talk("d", "P", total=3, cause="timeout", status="timeout"),
        _talk("e", "PPPPP"),
    ]
    m = compute_metrics(make_run(results)).conversations
    assert m is not None
    assert (m.total, m.scored, m.timeouts, m.errors) == (5, 4, 1, 0)
    assert (m.accuracy.passed, m.accuracy.n) == (2, 4)
    assert m.mean_progress == pytest.approx((1 + 1 / 3 + 0 + 1) / 4)
    per_turn = [(t.index, t.rate.passed, t.rate.n) for t in m.per_turn]
    assert per_turn == [(0, 3, 4), (1, 2, 4), (2, 2, 4), (3, 1, 1), (4, 1, 1)]
    assert m.mean_score == pytest.approx((1 + 0.5 + 0.5 + 1) / 4)
    assert m.mean_steps == pytest.approx((6 + 4 + 2 + 10) / 4)
    assert m.mean_calls == pytest.approx((3 + 2 + 1 + 5) / 4)
    assert m.modes == ("on_policy",)
    assert m.by_mode["on_policy"].rate == 0.5


def test_conversation_metrics_failure_causes_in_fixed_order_with_zeros(make_run) -> None:
    results = [
        _talk("a", "F", cause="forbidden_call"),
        _talk("b", "F", cause="forbidden_call"),
        _talk("c", "PF", cause="uncovered_call"),
        _talk("d", "", total=2, cause="error", status="error"),
        _talk("e", "P"),
    ]
    m = _section(make_run, results)
    assert m is not None
    assert tuple(m.failure_causes) == FAILURE_CAUSES
    assert m.failure_causes["forbidden_call"] == 2
    assert m.failure_causes["uncovered_call"] == 1
    assert m.failure_causes["error"] == 1
    assert sum(m.failure_causes.values()) == 4
    assert m.errors == 1


def test_conversation_metrics_trajectory_prf_is_micro_over_calls(make_run) -> None:
    results = [
        # 2 calls made, 2 in the reference, both matched.
        _talk("a", "PP", reference=2, precision=1.0, recall=1.0),
        # 4 calls made, 2 in the reference, 1 matched.
        _talk("b", "PPPP", reference=2, precision=0.25, recall=0.5),
        # 0 calls made (turn failed without a call), 3 in the reference.
        _talk("c", "F", calls_per_turn=0, reference=3, precision=0.0, recall=0.0),
        # No reference: left out of the pool.
        _talk("d", "PPPPPP"),
    ]
    m = _section(make_run, results)
    assert m is not None
    assert m.with_reference == 3
    assert m.precision == pytest.approx(3 / 6)
    assert m.recall == pytest.approx(3 / 7)
    assert m.f1 == pytest.approx(2 * (3 / 6) * (3 / 7) / (3 / 6 + 3 / 7))


def test_conversation_metrics_without_reference_has_no_prf(make_run) -> None:
    m = _section(make_run, [_talk("a", "P")])
    assert m is not None
    assert (m.precision, m.recall, m.f1, m.with_reference) == (None, None, None, 0)


def test_conversation_metrics_modes_listed_and_split(make_run) -> None:
    results = [_talk("a", "P"), _talk("b", "F", mode="teacher_forced")]
    m = _section(make_run, results)
    assert m is not None
    assert m.modes == ("on_policy", "teacher_forced")
    assert {k: r.rate for k, r in m.by_mode.items()} == {"on_policy": 1.0, "teacher_forced": 0.0}


def _tries(outcomes: dict[str, str]) -> list[CaseResult]:
    return [
        _talk(cid, "P" if o == "P" else "F", repeat=r)
        for cid, row in outcomes.items()
        for r, o in enumerate(row)
    ]


def test_pass_hat_k_three_repeats_all_passed_and_unbiased(make_run) -> None:
    results = _tries({"a": "PPP", "b": "PPF", "c": "FFF", "d": "PPP"})
    m = compute_metrics(make_run(results, repeat=3), seed=5)
    assert m.conversations is not None
    p = m.conversations.pass_hat_k
    assert p is not None
    assert (p.k, p.conversations, p.resamples) == (3, 4, 2000)
    assert p.all_passed == pytest.approx(0.5)
    assert p.unbiased == pytest.approx(0.5)
    assert p.curve == pytest.approx(((1 + 2 / 3 + 0 + 1) / 4, (1 + 1 / 3 + 0 + 1) / 4, 0.5))
    assert p.all_passed_interval.contains(0.5)
    assert 0.0 <= p.all_passed_interval.low < 0.5 < p.all_passed_interval.high <= 1.0
    again = compute_metrics(make_run(results, repeat=3), seed=5).conversations
    assert again is not None and again.pass_hat_k == p
    json.dumps(m.to_dict())


def test_pass_hat_k_unbiased_differs_from_all_passed_with_more_tries() -> None:
    # 4 tries, k = 3: the first three passed, the fourth failed.
    p = pass_hat_k([("a", r, r < 3) for r in range(4)], 3)
    assert p is not None
    assert p.all_passed == 1.0
    assert p.unbiased == pytest.approx(1 / 4)  # C(3,3) / C(4,3)


def test_pass_hat_k_leaves_out_conversations_with_too_few_scored_tries(make_run) -> None:
    results = _tries({"a": "PPP", "b": "PP"})
    m = _section(make_run, results)
    assert m is not None and m.pass_hat_k is not None
    assert m.pass_hat_k.conversations == 1
    assert pass_hat_k([("b", 0, True)], 3) is None


def test_pass_hat_k_absent_without_repeats(make_run) -> None:
    m = _section(make_run, _tries({"a": "P"}))
    assert m is not None and m.pass_hat_k is None


def test_pass_hat_k_repeat_order_not_result_order() -> None:
    # The first k tries are by repeat index, whatever order the results come in.
    p = pass_hat_k([("a", 2, False), ("a", 0, True), ("a", 1, True)], 2)
    assert p is not None and p.all_passed == 1.0


def test_conversations_section_counts_only_conversations_run_counts_all(make_run) -> None:
    results = [
        _talk("a", "P"),
        _talk("b", "F", cause="wrong_args"),
        _talk("c", "P", status="timeout"),
        {"case_id": "s1", "status": "correct"},
        {"case_id": "s2", "status": "missed_call"},
    ]
    m = compute_metrics(make_run(results))
    assert (m.total, m.scored, m.passed, m.timeouts) == (5, 4, 2, 1)
    c = m.conversations
    assert c is not None
    assert (c.total, c.scored, c.timeouts, c.errors) == (3, 2, 1, 0)
    assert (c.accuracy.passed, c.accuracy.n) == (1, 2)


def test_conversation_accuracy_and_per_turn_cluster_by_conversation(make_run) -> None:
    # Three tries of four conversations: two always pass, two always fail.
    results = _tries({"a": "PPP", "b": "PPP", "c": "FFF", "d": "FFF"})
    m = _section(make_run, results)
    assert m is not None
    assert (m.accuracy.passed, m.accuracy.n) == (6, 12)
    per_try = rate_of(6, 12).interval
    # 12 tries of 4 steady conversations are worth about 4 trials, not 12.
    assert m.accuracy.interval.width > per_try.width * 1.4
    assert m.per_turn[0].rate.interval == m.accuracy.interval
    assert m.by_mode["on_policy"].interval == m.accuracy.interval
