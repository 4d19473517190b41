"""What real small models said, replayed: the verdicts on real output stay in place.

Each recording in tests/data/real (`real_recordings.RECORDINGS`) holds a model's raw
answers to the built-in suite in native and prompt mode and to the first conversations of
the built-in `coding-agent-multiturn` suite, on-policy and teacher-forced (every step of
every conversation), with the suites as they ran. This replays every run without a model
and checks every verdict against the recording's verdicts.json (reviewed by hand;
`TOOLGRADE_UPDATE_REAL=1` rewrites it after a deliberate change of a rule, and the diff is
the change's effect on real output).
"""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest

import toolgrade
from runner.real_recordings import (
    CONVERSATION_MODES,
    RECORDINGS,
    modes,
    recorded,
    replayed,
)

RUNS = [(model, mode) for model in RECORDINGS for mode in modes(model)]
SINGLE_RUNS = [(model, mode) for model, mode in RUNS if mode not in CONVERSATION_MODES]
CONVERSATION_RUNS = [(model, mode) for model, mode in RUNS if mode in CONVERSATION_MODES]
QWEN = "qwen2.5-coder-0.5b"
GEMMA = "gemma3-270m"


def _ids(runs: list[tuple[str, str]]) -> list[str]:
    return [f"{model}-{mode}" for model, mode in runs]


@pytest.mark.parametrize("model", tuple(RECORDINGS))
def test_real_replay_verdicts_match_recorded(model: str) -> None:
    verdicts = {
        mode: {r.case_id: str(r.status) for r in replayed(model, mode).results}
        for mode in modes(model)
    }
    if os.environ.get("TOOLGRADE_UPDATE_REAL") == "1":
        updated = {**recorded(model), "modes": verdicts}
        text = json.dumps(updated, indent=2, ensure_ascii=False) + "\n"
        (RECORDINGS[model] / "verdicts.json").write_text(text, encoding="utf-8")
        return
    assert verdicts == recorded(model)["modes"]


@pytest.mark.parametrize("model", tuple(RECORDINGS))
def test_real_recording_answers_the_builtin_suites_prompts(model: str) -> None:
    # The recorded suites may differ from the built-in ones in what they expect, never in
    # what the model was shown: otherwise the recorded answers answer another question.
    folder = RECORDINGS[model]
    for recorded_name, builtin_name in (
        ("suite.json", "coding-agent"),
        ("conversations-suite.json", "coding-agent-multiturn"),
    ):
        if not (folder / recorded_name).exists():  # a recording without conversations
            continue
        ran = toolgrade.load_suite(folder / recorded_name)
        now = toolgrade.load_suite(builtin_name)
        assert ran.tools == now.tools, recorded_name
        assert ran.defaults.system == now.defaults.system, recorded_name
        shown = {c.id: [(t.user, c.environment) for t in c.turns] for c in now.cases}
        for case in ran.cases:
            assert [(t.user, case.environment) for t in case.turns] == shown[case.id], case.id


@pytest.mark.parametrize(("model", "mode"), CONVERSATION_RUNS, ids=_ids(CONVERSATION_RUNS))
def test_real_replay_conversations_are_the_recorded_ones(model: str, mode: str) -> None:
    results = replayed(model, mode).results
    assert len(results) >= 8
    assert not [r for r in results if r.status == "error"], mode
    wanted = "teacher_forced" if CONVERSATION_MODES[mode] else "on_policy"
    assert {r.conversation.mode for r in results if r.conversation} == {wanted}
    # Every recorded reply was asked for again: nothing recorded is left over.
    lines = (RECORDINGS[model] / f"{mode}.jsonl").read_text(encoding="utf-8").splitlines()
    steps = sum(len(t.steps) for r in results if r.conversation for t in r.conversation.turns)
    assert steps == len(lines), mode


@pytest.mark.parametrize(("model", "mode"), SINGLE_RUNS, ids=_ids(SINGLE_RUNS))
def test_real_replay_every_case_has_a_result(model: str, mode: str) -> None:
    suite = toolgrade.load_suite(RECORDINGS[model] / "suite.json")
    results = replayed(model, mode).results
    assert sorted(r.case_id for r in results) == sorted(c.id for c in suite.cases)
    # An error is only one the server gave while recording (a line without an answer).
    lines = (RECORDINGS[model] / f"{mode}.jsonl").read_text(encoding="utf-8").splitlines()
    failed = sorted(json.loads(line)["case_id"] for line in lines if '"error"' in line)
    assert sorted(r.case_id for r in results if r.status == "error") == failed


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


@pytest.mark.parametrize("mode", ("native", "prompt"))
def test_real_replay_call_shaped_replies_are_calls(mode: str) -> None:
    # A reply that is a call object counts as a call whatever its name: never "no call".
    shaped = [r for r in replayed(QWEN, mode).results if _call_shaped(r)]
    assert shaped, "the recording has call-shaped replies to check"
    for result in shaped:
        assert result.actual, result.case_id
        if not result.expected:  # a no-call case answered with a call object fails
            assert result.status == "unexpected_call", result.case_id
    assert any(not r.expected for r in shaped), "the recording has a no-call case to check"


@pytest.mark.parametrize(
    ("model", "correct"),
    [(QWEN, {"native": 23, "prompt": 28}), (GEMMA, {"native": 11, "prompt": 11})],
)
def test_real_replay_accuracy_per_mode(model: str, correct: dict[str, int]) -> None:
    # The figures the README quotes for the real runs on a 2-core machine.
    counts = {
        mode: Counter(str(r.status) for r in replayed(model, mode).results)["correct"]
        for mode in correct
    }
    assert counts == correct
    assert {mode: len(replayed(model, mode).results) for mode in correct} == dict.fromkeys(
        correct, 85
    )


@pytest.mark.parametrize("mode", ("native", "prompt"))
def test_real_replay_an_echo_of_the_prompt_is_no_call(mode: str) -> None:
    # The pretrained Gemma continues the prompt: it echoes the system prompt and the
    # request (TC-074's JSON content included) and never calls a tool. No echo is read
    # as a call; the only calls are prompt mode's two echoes of the call template
    # (`{"name": "read_file", "arguments": <args-dict>}`), which are malformed.
    results = replayed(GEMMA, mode).results
    assert all(not r.actual for r in results)
    malformed = sorted(r.case_id for r in results if r.status == "parse_error")
    assert malformed == (["TC-004", "TC-033"] if mode == "prompt" else [])
    for result in results:
        if result.status == "parse_error":
            assert "<args-dict>" in str(result.raw_response)
        else:
            assert result.status == ("correct" if not result.expected else "missed_call")
