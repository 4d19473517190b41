"""Named states: a suite's shared `states`, conversations naming one and listing changes."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

import toolgrade
from toolgrade.environments import environment_factory
from toolgrade.errors import SuiteError
from toolgrade.judging import check_conversations, replay_reference
from toolgrade.suite import Selection, Suite, load_suite, merge_patch, parse_suite, select_cases

WORKSPACE = {"kind": "python", "class": "toolgrade.environments._workspace:Workspace"}
READ = {
    "name": "read_file",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
}
REPO = {"files": {"src/x.py": "print(1)\n", "old.txt": "bye\n", "README.md": "# demo\n"}}


def _conversation(case_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": case_id,
        "environment": "ws",
        "turns": [
            {
                "user": "Read README.md",
                "expected": [{"name": "read_file", "arguments": {"path": "README.md"}}],
            }
        ],
        "reference": [[{"name": "read_file", "arguments": {"path": "README.md"}}]],
        **fields,
    }


def _suite_data(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schema_version": 2,
        "name": "states-demo",
        "version": "1",
        "tools": [READ],
        "environments": {"ws": WORKSPACE},
        "states": {"repo": copy.deepcopy(REPO)},
        "cases": [
            _conversation("C-1", state="repo"),
            _conversation(
                "C-2",
                state="repo",
                initial_state={"files": {"src/x.py": "print(2)\n", "old.txt": None}},
            ),
        ],
    }
    data.update(fields)
    return data


def _parse(data: dict[str, Any], name: str = "s.json") -> Suite:
    return parse_suite(json.dumps(data, indent=2), name=name)


def _problems(data: dict[str, Any]) -> list[str]:
    with pytest.raises(SuiteError) as info:
        _parse(data)
    return list(info.value.problems)


def test_conversations_start_from_the_named_state_with_their_changes() -> None:
    suite = _parse(_suite_data())
    first, second = suite.conversations
    assert first.initial_state == REPO
    assert second.initial_state == {"files": {"src/x.py": "print(2)\n", "README.md": "# demo\n"}}
    assert second.written_state == {"files": {"src/x.py": "print(2)\n", "old.txt": None}}
    # The named state itself is not changed by a conversation's changes.
    assert suite.states["repo"] == REPO


def test_every_consumer_sees_the_resolved_state() -> None:
    suite = _parse(_suite_data())
    second = suite.conversations[1]
    replay = replay_reference(suite, second, environment_factory(suite, second, base_dir=None))
    state = replay.environment.state()
    assert isinstance(state, dict)
    assert state["files"] == {"README.md": "# demo\n", "src/x.py": "print(2)\n"}
    # A selection keeps the conversations as resolved.
    chosen = select_cases(suite, Selection(ids=("C-2",)))
    assert chosen.conversations[0].initial_state == second.initial_state


def test_a_conversation_without_state_keeps_its_initial_state_as_written() -> None:
    data = _suite_data()
    data["cases"][0] = _conversation("C-1", initial_state={"files": {"a": None}})
    suite = _parse(data)
    assert suite.conversations[0].state is None
    assert suite.conversations[0].initial_state == {"files": {"a": None}}


def test_to_dict_writes_the_names_and_the_changes_and_reads_back() -> None:
    suite = _parse(_suite_data())
    written = suite.to_dict()
    assert written["states"] == {"repo": REPO}
    assert [c.get("state") for c in written["cases"]] == ["repo", "repo"]
    assert written["cases"][1]["initial_state"]["files"]["old.txt"] is None
    again = _parse(written)
    assert again == suite and again.content_hash == suite.content_hash
    assert [c.initial_state for c in again.conversations] == [
        c.initial_state for c in suite.conversations
    ]


def test_content_hash_is_of_the_states_conversations_start_from() -> None:
    named = _parse(_suite_data())
    # The same suite with every state written out hashes the same: what runs is the same.
    inline = _suite_data(states={})
    inline.pop("states")
    for case, conversation in zip(inline["cases"], named.conversations, strict=True):
        case.pop("state")
        case["initial_state"] = conversation.initial_state
    assert _parse(inline).content_hash == named.content_hash
    # A changed named state changes it.
    changed = _suite_data()
    changed["states"]["repo"]["files"]["README.md"] = "# other\n"
    assert _parse(changed).content_hash != named.content_hash


def test_unknown_state_is_a_problem_with_file_line_path_and_case() -> None:
    data = _suite_data()
    data["cases"][1]["state"] = "rpeo"
    [problem] = _problems(data)
    assert re.fullmatch(
        r"s\.json:\d+: \$\.cases\[1\]\.state \(case C-2\): state 'rpeo' is not defined"
        r" \(states: repo\)",
        problem,
    )


def test_a_suite_built_in_code_refuses_an_unknown_state() -> None:
    data = _suite_data()
    data["cases"][0]["state"] = "nope"
    with pytest.raises(ValueError, match="case C-1: state 'nope' is not defined"):
        Suite.model_validate(data)


@pytest.mark.parametrize(
    ("states", "expected"),
    [
        ({"repo": []}, "$.states.repo: [] is not of type 'object'"),
        ({"my repo": {}}, "$.states: 'my repo' does not match"),
    ],
)
def test_states_must_be_named_objects(states: dict[str, Any], expected: str) -> None:
    data = _suite_data(states=states)
    data["cases"] = [_conversation("C-1")]
    assert any(expected in p for p in _problems(data)), _problems(data)


def test_states_need_schema_version_2() -> None:
    data = {"schema_version": 1, "name": "v1", "states": {"repo": {}}, "cases": []}
    assert [re.sub(r"^s\.json:\d+: ", "", p) for p in _problems(data)] == [
        "$.states: states need schema_version 2"
    ]


def test_schema_describes_states_and_state() -> None:
    schema = toolgrade.suite_schema()
    assert schema["properties"]["states"]["additionalProperties"] == {"type": "object"}
    assert "state" in schema["$defs"]["conversation"]["properties"]


def test_python_environment_keys_of_a_named_state_must_be_identifiers() -> None:
    data = _suite_data(states={"repo": {"files": {}, "max-size": 3}})
    [problem] = _problems(data)[:1]
    assert "$.cases[0].state (case C-1): state 'repo' has the key 'max-size'" in problem
    # A conversation that removes the key is fine.
    data["cases"] = [_conversation("C-1", state="repo", initial_state={"max-size": None})]
    assert _parse(data).conversations[0].initial_state == {"files": {}}


def _folder(tmp_path: Path, second_states: dict[str, Any]) -> Path:
    first = _suite_data()
    first["cases"] = [first["cases"][0]]
    second = _suite_data(states=second_states)
    second["cases"] = [second["cases"][1]]
    (tmp_path / "a.json").write_text(json.dumps(first, indent=2), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(second, indent=2), encoding="utf-8")
    return tmp_path


def test_folder_states_merge_and_may_be_defined_in_another_file(tmp_path: Path) -> None:
    suite = load_suite(_folder(tmp_path, {}))  # b.json uses a.json's state
    assert [c.initial_state["files"]["src/x.py"] for c in suite.conversations] == [
        "print(1)\n",
        "print(2)\n",
    ]
    same = load_suite(_folder(tmp_path, {"repo": copy.deepcopy(REPO)}))
    assert same.content_hash == suite.content_hash


def test_folder_state_defined_twice_differently_is_a_problem(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {"repo": {"files": {}}})
    with pytest.raises(SuiteError) as info:
        load_suite(folder)
    [problem] = info.value.problems
    assert problem.startswith(f"{folder / 'b.json'}:")
    assert f"$.states.repo: state 'repo' conflicts with its definition in {folder / 'a.json'}" in (
        problem
    )


@pytest.mark.parametrize(
    ("target", "patch", "expected"),
    [
        ({"a": 1}, {"a": 2}, {"a": 2}),
        ({"a": 1, "b": 2}, {"a": None}, {"b": 2}),
        ({"a": {"x": 1, "y": 2}}, {"a": {"y": None, "z": 3}}, {"a": {"x": 1, "z": 3}}),
        ({"a": [1, 2]}, {"a": [3]}, {"a": [3]}),
        ({"a": "text"}, {"a": {"b": None, "c": 1}}, {"a": {"c": 1}}),
        ({}, {"missing": None}, {}),
    ],
)
def test_merge_patch_follows_rfc_7396(
    target: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = copy.deepcopy((target, patch))
    merged = merge_patch(target, patch)
    assert merged == expected
    assert (target, patch) == before  # neither argument changes


def test_merge_patch_shares_nothing_with_its_arguments() -> None:
    target = {"keep": {"deep": [1]}, "change": {"x": 1}}
    patch = {"change": {"y": [2]}}
    merged = merge_patch(target, patch)
    merged["keep"]["deep"].append(9)  # type: ignore[union-attr]
    merged["change"]["y"].append(9)  # type: ignore[index, union-attr]
    assert target == {"keep": {"deep": [1]}, "change": {"x": 1}}
    assert patch == {"change": {"y": [2]}}


def test_docs_named_states_example_loads_and_passes_suite_check(tmp_path: Path) -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "conversations.md"
    text = docs.read_text(encoding="utf-8")
    section = text[text.index("### Named states") :]
    example = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
    module = re.search(r"```python\n(.*?class Workspace:.*?)\n```", text, re.DOTALL)
    assert example is not None and module is not None
    (tmp_path / "suite.json").write_text(example.group(1), encoding="utf-8")
    (tmp_path / "workspace.py").write_text(module.group(1), encoding="utf-8")
    suite = load_suite(tmp_path / "suite.json")
    first, second = suite.conversations
    assert first.state == second.state == "repo"
    assert first.checks.final_state is not None and first.checks.final_state.from_reference
    assert second.initial_state == {"files": {"src/main.py": "pritn('hi')\n"}}
    assert check_conversations(suite, base_dir=tmp_path) == []
