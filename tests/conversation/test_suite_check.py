"""`check_conversations`: a suite's references are replayed and refused when broken."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolgrade.judging._suite_check import (
    ConversationProblem,
    check_conversation,
    check_conversations,
)
from toolgrade.suite import Suite, load_suite

WORKSPACE = {"kind": "python", "class": "toolgrade.environments._workspace:Workspace"}
TOOLS = [
    {
        "name": "read_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
    {"name": "tick", "parameters": {"type": "object", "properties": {}}},
]
FLAKY = '''
"""A test environment whose results depend on how many instances came before."""

_BUILT = [0]


class Flaky:
    def __init__(self, **state):
        _BUILT[0] += 1
        self._n = _BUILT[0]

    def tick(self):
        return {"n": self._n}

    def state(self):
        return {"ticks": 1}
'''


def _conversation(**changes: Any) -> dict[str, Any]:
    conversation: dict[str, Any] = {
        "id": "C-1",
        "environment": "ws",
        "tools": ["read_file"],
        "initial_state": {"files": {"a.txt": "hello"}},
        "turns": [
            {
                "user": "Read a.txt",
                "expected": [{"name": "read_file", "arguments": {"path": "a.txt"}}],
                "reply": {"$contains": "hello"},
            }
        ],
        "reference": [
            {
                "calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}],
                "reply": "It says hello.",
            }
        ],
    }
    conversation.update(changes)
    return conversation


def _suite(*conversations: dict[str, Any], env: dict[str, Any] | None = None) -> Suite:
    return Suite.model_validate(
        {
            "schema_version": 2,
            "name": "s",
            "tools": TOOLS,
            "environments": {"ws": env or WORKSPACE},
            "cases": list(conversations),
        }
    )


def _kinds(problems: list[ConversationProblem]) -> list[str]:
    return [p.kind for p in problems]


def test_suite_check_sound_reference_has_no_problem() -> None:
    assert check_conversations(_suite(_conversation()), base_dir=None) == []


def test_suite_check_broken_reference_is_refused() -> None:
    broken = _conversation(
        reference=[
            {
                "calls": [{"name": "read_file", "arguments": {"path": "b.txt"}}],
                "reply": "It says hello.",
            }
        ]
    )
    (problem,) = check_conversations(_suite(broken), base_dir=None)
    assert problem.kind == "reference_fails" and not problem.warning
    assert problem.render().startswith("case C-1: the reference fails its own checks: turn 1")
    assert "wrong_args" in problem.message


def test_suite_check_reference_failing_final_state_names_the_check() -> None:
    conversation = _conversation(checks={"final_state": {"state": {"files": {"a.txt": "bye"}}}})
    (problem,) = check_conversations(_suite(conversation), base_dir=None)
    assert problem.kind == "reference_fails"
    assert "check final_state: state_mismatch" in problem.message


def test_suite_check_conversation_passing_without_calls_is_refused() -> None:
    idle = _conversation(
        turns=[{"user": "Say hi"}],
        checks={"unchanged": ["/files"]},
        reference=[{"calls": [], "reply": "hi"}],
    )
    (problem,) = check_conversations(_suite(idle), base_dir=None)
    assert problem.kind == "passes_without_calls"
    assert "passes with no tool call at all" in problem.render()


def test_suite_check_non_deterministic_python_environment_is_refused(tmp_path: Path) -> None:
    (tmp_path / "flaky.py").write_text(FLAKY, encoding="utf-8")
    conversation = _conversation(
        tools=["tick"],
        initial_state={},
        turns=[{"user": "Tick", "expected": [{"name": "tick", "arguments": {}}]}],
        reference=[{"calls": [{"name": "tick", "arguments": {}}], "reply": "done"}],
    )
    suite = _suite(conversation, env={"kind": "python", "class": "flaky:Flaky"})
    problems = check_conversation(suite, suite.conversations[0], base_dir=tmp_path)
    assert _kinds(problems) == ["not_deterministic"]
    assert problems[0].message == (
        "the environment is not deterministic: turn 1, call 1: the tool result differs at /result/n"
    )


def test_suite_check_without_reference_warns_only() -> None:
    conversation = _conversation()
    del conversation["reference"]
    (problem,) = check_conversations(_suite(conversation), base_dir=None)
    assert problem.warning and problem.kind == "no_reference"
    assert (
        problem.render() == "warning: case C-1: has no reference, so suite check cannot replay it"
    )


def test_suite_check_unloadable_environment_is_a_problem(tmp_path: Path) -> None:
    suite = _suite(_conversation(), env={"kind": "python", "class": "no_such_module:Nope"})
    (problem,) = check_conversations(suite, base_dir=tmp_path)
    assert problem.kind == "environment" and "no_such_module" in problem.message


def test_suite_check_suite_file_next_to_its_environment(tmp_path: Path) -> None:
    (tmp_path / "flaky.py").write_text(FLAKY, encoding="utf-8")
    sound = _conversation()
    flaky = _conversation(
        id="C-2",
        environment="flaky",
        tools=["tick"],
        initial_state={},
        turns=[{"user": "Tick", "expected": [{"name": "tick", "arguments": {}}]}],
        reference=[{"calls": [{"name": "tick", "arguments": {}}], "reply": "done"}],
    )
    data = {
        "schema_version": 2,
        "name": "s",
        "tools": TOOLS,
        "environments": {"ws": WORKSPACE, "flaky": {"kind": "python", "class": "flaky:Flaky"}},
        "cases": [sound, flaky],
    }
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    problems = check_conversations(load_suite(path), base_dir=tmp_path)
    assert [(p.case_id, p.kind) for p in problems] == [("C-2", "not_deterministic")]


@pytest.mark.parametrize(
    ("a", "b", "where"),
    [
        ({"x": [1, 2]}, {"x": [1, 3]}, "/x/1"),
        ({"x": [1]}, {"x": [1, 2]}, "/x/1"),
        ({"a/b": 1}, {"a/b": 1.5}, "/a~1b"),
        ({"k": 1}, {}, "/k"),
        (1, True, "/"),
    ],
)
def test_suite_check_difference_gives_a_json_pointer(a: Any, b: Any, where: str) -> None:
    from toolgrade.judging._suite_check import _difference

    assert _difference(a, b) == where
