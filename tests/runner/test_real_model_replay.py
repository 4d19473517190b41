"""What a real small model said, replayed: the verdicts on real output stay in place.

`make e2e ARGS="--record tests/data/real"` ran the built-in suite against
Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) on llama-cpp-python, in native and prompt mode, and
recorded every raw answer with the suite as it ran. This replays both runs without a model
and checks every case's verdict against tests/data/real/verdicts.json (reviewed by hand;
`TOOLGRADE_UPDATE_REAL=1` rewrites it after a deliberate change of a rule, and the diff is
the change's effect on real output).
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


def _replayed(mode: str) -> toolgrade.RunResult:
    suite = toolgrade.load_suite(REAL / "suite.json")
    return toolgrade.run_suite(suite, f"replay/{REAL / f'{mode}.jsonl'}", progress="none")


@pytest.fixture(scope="module")
def runs() -> dict[str, toolgrade.RunResult]:
    return {mode: _replayed(mode) for mode in MODES}


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
        mode: Counter(str(r.status) for r in run.results)["correct"] for mode, run in runs.items()
    }
    assert correct == {"native": 23, "prompt": 29}
    assert {mode: len(run.results) for mode, run in runs.items()} == {"native": 85, "prompt": 85}
