"""The suite file format version 2: conversations and environments load, round-trip, merge.

Version 1 files keep loading exactly as before (same content hashes), and a version 1 file
holding a conversation or an environment is refused with a message that says why.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

import toolgrade
from toolgrade import SuiteError, load_suite, parse_suite
from toolgrade.cli._app import app
from toolgrade.suite import Conversation, PythonEnvironment, ScriptedEnvironment, _schema

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data" / "suite"

# Hashes of version 1 suites computed by toolgrade before schema_version 2 existed
# (commit 18f6fe1): the new format must not change how an old suite hashes. The built-in
# coding-agent suite at that commit (version 1.1) is kept as a file for it.
V1_HASHES = {
    str(DATA / "valid" / "coding-agent-1.1.json"): (
        "sha256:341987db46e4f4383ebd00501f99ae16d9adef7bfbab3234676581296f42addf"
    ),
    str(ROOT / "examples" / "custom-suite.json"): (
        "sha256:4e7ea9d818bf6c069923e1603e1c9d26538679e47c0bbdc305404b89e1a7b29d"
    ),
    str(DATA / "valid" / "full.json"): (
        "sha256:1f4d8dce6f017b4c54106d0d87e206f57541e5051ac0dd65e5733e5078371d19"
    ),
    str(DATA / "merge_ok"): (
        "sha256:60747eed1b5dfe5d1df8ab77236fab292da5cfa2d9b810b60e35d6127c41b6fb"
    ),
}


@pytest.fixture(params=["fast", "pure"])
def validator_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with the jsonschema-rs fast path, and with jsonschema alone."""
    if request.param == "pure":
        monkeypatch.setattr(_schema, "_fast_validator", lambda: None)
    return str(request.param)


def _tool(name: str, *required: str) -> dict[str, Any]:
    props = {arg: {"type": "string"} for arg in required}
    return {
        "name": name,
        "description": f"The {name} tool.",
        "parameters": {"type": "object", "properties": props, "required": list(required)},
    }


def v2_suite() -> dict[str, Any]:
    """A version 2 suite using every field of the conversation format."""
    return {
        "schema_version": 2,
        "name": "conv",
        "version": "1",
        "tools": [_tool("read_file", "path"), _tool("write_file", "path", "content")],
        "environments": {
            "ws": {"kind": "python", "class": "envs.files:Workspace", "description": "files"},
            "canned": {
                "kind": "scripted",
                "rules": [
                    {
                        "when": {"tool": "read_file", "arguments": {"path": {"$regex": ".*\\.md"}}},
                        "result": "# Title",
                        "update": {"reads": 1},
                    },
                    {"when": {"tool": "write_file"}, "result": {"ok": True}},
                ],
                "default": {"error": "no such file"},
            },
        },
        "cases": [
            {
                "id": "S-1",
                "prompt": "Read a.md",
                "expected": {"tool": "read_file", "arguments": {"path": "a.md"}},
            },
            {
                "id": "C-1",
                "category": "multi_turn",
                "tags": ["edit"],
                "difficulty": "hard",
                "system": "Be brief.",
                "tools": ["read_file"],
                "environment": "ws",
                "initial_state": {"files": {"a.md": "helo"}},
                "turns": [
                    {
                        "user": "Read a.md",
                        "expected": {"tool": "read_file", "arguments": {"path": "a.md"}},
                        "alternatives": [None],
                        "order": "strict",
                        "reply": {"$contains": "helo"},
                        "max_steps": 3,
                    },
                    {
                        "user": "Fix it",
                        "add_tools": ["write_file"],
                        "expected": [
                            {
                                "tool": "write_file",
                                "arguments": {"path": "a.md", "content": "hello"},
                            },
                        ],
                    },
                    "Thanks",
                ],
                "fail": [{"tool": "read_file", "nth": 1, "result": {"error": "busy"}}],
                "checks": {
                    "final_state": {"state": {"files": {"a.md": "hello"}}, "exact": False},
                    "unchanged": ["/files/b.md", "/a~1b/~0c", ""],
                    "trajectory": {
                        "calls": [
                            {
                                "tool": "write_file",
                                "arguments": {"path": "a.md", "content": {"$present": True}},
                            }
                        ],
                        "mode": "superset",
                    },
                    "forbidden": [
                        {"tool": "write_file", "arguments": {"path": {"$regex": "/etc/.*"}}}
                    ],
                    "max_calls": 4,
                    "success": ["turns", "final_state", "forbidden"],
                },
                "reference": [
                    {
                        "calls": [{"tool": "read_file", "arguments": {"path": "a.md"}}],
                        "reply": "It says helo.",
                    },
                    [{"tool": "write_file", "arguments": {"path": "a.md", "content": "hello"}}],
                    None,
                ],
                "rubric": "binary",
                "notes": "why",
            },
            {"id": "C-2", "turns": ["hi"], "environment": "canned"},
        ],
    }


def test_v2_suite_loads_conversations_and_environments(validator_mode: str) -> None:
    suite = parse_suite(json.dumps(v2_suite()))
    assert suite.schema_version == 2
    assert [c.id for c in suite.single_cases] == ["S-1"]
    conv = suite.conversations[0]
    assert isinstance(conv, Conversation) and not conv.single and conv.id == "C-1"
    assert isinstance(suite.environments["ws"], PythonEnvironment)
    assert suite.environments["ws"].class_ == "envs.files:Workspace"
    assert isinstance(suite.environments["canned"], ScriptedEnvironment)
    assert conv.deciding() == ("turns", "final_state", "forbidden")
    assert [t.name for t in suite.tools_for_turn(conv, 0)] == ["read_file"]
    assert [t.name for t in suite.tools_for_turn(conv, 1)] == ["read_file", "write_file"]
    assert conv.turns[2].user == "Thanks" and conv.reference is not None
    assert conv.reference[2].calls == ()
    assert suite.conversations[1].category == "multi_turn"


def test_v2_suite_round_trips_through_to_dict() -> None:
    suite = parse_suite(json.dumps(v2_suite()))
    data = suite.to_dict()
    assert data["schema_version"] == 2 and "environments" in data
    again = parse_suite(json.dumps(data))
    assert again == suite
    assert again.content_hash == suite.content_hash


def test_v2_content_hash_sees_environment_and_turn_edits() -> None:
    base = parse_suite(json.dumps(v2_suite())).content_hash
    edited = v2_suite()
    edited["environments"]["canned"]["default"] = None
    other = v2_suite()
    other["cases"][1]["turns"][2] = "Thank you"
    hashes = {base, parse_suite(json.dumps(edited)).content_hash}
    hashes.add(parse_suite(json.dumps(other)).content_hash)
    assert len(hashes) == 3


@pytest.mark.parametrize("source", sorted(V1_HASHES), ids=lambda s: Path(s).name)
def test_v1_suite_content_hash_unchanged_by_version_2(source: str) -> None:
    suite = load_suite(source)
    assert suite.schema_version == 1
    assert suite.content_hash == V1_HASHES[source]
    assert "environments" not in suite.to_dict()


def test_v1_with_empty_environments_still_loads() -> None:
    data = v2_suite()
    data["schema_version"] = 1
    data["environments"] = {}
    data["cases"] = data["cases"][:1]
    assert parse_suite(json.dumps(data)).schema_version == 1


def test_v1_with_conversation_is_refused_with_clear_message(validator_mode: str) -> None:
    data = v2_suite()
    data["schema_version"] = 1
    with pytest.raises(SuiteError) as info:
        parse_suite(json.dumps(data, indent=2), name="old.json")
    problems = [re.sub(r"^old\.json:\d+: ", "", p) for p in info.value.problems]
    assert problems == [
        "$.cases[1] (case C-1): conversations need schema_version 2",
        "$.cases[2] (case C-2): conversations need schema_version 2",
        "$.environments: environments need schema_version 2",
    ]


def test_schema_version_3_is_refused() -> None:
    data = v2_suite()
    data["schema_version"] = 3
    with pytest.raises(SuiteError) as info:
        parse_suite(json.dumps(data))
    assert info.value.problems == ("<suite>:1: $.schema_version: 3 is not one of [1, 2]",)


def test_schema_accepts_v2_suite_and_rejects_it_as_version_1() -> None:
    validator = Draft202012Validator(toolgrade.suite_schema())
    data = v2_suite()
    assert [e.message for e in validator.iter_errors(data)] == []
    data["schema_version"] = 1
    assert not validator.is_valid(data)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda c: c["turns"][0].update(expcted=[]),
            "$.cases[1].turns[0] (case C-1): unknown key(s) ('expcted' was unexpected)",
        ),
        (
            lambda c: c.update(prompt="p"),
            "$.cases[1] (case C-1): unknown key(s) ('prompt' was unexpected)",
        ),
        (
            lambda c: c["turns"].__setitem__(1, 5),
            "$.cases[1].turns[1] (case C-1): 5 is not of type 'string', 'object'",
        ),
        (
            lambda c: c["turns"][0].update(max_steps=0),
            "$.cases[1].turns[0].max_steps (case C-1): 0 is less than the minimum of 1",
        ),
        (
            lambda c: c["checks"]["trajectory"].update(mode="sorted"),
            "$.cases[1].checks.trajectory.mode (case C-1): 'sorted' is not one of "
            "['exact', 'in_order', 'unordered', 'subset', 'superset']",
        ),
        (
            lambda c: c["checks"].update(success=["turns", "speed"]),
            "$.cases[1].checks.success[1] (case C-1): 'speed' is not one of "
            "['turns', 'final_state', 'unchanged', 'trajectory', 'forbidden', 'max_calls']",
        ),
        (
            lambda c: c["checks"]["forbidden"].append({"arguments": {}}),
            "$.cases[1].checks.forbidden[1] (case C-1): a call needs the tool's name ('tool' or 'name')",
        ),
        (
            lambda c: c["fail"][0].update(nth=0),
            "$.cases[1].fail[0].nth (case C-1): 0 is less than the minimum of 1",
        ),
        (
            lambda c: c["reference"][0].update(calls=[], replies="x"),
            "$.cases[1].reference[0] (case C-1): unknown key(s) ('replies' was unexpected)",
        ),
        (
            lambda c: c.update(turns=[]),
            "$.cases[1].turns (case C-1): [] should be non-empty",
        ),
        (
            lambda c: c["checks"].update(final_state={"exact": True}),
            "$.cases[1].checks.final_state (case C-1): give the expected state as 'state', or"
            " 'from_reference': true (the state the reference leaves), not both",
        ),
    ],
    ids=[
        "turn-typo",
        "prompt-in-conversation",
        "turn-not-object",
        "max-steps",
        "trajectory-mode",
        "success-name",
        "forbidden-without-tool",
        "fail-nth",
        "reference-key",
        "no-turns",
        "final-state-without-state",
    ],
)
def test_schema_errors_name_the_conversation_field(
    edit: Any, expected: str, validator_mode: str
) -> None:
    data = v2_suite()
    edit(data["cases"][1])
    with pytest.raises(SuiteError) as info:
        parse_suite(json.dumps(data, indent=2), name="s.json")
    assert [re.sub(r"^s\.json:\d+: ", "", p) for p in info.value.problems] == [expected]


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        (
            {"kind": "python", "class": "no-colon"},
            "$.environments.ws.class: a python environment's class is 'module:Class' (e.g. 'workspace:Workspace')",
        ),
        ({"kind": "python"}, "$.environments.ws: 'class' is a required property"),
        (
            {"kind": "shell", "class": "a:B"},
            "$.environments.ws.kind: 'shell' is not one of ['scripted', 'python']",
        ),
        (
            {"kind": "scripted", "rules": [{"when": {}}]},
            "$.environments.ws.rules[0].when: 'tool' is a required property",
        ),
        (
            {"kind": "scripted", "class": "a:B"},
            "$.environments.ws: unknown key(s) ('class' was unexpected)",
        ),
    ],
    ids=[
        "class-pattern",
        "class-missing",
        "kind-unknown",
        "rule-without-tool",
        "scripted-with-class",
    ],
)
def test_schema_errors_name_the_environment_field(
    environment: dict[str, Any], expected: str, validator_mode: str
) -> None:
    data = v2_suite()
    data["environments"]["ws"] = environment
    with pytest.raises(SuiteError) as info:
        parse_suite(json.dumps(data, indent=2), name="s.json")
    assert [re.sub(r"^s\.json:\d+: ", "", p) for p in info.value.problems] == [expected]


def _write(folder: Path, name: str, data: dict[str, Any]) -> Path:
    path = folder / name
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def test_merge_directory_unions_environments_and_takes_highest_schema_version(
    tmp_path: Path,
) -> None:
    full = v2_suite()
    v1 = {"schema_version": 1, "name": "conv", "tools": full["tools"], "cases": full["cases"][:1]}
    v2 = copy.deepcopy(full)
    v2["cases"] = full["cases"][1:2]
    v2["environments"] = {"ws": full["environments"]["ws"]}
    more = {
        "schema_version": 2,
        "name": "conv",
        "environments": {
            "canned": full["environments"]["canned"],
            "ws": full["environments"]["ws"],
        },
        "cases": full["cases"][2:],
    }
    _write(tmp_path, "a.json", v1)
    _write(tmp_path, "b.json", v2)
    _write(tmp_path, "c.json", more)
    suite = load_suite(tmp_path)
    assert suite.schema_version == 2
    assert sorted(suite.environments) == ["canned", "ws"]
    assert [c.id for c in suite.cases] == ["S-1", "C-1", "C-2"]


def test_merge_directory_of_v1_files_stays_version_1(tmp_path: Path) -> None:
    full = v2_suite()
    _write(
        tmp_path,
        "a.json",
        {"schema_version": 1, "name": "x", "tools": full["tools"], "cases": full["cases"][:1]},
    )
    suite = load_suite(tmp_path)
    assert suite.schema_version == 1 and not suite.environments


def test_merge_directory_conflicting_environment_reported_with_both_files(tmp_path: Path) -> None:
    full = v2_suite()
    a = _write(tmp_path, "a.json", dict(full, cases=full["cases"][:2]))
    changed = copy.deepcopy(full["environments"])
    changed["ws"]["class"] = "envs.other:Workspace"
    b = _write(
        tmp_path,
        "b.json",
        {"schema_version": 2, "name": "conv", "environments": changed, "cases": []},
    )
    with pytest.raises(SuiteError) as info:
        load_suite(tmp_path)
    assert [re.sub(r":\d+: ", ": ", p) for p in info.value.problems] == [
        f"{b}: $.environments.ws: environment 'ws' conflicts with its definition in {a} at $.environments.ws",
    ]


def test_merge_directory_conversation_may_use_environment_of_sibling_file(tmp_path: Path) -> None:
    full = v2_suite()
    _write(tmp_path, "a.json", dict(full, cases=full["cases"][:1]))
    _write(tmp_path, "b.json", {"schema_version": 2, "name": "conv", "cases": full["cases"][1:]})
    assert [c.id for c in load_suite(tmp_path).conversations] == ["C-1", "C-2"]


def _docs_example() -> tuple[str, str]:
    """The worked example of docs/conversations.md: the suite's text and workspace.py."""
    text = (ROOT / "docs" / "conversations.md").read_text(encoding="utf-8")
    found = re.search(r"```json\n(\{\n  \"schema_version\": 2.*?)\n```", text, re.DOTALL)
    module = re.search(r"```python\n(.*?class Workspace:.*?)\n```", text, re.DOTALL)
    assert found is not None and module is not None
    return found.group(1), module.group(1)


def test_docs_worked_example_is_a_valid_suite() -> None:
    suite = parse_suite(_docs_example()[0], name="docs/conversations.md")
    assert len(suite.conversations) == 2
    kinds = {type(e) for e in suite.environments.values()}
    assert kinds == {PythonEnvironment, ScriptedEnvironment}
    conv = suite.conversations[0]
    checks = conv.checks
    given = (
        checks.final_state,
        checks.unchanged,
        checks.trajectory,
        checks.forbidden,
        checks.max_calls,
    )
    assert all(given) and conv.fail and conv.reference and checks.success
    assert any(t.add_tools for t in conv.turns)


def test_docs_worked_example_passes_suite_check(tmp_path: Path) -> None:
    suite_text, module = _docs_example()
    (tmp_path / "suite.json").write_text(suite_text, encoding="utf-8")
    (tmp_path / "workspace.py").write_text(module, encoding="utf-8")
    result = CliRunner().invoke(app, ["suite", "check", str(tmp_path / "suite.json")])
    assert result.exit_code == 0, result.output
    assert "2 conversations replayed" in result.output
