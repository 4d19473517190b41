"""compare_runs over conversations: pairing, per-turn deltas, the on-policy/teacher-forced gap."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from toolgrade.cli import app
from toolgrade.cli._compare_text import format_comparison
from toolgrade.compare import compare_runs
from toolgrade.power import minimum_detectable_effect
from toolgrade.results import CaseResult, ConversationRecord
from toolgrade.stats import mcnemar_exact
from toolgrade.store import save_run

runner = CliRunner()


def _talk(case_id: str, turns: str, *, mode: str = "on_policy", repeat: int = 0) -> CaseResult:
    """A conversation with one letter per turn: P passed, F failed, - never reached."""
    reached = turns.rstrip("-")
    passed = "F" not in turns and "-" not in turns
    record = ConversationRecord.model_validate(
        {
            "mode": mode,
            "turns": [
                {"index": i, "user": f"u{i}", "passed": t == "P", "checked": True}
                for i, t in enumerate(reached)
            ],
            "total_turns": len(turns),
            "passed": passed,
            "progress": turns.count("P") / len(turns),
            "first_failure": None if passed else {"cause": "wrong_args", "message": "x"},
        }
    )
    return CaseResult(
        case_id=case_id,
        status="correct" if passed else "wrong_args",  # type: ignore[arg-type]
        score=1.0 if passed else 0.0,
        repeat=repeat,
        conversation=record,
    )


def _talks(rows: list[str], **kwargs: object) -> list[CaseResult]:
    return [_talk(f"conv-{i:02d}", t, **kwargs) for i, t in enumerate(rows)]  # type: ignore[arg-type]


def test_compare_conversations_pair_like_cases_with_mcnemar(make_run) -> None:
    base = make_run(_talks(["PPP"] * 10), run_id="base")
    cand = make_run(_talks(["PFP"] * 8 + ["PPP"] * 2), run_id="cand")
    comp = compare_runs(base, cand)
    assert comp.shared_cases == 10
    assert comp.verdict == "regression"
    assert comp.p_value == pytest.approx(mcnemar_exact(8, 0))
    assert [f.candidate for f in comp.broken] == ["wrong_args"] * 8
    conv = comp.conversations
    assert conv is not None
    assert conv.shared == 10
    assert (conv.baseline_accuracy.passed, conv.candidate_accuracy.passed) == (10, 2)
    assert conv.delta == pytest.approx(-0.8)
    assert conv.p_value == comp.p_value
    assert conv.mode_gap is None


def test_compare_conversations_repeats_reduce_by_majority_per_conversation(make_run) -> None:
    base = make_run([_talk("a", "P", repeat=r) for r in range(3)], run_id="base", repeat=3)
    rows = [_talk("a", t, repeat=r) for r, t in enumerate(["P", "F", "F"])]
    cand = make_run(rows, run_id="cand", repeat=3)
    comp = compare_runs(base, cand)
    assert comp.shared_cases == 1
    assert [f.case_id for f in comp.broken] == ["a"]
    assert comp.conversations is not None
    # Per-turn accuracy counts every scored try.
    (turn,) = comp.conversations.per_turn
    assert (turn.baseline.passed, turn.baseline.n) == (3, 3)  # type: ignore[union-attr]
    assert (turn.candidate.passed, turn.candidate.n) == (1, 3)  # type: ignore[union-attr]


def test_compare_conversations_per_turn_deltas_turn_by_turn(make_run) -> None:
    base = make_run(_talks(["PPP", "PPF", "PF-", "F--"]), run_id="base")
    cand = make_run(_talks(["PPP", "PPP", "PPF", "PF-", "PPPP"]), run_id="cand")
    conv = compare_runs(base, cand).conversations
    assert conv is not None
    assert conv.shared == 4  # conv-04 is only in the candidate
    rows = [
        (d.index, d.baseline.passed, d.baseline.n, d.candidate.passed, d.candidate.n)  # type: ignore[union-attr]
        for d in conv.per_turn
    ]
    assert rows == [(0, 3, 4, 4, 4), (1, 2, 4, 3, 4), (2, 1, 4, 2, 4)]
    assert [d.delta for d in conv.per_turn] == pytest.approx([0.25, 0.25, 0.25])
    assert conv.baseline_progress == pytest.approx((1 + 2 / 3 + 1 / 3 + 0) / 4)
    assert conv.candidate_progress == pytest.approx((1 + 1 + 2 / 3 + 1 / 3) / 4)


def test_compare_conversations_mode_gap_on_policy_vs_teacher_forced(make_run) -> None:
    on_policy = make_run(_talks(["PPP", "PFF", "PF-", "FFF"]), run_id="on")
    forced = make_run(_talks(["PPP", "PPP", "PPF", "FPP"], mode="teacher_forced"), run_id="tf")
    conv = compare_runs(on_policy, forced).conversations
    assert conv is not None
    assert (conv.baseline_modes, conv.candidate_modes) == (("on_policy",), ("teacher_forced",))
    gap = conv.mode_gap
    assert gap is not None
    assert (gap.on_policy.passed, gap.teacher_forced.passed) == (1, 2)
    assert gap.gap == pytest.approx(0.25)
    assert gap.on_policy_side == "baseline"
    swapped = compare_runs(forced, on_policy).conversations
    assert swapped is not None and swapped.mode_gap is not None
    assert swapped.mode_gap.gap == pytest.approx(0.25)
    assert swapped.mode_gap.on_policy_side == "candidate"


def test_compare_conversations_no_mode_gap_when_the_model_differs(make_run) -> None:
    on_policy = make_run(_talks(["PPP"]), run_id="on")
    forced = make_run(_talks(["PPP"], mode="teacher_forced"), run_id="tf", model="other/model")
    conv = compare_runs(on_policy, forced).conversations
    assert conv is not None and conv.mode_gap is None


def test_compare_single_cases_have_no_conversation_block(make_run) -> None:
    rows = [{"case_id": "c1", "status": "correct"}]
    comp = compare_runs(make_run(rows), make_run(rows, run_id="cand"))
    assert comp.conversations is None
    assert "conversations" not in comp.to_dict()
    assert "By Turn" not in format_comparison(comp)


def test_compare_conversations_text_shows_turns_and_compounding(make_run) -> None:
    on_policy = make_run(_talks(["PPP", "PF-"]), run_id="on")
    forced = make_run(_talks(["PPP", "PPP"], mode="teacher_forced"), run_id="tf")
    text = format_comparison(compare_runs(on_policy, forced))
    assert "Conversations: 2 paired" in text
    assert "Mode: on_policy -> teacher_forced" in text
    assert "Error compounding: on-policy 50.0% (1/2) vs teacher-forced 100.0% (2/2):" in text
    assert "gap 50.0 points" in text
    assert "By Turn:" in text
    assert "turn 2:  50.0% (1/2)" in text
    assert "100.0% (2/2)   +50.0" in text


def test_compare_cli_json_carries_the_conversation_comparison(make_run) -> None:
    save_run(make_run(_talks(["PPP", "PF-"]), run_id="20260101-on"))
    save_run(make_run(_talks(["PPP", "PPP"], mode="teacher_forced"), run_id="20260102-tf"))
    result = runner.invoke(app, ["compare", "20260101-on", "20260102-tf", "--json"])
    assert result.exit_code == 0, result.output
    conv = json.loads(result.output)["conversations"]
    assert conv["shared"] == 2
    assert [row["index"] for row in conv["per_turn"]] == [0, 1, 2]
    assert conv["per_turn"][1]["delta"] == pytest.approx(0.5)
    assert conv["mode_gap"]["gap"] == pytest.approx(0.5)
    assert (conv["verdict"], conv["fixed"], conv["broken"]) == ("inconclusive", 1, 0)
    assert conv["discordance"] == pytest.approx(0.5)
    assert conv["mde"] is None  # 2 conversations detect no change that often
    assert conv["cases_to_tell"] > 2
    text = runner.invoke(app, ["compare", "20260101-on", "20260102-tf"])
    assert text.exit_code == 0, text.output
    assert "Error compounding" in text.output


def _singles(n: int) -> list[dict[str, object]]:
    return [{"case_id": f"single-{i:03d}", "status": "correct"} for i in range(n)]


@pytest.mark.parametrize(
    ("singles", "baseline", "candidate", "threshold", "whole", "talks"),
    [
        # 8 of 10 conversations broken: a regression, over the whole and the conversations.
        (0, ["PPP"] * 10, ["PFP"] * 8 + ["PPP"] * 2, 2.0, "regression", "regression"),
        # The same, upwards.
        (0, ["PFP"] * 10, ["PPP"] * 10, 2.0, "improvement", "improvement"),
        # 2 of 10 conversations broken among 300 unchanged single cases: the whole
        # comparison shows equivalence, the 10 conversations cannot tell.
        (300, ["PPP"] * 10, ["PFP"] * 2 + ["PPP"] * 8, 2.0, "equivalent", "inconclusive"),
        # Nothing flipped over 10 conversations, a 50-point margin: equivalent.
        (0, ["PPP"] * 10, ["PPP"] * 10, 50.0, "equivalent", "equivalent"),
        # Nothing flipped, a 2-point margin: 10 conversations cannot show equivalence.
        (0, ["PPP"] * 10, ["PPP"] * 10, 2.0, "inconclusive", "inconclusive"),
    ],
)
def test_compare_conversations_have_their_own_verdict_and_mde(
    make_run,
    singles: int,
    baseline: list[str],
    candidate: list[str],
    threshold: float,
    whole: str,
    talks: str,
) -> None:
    base = make_run([*_singles(singles), *_talks(baseline)], run_id="base")
    cand = make_run([*_singles(singles), *_talks(candidate)], run_id="cand")
    comp = compare_runs(base, cand, threshold=threshold)
    conv = comp.conversations
    assert conv is not None
    assert (comp.verdict, conv.verdict) == (whole, talks)
    fixed = sum(b != "PPP" and c == "PPP" for b, c in zip(baseline, candidate, strict=True))
    broken = sum(b == "PPP" and c != "PPP" for b, c in zip(baseline, candidate, strict=True))
    assert (conv.fixed, conv.broken) == (fixed, broken)
    assert conv.discordance == pytest.approx((fixed + broken) / len(baseline))
    expected_mde = (
        minimum_detectable_effect(len(baseline), conv.discordance) if broken + fixed else None
    )
    assert conv.mde == expected_mde
    assert (conv.cases_to_tell is not None) == (talks == "inconclusive")
    assert conv.delta_interval is not None and conv.equivalence_interval is not None
    assert conv.equivalence_interval.level == pytest.approx(0.9)
    assert conv.delta_interval.low <= conv.delta <= conv.delta_interval.high
    assert (conv.threshold, conv.alpha, conv.power) == (threshold, 0.05, 0.8)
    data = conv.to_dict()
    assert data["verdict"] == talks and data["mde"] == expected_mde
    assert data["cases_to_tell"] == conv.cases_to_tell
    text = format_comparison(comp)
    section = text[text.index("Conversations:") :]
    assert f"  Status: {talks.capitalize()}" in section
    assert f"{fixed + broken} of {len(baseline)} conversations flipped" in section


def test_compare_conversations_inconclusive_says_how_many_conversations_would_tell(
    make_run,
) -> None:
    base = make_run([*_singles(300), *_talks(["PPP"] * 10)], run_id="base")
    cand = make_run([*_singles(300), *_talks(["PFP"] * 2 + ["PPP"] * 8)], run_id="cand")
    conv = compare_runs(base, cand).conversations
    assert conv is not None and conv.cases_to_tell is not None
    assert conv.cases_to_tell > 10
    assert conv.status == (
        "Inconclusive: the suite cannot tell at this size;"
        f" about {conv.cases_to_tell:,} paired conversations would"
    )
    result = format_comparison(compare_runs(base, cand))
    assert f"about {conv.cases_to_tell:,} paired conversations would" in result
