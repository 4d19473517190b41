"""What a real small model said, replayed: the verdicts on real output stay in place.

`make e2e ARGS="--record tests/data/real"` ran the built-in suite against
Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) on llama-cpp-python, in native and prompt mode, and
recorded every raw answer with the suite as it ran, then the first conversations of the
built-in `coding-agent-multiturn` suite on-policy and teacher-forced (every step of every
conversation). This replays all four runs without a model and checks every verdict
against tests/data/real/verdicts.json (reviewed by hand; `TOOLGRADE_UPDATE_REAL=1`
rewrites it after a deliberate change of a rule, and the diff is the change's effect on
real output).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

import toolgrade

REAL = Path(__file__).resolve().parent.parent / "data" / "real"
MODES = ("native", "prompt")
CONVERSATION_MODES = {"conversations": False, "conversations-forced": True}


def _replayed(mode: str) -> toolgrade.RunResult:
    if mode in CONVERSATION_MODES:
        return _replayed_conversations(mode)
    suite = toolgrade.load_suite(REAL / "suite.json")
    return toolgrade.run_suite(suite, f"replay/{REAL / f'{mode}.jsonl'}", progress="none")


def _replayed_conversations(mode: str) -> toolgrade.RunResult:
    """The recorded conversations (the suite's first ones), replayed step by step."""
    suite = toolgrade.load_suite(REAL / "conversations-suite.json")
    recorded = {
        json.loads(line)["case_id"]
        for line in (REAL / f"{mode}.jsonl").read_text(encoding="utf-8").splitlines()
    }
    ran = suite.model_copy(update={"cases": tuple(c for c in suite.cases if c.id in recorded)})
    options = toolgrade.RunOptions(teacher_forcing=CONVERSATION_MODES[mode], warmup=False)
    return toolgrade.run_suite(ran, f"replay/{REAL / f'{mode}.jsonl'}", options=options)


@pytest.fixture(scope="module")
def runs() -> dict[str, toolgrade.RunResult]:
    return {mode: _replayed(mode) for mode in (*MODES, *CONVERSATION_MODES)}


@pytest.fixture(scope="module")
def recorded() -> dict[str, object]:
    return json.loads((REAL / "verdicts.json").read_text(encoding="utf-8"))


def test_real_replay_verdicts_match_recorded(
    runs: dict[str, toolgrade.RunResult], recorded: dict[str, object]
) -> None:
    verdicts = {mode: {r.case_id: str(r.status) for r in run.results} for mode, run in runs.items()}
    if os.environ.get("TOOLGRADE_UPDATE_REAL") == "1":
        recorded["modes"] = verdicts
        text = json.dumps(recorded, indent=2, ensure_ascii=False) + "\n"
        (REAL / "verdicts.json").write_text(text, encoding="utf-8")
    assert verdicts == recorded["modes"]


def test_real_replay_conversations_are_the_recorded_ones(
    runs: dict[str, toolgrade.RunResult],
) -> None:
    for mode, forced in CONVERSATION_MODES.items():
        results = runs[mode].results
        assert len(results) >= 10
        assert not [r for r in results if r.status == "error"], mode
        wanted = "teacher_forced" if forced else "on_policy"
        assert {r.conversation.mode for r in results if r.conversation} == {wanted}
        # Every recorded reply was asked for again: nothing recorded is left over.
        lines = (REAL / f"{mode}.jsonl").read_text(encoding="utf-8").splitlines()
        steps = sum(len(t.steps) for r in results if r.conversation for t in r.conversation.turns)
        assert steps == len(lines), mode


@pytest.mark.parametrize("mode", MODES)
def test_real_replay_every_case_has_a_result(
    runs: dict[str, toolgrade.RunResult], mode: str
) -> None:
    suite = toolgrade.load_suite(REAL / "suite.json")
    assert sorted(r.case_id for r in runs[mode].results) == sorted(c.id for c in suite.cases)
    assert not [r for r in runs[mode].results if r.status == "error"]


def _call_shaped(result: toolgrade.CaseResult) -> bool:
    """The whole reply (or a whole fenced block) is a JSON call object."""
    raw = result.raw_response
    text = raw.get("content") if isinstance(raw, dict) else raw
    if not isinstance(text, str):
        return False
    body = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    try:
        value = json.loads(body)
    except ValueError:
        return False
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(
        isinstance(i, dict) and "name" in i and ("arguments" in i or "parameters" in i)
        for i in items
    )


@pytest.mark.parametrize("mode", MODES)
def test_real_replay_call_shaped_replies_are_calls(
    runs: dict[str, toolgrade.RunResult], mode: str
) -> None:
    # A reply that is a call object counts as a call whatever its name: never "no call".
    shaped = [r for r in runs[mode].results if _call_shaped(r)]
    assert shaped, "the recording has call-shaped replies to check"
    for result in shaped:
        assert result.actual, result.case_id
        if not result.expected:  # a no-call case answered with a call object fails
            assert result.status == "unexpected_call", result.case_id
    assert any(not r.expected for r in shaped), "the recording has a no-call case to check"


def test_real_replay_accuracy_per_mode(runs: dict[str, toolgrade.RunResult]) -> None:
    # The figures the README quotes for the real run on a 2-core machine.
    correct = {
        mode: Counter(str(r.status) for r in runs[mode].results)["correct"] for mode in MODES
    }
    assert correct == {"native": 23, "prompt": 28}
    assert {mode: len(runs[mode].results) for mode in MODES} == {"native": 85, "prompt": 85}
