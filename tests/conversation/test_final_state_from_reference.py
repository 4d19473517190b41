"""`final_state: {"from_reference": true}`: the state the reference leaves, derived by replay."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import toolgrade
from toolgrade.environments import environment_factory as factory_of
from toolgrade.errors import SuiteError
from toolgrade.judging import _reference, judge_conversation, replay_reference
from toolgrade.judging._suite_check import check_conversations
from toolgrade.suite import Suite, parse_suite

TAG = {
    "name": "tag",
    "parameters": {
        "type": "object",
        "properties": {"label": {"type": "string"}},
        "required": ["label"],
    },
}
# A tracker whose state changes by rule: `tag(label="bug")` sets the label, and a label
# holding `$` keys is written as data (a literal compare must not read it as a matcher).
TRACKER = {
    "kind": "scripted",
    "rules": [
        {
            "when": {"tool": "tag", "arguments": {"label": "bug"}},
            "result": "ok",
            "update": {"labels": {"bug": True}},
        },
        {
            "when": {"tool": "tag", "arguments": {"label": "odd"}},
            "result": "ok",
            "update": {"labels": {"odd": {"$contains": "x"}}},
        },
        {
            "when": {"tool": "tag", "arguments": {"label": "oddx"}},
            "result": "ok",
            "update": {"labels": {"odd": "xx"}},
        },
        {"when": {"tool": "tag"}, "result": "ok", "update": {"labels": {"other": True}}},
    ],
}


def _suite(label: str = "bug", **final: Any) -> Suite:
    data = {
        "schema_version": 2,
        "name": "derived",
        "tools": [TAG],
        "environments": {"tracker": TRACKER},
        "cases": [
            {
                "id": "D-1",
                "environment": "tracker",
                "initial_state": {"labels": {"wontfix": False}},
                "turns": ["Tag the issue as a bug."],
                "checks": {"final_state": {"from_reference": True, **final}},
                "reference": [[{"name": "tag", "arguments": {"label": label}}]],
            }
        ],
    }
    return parse_suite(json.dumps(data), name="derived.json")


def _run(suite: Suite, tmp_path: Path, label: str | None, *, repeat: int = 1) -> Any:
    output = "Done." if label is None else _call(label)
    lines = []
    for r in range(repeat):
        lines.append({"case_id": "D-1", "repeat": r, "turn": 0, "step": 0, "output": output})
        if label is not None:
            lines.append({"case_id": "D-1", "repeat": r, "turn": 0, "step": 1, "output": "Done."})
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    options = toolgrade.RunOptions(warmup=False, repeat=repeat)
    return toolgrade.run_suite(suite, f"replay/{responses}", options=options)


def _call(label: str) -> str:
    return (
        "<tool_call>\n"
        + json.dumps({"name": "tag", "arguments": {"label": label}})
        + "\n</tool_call>"
    )


def test_the_reference_state_passes(tmp_path: Path) -> None:
    [result] = _run(_suite(exact=True), tmp_path, "bug").results
    assert result.status == "correct"


def test_another_state_fails_with_the_path_that_differs(tmp_path: Path) -> None:
    [result] = _run(_suite(exact=True), tmp_path, "feature").results
    assert result.status == "state_mismatch"
    check = next(c for c in result.conversation.checks if c.name == "final_state")
    assert not check.passed
    assert check.message == "state differs: $.labels.bug: missing (expected true) (and 1 more)"


def test_without_exact_other_keys_are_allowed(tmp_path: Path) -> None:
    # The model tags twice: the state holds more than the reference's, which is allowed
    # by the subset compare, and refused by `exact`.
    def twice(exact: bool) -> str:
        lines = [
            {"case_id": "D-1", "turn": 0, "step": 0, "output": _call("bug")},
            {"case_id": "D-1", "turn": 0, "step": 1, "output": _call("feature")},
            {"case_id": "D-1", "turn": 0, "step": 2, "output": "Done."},
        ]
        responses = tmp_path / f"twice-{exact}.jsonl"
        responses.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        options = toolgrade.RunOptions(warmup=False)
        [result] = toolgrade.run_suite(
            _suite(exact=exact), f"replay/{responses}", options=options
        ).results
        return str(result.status)

    assert (twice(False), twice(True)) == ("correct", "state_mismatch")


def test_a_derived_state_is_read_literally(tmp_path: Path) -> None:
    # The reference leaves {"odd": {"$contains": "x"}}: data. A model leaving
    # {"odd": "xx"} would pass if it were read as a matcher; it does not.
    suite = _suite("odd", exact=True)
    assert _run(suite, tmp_path, "odd").results[0].status == "correct"
    assert _run(suite, tmp_path, "oddx").results[0].status == "state_mismatch"


def test_the_reference_is_replayed_once_per_conversation_in_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = _reference.reference_final_state

    def counted(suite: Suite, conversation: Any, factory: Any) -> Any:
        calls.append(conversation.id)
        return real(suite, conversation, factory)

    monkeypatch.setattr(_reference, "reference_final_state", counted)
    run = _run(_suite(exact=True), tmp_path, "bug", repeat=3)
    assert [str(r.status) for r in run.results] == ["correct"] * 3
    assert calls == ["D-1"]


def test_judge_conversation_replays_the_reference_itself_when_not_given() -> None:
    suite = _suite(exact=True)
    conversation = suite.conversations[0]
    factory = factory_of(suite, conversation, base_dir=None)
    replay = replay_reference(suite, conversation, factory)
    silent = replay_reference(suite, conversation, factory, no_calls=True)
    for done, passed in ((replay, True), (silent, False)):
        verdict = judge_conversation(
            suite,
            conversation,
            done.turn_runs,
            initial_state=done.initial_state,
            final_state=done.environment.state(),
        )
        assert verdict.record.passed is passed


def test_an_unknown_reference_state_fails_the_check_with_why() -> None:
    suite = _suite(exact=True)
    conversation = suite.conversations[0]
    replay = replay_reference(suite, conversation, factory_of(suite, conversation, base_dir=None))

    def broken() -> Any:
        raise RuntimeError("the environment could not be built")

    verdict = judge_conversation(
        suite,
        conversation,
        replay.turn_runs,
        initial_state=replay.initial_state,
        final_state=replay.environment.state(),
        reference_state=broken,
    )
    check = next(c for c in verdict.record.checks if c.name == "final_state")
    assert not check.passed
    assert check.message == (
        "the state the reference leaves is not known: RuntimeError: the environment could"
        " not be built"
    )


def test_suite_check_accepts_a_derived_state_and_refuses_one_that_tests_nothing() -> None:
    assert check_conversations(_suite(exact=True), base_dir=None) == []
    # A reference whose call changes nothing leaves the initial state: a model that never
    # calls a tool leaves it too, so the conversation tests nothing.
    inert = _suite(exact=True).model_copy()
    data = inert.to_dict()
    data["environments"]["tracker"]["rules"] = [{"when": {"tool": "tag"}, "result": "ok"}]
    problems = check_conversations(parse_suite(json.dumps(data)), base_dir=None)
    assert [p.render() for p in problems] == [
        "case D-1: passes with no tool call at all: its checks do not need any tool use"
    ]


def test_from_reference_needs_a_reference() -> None:
    data = _suite(exact=True).to_dict()
    data["cases"][0]["reference"] = None
    with pytest.raises(SuiteError) as info:
        parse_suite(json.dumps(data, indent=2), name="derived.json")
    assert [re.sub(r"^derived\.json:\d+: ", "", p) for p in info.value.problems] == [
        "$.cases[0].checks.final_state.from_reference (case D-1): final_state from_reference"
        " needs a reference: the state it leaves is expected"
    ]
    with pytest.raises(ValueError, match="final_state from_reference needs a reference"):
        Suite.model_validate(data)


def test_written_back_as_from_reference() -> None:
    suite = _suite(exact=True)
    written = suite.to_dict()["cases"][0]["checks"]["final_state"]
    assert written == {"from_reference": True, "exact": True}
    assert parse_suite(json.dumps(suite.to_dict())) == suite
