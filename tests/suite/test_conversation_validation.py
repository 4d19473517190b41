"""Semantic validation of conversations and environments: every problem, with file, path, id.

Table-driven: each entry edits a valid version 2 suite and gives the exact problems it must
produce (the line number aside), so an entry also proves nothing else is reported.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolgrade import SuiteError, load_suite, parse_suite
from toolgrade.suite import _file_rules, _schema
from toolgrade.suite._conversation_rules import is_json_pointer

Edit = Callable[[dict[str, Any]], None]


def _tool(name: str, **props: str) -> dict[str, Any]:
    return {
        "name": name,
        "parameters": {
            "type": "object",
            "properties": {k: {"type": t} for k, t in props.items()},
            "required": list(props),
        },
    }


BASE: dict[str, Any] = {
    "schema_version": 2,
    "name": "v",
    "tools": [
        _tool("read_file", path="string"),
        _tool("write_file", path="string", content="string"),
        _tool("delete_file", path="string"),
        _tool("count", n="integer"),
    ],
    "environments": {
        "ws": {"kind": "python", "class": "envs.files:Workspace"},
        "canned": {
            "kind": "scripted",
            "rules": [{"when": {"tool": "read_file", "arguments": {"path": {"$regex": ".*"}}}}],
        },
    },
    "cases": [
        {"id": "S-1", "prompt": "p", "expected": None},
        {
            "id": "C-1",
            "environment": "ws",
            "initial_state": {"files": {}},
            "tools": ["read_file", "write_file"],
            "turns": [
                {"user": "read", "expected": {"tool": "read_file", "arguments": {"path": "a"}}},
                {
                    "user": "count",
                    "add_tools": ["count"],
                    "expected": {"tool": "count", "arguments": {"n": 1}},
                    "alternatives": [[{"tool": "count", "arguments": {"n": 2}}]],
                    "reply": {"$contains": "1"},
                },
            ],
            "fail": [{"tool": "count"}],
            "checks": {
                "final_state": {"state": {"files": {"a": {"$present": True}}}},
                "unchanged": ["/files/b"],
                "trajectory": {"calls": [{"tool": "count", "arguments": {"n": {"$approx": 1}}}]},
                "forbidden": [{"tool": "write_file", "arguments": {"path": {"$regex": "/etc/.*"}}}],
                "success": ["turns", "forbidden"],
            },
            "reference": [
                [{"tool": "read_file", "arguments": {"path": "a"}}],
                {"calls": [{"tool": "count", "arguments": {"n": 1}}], "reply": "1"},
            ],
        },
    ],
}


def _conv(data: dict[str, Any]) -> dict[str, Any]:
    conversation: dict[str, Any] = data["cases"][1]
    return conversation


def _set(path: str, value: Any) -> Edit:
    """An edit that sets the value at a dotted path ("cases.1.turns.0.user") of the suite."""

    def edit(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return edit


TABLE: list[tuple[str, Edit, list[str]]] = [
    (
        "environment-undefined",
        _set("cases.1.environment", "wss"),
        [
            "$.cases[1].environment (case C-1): environment 'wss' is not defined (environments: ws, canned)"
        ],
    ),
    (
        "turn-call-undefined-tool",
        _set("cases.1.turns.0.expected", {"tool": "reed_file", "arguments": {}}),
        ["$.cases[1].turns[0].expected (case C-1): expected call to undefined tool 'reed_file'"],
    ),
    (
        "turn-call-before-add-tools",
        _set("cases.1.turns.0.expected", [{"tool": "count", "arguments": {"n": 1}}]),
        [
            "$.cases[1].turns[0].expected[0] (case C-1): expected call to 'count', "
            "which turn 1 does not offer (tools: read_file, write_file)"
        ],
    ),
    (
        "turn-call-not-in-conversation-tools",
        _set("cases.1.turns.1.expected", {"tool": "delete_file", "arguments": {"path": "a"}}),
        [
            "$.cases[1].turns[1].expected (case C-1): expected call to 'delete_file', "
            "which turn 2 does not offer (tools: read_file, write_file, count)"
        ],
    ),
    (
        "turn-argument-violates-schema",
        _set("cases.1.turns.1.expected", {"tool": "count", "arguments": {"n": "one"}}),
        [
            "$.cases[1].turns[1].expected.arguments.n (case C-1): violates the parameters "
            "of 'count': 'one' is not of type 'integer'"
        ],
    ),
    (
        "turn-alternative-missing-required",
        _set("cases.1.turns.1.alternatives", [{"tool": "count", "arguments": {}}]),
        [
            "$.cases[1].turns[1].alternatives[0].arguments (case C-1): violates the "
            "parameters of 'count': 'n' is a required property"
        ],
    ),
    (
        "turn-matcher-malformed",
        _set(
            "cases.1.turns.0.expected",
            {"tool": "read_file", "arguments": {"path": {"$regex": "("}}},
        ),
        [
            "$.cases[1].turns[0].expected.arguments.path (case C-1): $regex: invalid pattern "
            "(missing ) at '(')"
        ],
    ),
    (
        "reply-not-string-or-matcher",
        _set("cases.1.turns.1.reply", {"text": "1"}),
        [
            "$.cases[1].turns[1].reply (case C-1): a reply is a string or a matcher "
            'such as {"$contains": "3 files"}'
        ],
    ),
    (
        "reply-matcher-malformed",
        _set("cases.1.turns.1.reply", {"$containz": "1"}),
        ["$.cases[1].turns[1].reply (case C-1): unknown matcher $containz (known: $any_of…"],
    ),
    (
        "expect-error-without-calls",
        _set("cases.1.turns.0", {"user": "read", "expected": None, "expect_error": True}),
        [
            "$.cases[1].turns[0].expect_error (case C-1): expect_error is set, but the turn expects no call"
        ],
    ),
    (
        "allow-other-calls-without-calls",
        _set("cases.1.turns.0", {"user": "read", "expected": None, "allow_other_calls": True}),
        [
            "$.cases[1].turns[0].allow_other_calls (case C-1): allow_other_calls is set, but "
            "the turn expects no call"
        ],
    ),
    (
        "allow-other-calls-with-an-alternative-of-no-call",
        _set(
            "cases.1.turns.0",
            {
                "user": "read",
                "expected": {"tool": "read_file", "arguments": {"path": "a"}},
                "alternatives": [{"tool": "read_file", "arguments": {"path": "b"}}, None],
                "allow_other_calls": True,
            },
        ),
        [
            "$.cases[1].turns[0].allow_other_calls (case C-1): allow_other_calls is set, but "
            "alternatives[1] is no call: any calls would pass"
        ],
    ),
    (
        "allow-other-calls-not-a-boolean",
        _set("cases.1.turns.0.allow_other_calls", "yes"),
        ["$.cases[1].turns[0].allow_other_calls (case C-1): 'yes' is not of type 'boolean'"],
    ),
    (
        "add-tools-undefined",
        _set("cases.1.turns.1.add_tools", ["count", "cnt"]),
        [
            "$.cases[1].turns[1].add_tools[1] (case C-1): add_tools names 'cnt', which the suite does not define"
        ],
    ),
    (
        "reference-entry-count",
        _set("cases.1.reference", [None]),
        ["$.cases[1].reference (case C-1): reference has 1 entries for 2 turns (one per turn)"],
    ),
    (
        "reference-call-not-offered-in-its-turn",
        _set("cases.1.reference.0", [{"tool": "count", "arguments": {"n": 1}}]),
        [
            "$.cases[1].reference[0][0] (case C-1): expected call to 'count', which turn 1 "
            "does not offer (tools: read_file, write_file)"
        ],
    ),
    (
        "reference-call-argument-violates-schema",
        _set("cases.1.reference.1.calls", {"tool": "count", "arguments": {"n": 1.5}}),
        [
            "$.cases[1].reference[1].calls.arguments.n (case C-1): violates the parameters "
            "of 'count': 1.5 is not of type 'integer'"
        ],
    ),
    (
        "trajectory-call-undefined-tool",
        _set("cases.1.checks.trajectory.calls", [{"tool": "cnt", "arguments": {}}]),
        ["$.cases[1].checks.trajectory.calls[0] (case C-1): expected call to undefined tool 'cnt'"],
    ),
    (
        "trajectory-call-not-offered",
        _set(
            "cases.1.checks.trajectory.calls", {"tool": "delete_file", "arguments": {"path": "a"}}
        ),
        [
            "$.cases[1].checks.trajectory.calls (case C-1): expected call to 'delete_file', "
            "which the conversation does not offer (tools: read_file, write_file, count)"
        ],
    ),
    (
        "trajectory-argument-violates-schema",
        _set("cases.1.checks.trajectory.calls", [{"tool": "count", "arguments": {"n": [1]}}]),
        [
            "$.cases[1].checks.trajectory.calls[0].arguments.n (case C-1): violates the "
            "parameters of 'count': [1] is not of type 'integer'"
        ],
    ),
    (
        "forbidden-matcher-malformed",
        _set(
            "cases.1.checks.forbidden",
            [{"name": "write_file", "arguments": {"path": {"$regex": "["}}}],
        ),
        [
            "$.cases[1].checks.forbidden[0].arguments.path (case C-1): $regex: invalid "
            "pattern (missing ] at '[')"
        ],
    ),
    (
        "forbidden-undefined-tool",
        _set("cases.1.checks.forbidden", [{"tool": "rm"}]),
        ["$.cases[1].checks.forbidden[0] (case C-1): forbidden call to undefined tool 'rm'"],
    ),
    (
        "forbidden-argument-wrong-type",
        _set("cases.1.checks.forbidden", [{"tool": "count", "arguments": {"n": "x"}}]),
        [
            "$.cases[1].checks.forbidden[0].arguments.n (case C-1): violates the parameters "
            "of 'count': 'x' is not of type 'integer'"
        ],
    ),
    (
        "final-state-matcher-malformed",
        _set("cases.1.checks.final_state", {"state": {"files": {"$regex": "("}}}),
        [
            "$.cases[1].checks.final_state.state.files (case C-1): $regex: invalid pattern (missing ) at '(')"
        ],
    ),
    (
        "unchanged-not-json-pointer",
        _set("cases.1.checks.unchanged", ["files/b", "/ok", "/bad~2"]),
        [
            "$.cases[1].checks.unchanged[0] (case C-1): 'files/b' is not a JSON Pointer "
            "(RFC 6901): '' or '/'-separated names, with '~' written '~0' and '/' written '~1'",
            "$.cases[1].checks.unchanged[2] (case C-1): '/bad~2' is not a JSON Pointer "
            "(RFC 6901): '' or '/'-separated names, with '~' written '~0' and '/' written '~1'",
        ],
    ),
    (
        "success-names-check-not-given",
        _set("cases.1.checks.success", ["turns", "max_calls"]),
        [
            "$.cases[1].checks.success[1] (case C-1): success names 'max_calls', which the "
            "conversation does not check (it checks: turns, final_state, unchanged, "
            "trajectory, forbidden)"
        ],
    ),
    (
        "fail-tool-not-offered",
        _set("cases.1.fail", [{"tool": "delete_file"}, {"tool": "count", "nth": 2}]),
        [
            "$.cases[1].fail[0].tool (case C-1): fail names 'delete_file', which the conversation does not offer"
        ],
    ),
    (
        "python-class-module-malformed",
        _set("environments.ws.class", "envs..files:Workspace"),
        ["$.environments.ws.class: 'envs..files' is not a module name (dotted identifiers)"],
    ),
    (
        "python-initial-state-not-keywords",
        _set("cases.1.initial_state", {"files": {}, "max-size": 3}),
        [
            "$.cases[1].initial_state.max-size (case C-1): 'max-size' is not a Python identifier: "
            "a python environment's class is built with the initial_state as keyword arguments"
        ],
    ),
    (
        "rule-undefined-tool",
        _set("environments.canned.rules", [{"when": {"tool": "reed_file"}, "result": 1}]),
        ["$.environments.canned.rules[0].when.tool: rule for undefined tool 'reed_file'"],
    ),
    (
        "rule-matcher-malformed",
        _set(
            "environments.canned.rules",
            [{"when": {"tool": "read_file", "arguments": {"path": {"$regexx": "a"}}}}],
        ),
        ["$.environments.canned.rules[0].when.arguments.path: unknown matcher $regexx (known: …"],
    ),
    (
        "rule-argument-wrong-type",
        _set("environments.canned.rules", [{"when": {"tool": "count", "arguments": {"n": "1"}}}]),
        [
            "$.environments.canned.rules[0].when.arguments.n: violates the parameters of "
            "'count': '1' is not of type 'integer'"
        ],
    ),
    (
        "duplicate-id-case-and-conversation",
        _set("cases.1.id", "S-1"),
        ["$.cases[1].id (case S-1): duplicate case id 'S-1' (first at $.cases[0])"],
    ),
    (
        "conversation-tools-undefined",
        _set("cases.1.tools", ["read_file", "write_file", "grep"]),
        ["$.cases[1].tools[2] (case C-1): offers undefined tool 'grep'"],
    ),
    (
        "conversation-category-not-declared",
        _set("categories", ["simple"]),
        [
            "$.cases[1].category (case C-1): unknown category 'multi_turn' (the suite declares: simple)"
        ],
    ),
]


@pytest.fixture(params=["fast", "pure"])
def validator_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with the jsonschema-rs fast path, and with jsonschema alone."""
    if request.param == "pure":
        monkeypatch.setattr(_schema, "_fast_validator", lambda: None)
        monkeypatch.setattr(_file_rules, "fast_arguments_validator", lambda key: None)
    return str(request.param)


def _same(found: list[str], expected: list[str]) -> bool:
    """Equal lists, where an expected problem ending in "…" is a prefix (matcher lists grow)."""
    cut = [f[: len(e) - 1] if e.endswith("…") else f for f, e in zip(found, expected, strict=False)]
    return len(found) == len(expected) and cut == [e.removesuffix("…") for e in expected]


def _problems(data: dict[str, Any], path: Path) -> list[str]:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    prefix = f"{path}:"
    assert all(re.match(rf"{re.escape(prefix)}\d+: \$", p) for p in info.value.problems)
    return [re.sub(r"^\d+: ", "", p[len(prefix) :]) for p in info.value.problems]


def test_validation_base_suite_is_valid(validator_mode: str) -> None:
    suite = parse_suite(json.dumps(BASE))
    assert [c.id for c in suite.conversations] == ["C-1"]


@pytest.mark.parametrize(("name", "edit", "expected"), TABLE, ids=[t[0] for t in TABLE])
def test_validation_conversation_problem_reported_with_file_path_and_id(
    name: str, edit: Edit, expected: list[str], tmp_path: Path, validator_mode: str
) -> None:
    data = copy.deepcopy(BASE)
    edit(data)
    found = _problems(data, tmp_path / f"{name}.json")
    assert _same(found, expected), found


ALL_AT_ONCE = (
    "python-class-module-malformed",
    "rule-undefined-tool",
    "fail-tool-not-offered",
    "turn-argument-violates-schema",
    "reply-not-string-or-matcher",
    "add-tools-undefined",
    "reference-call-not-offered-in-its-turn",
    "trajectory-call-undefined-tool",
    "forbidden-undefined-tool",
    "unchanged-not-json-pointer",
    "success-names-check-not-given",
    "python-initial-state-not-keywords",
)


def test_validation_allow_other_calls_on_a_turn_that_expects_calls() -> None:
    data = copy.deepcopy(BASE)
    _set("cases.1.turns.0.allow_other_calls", True)(data)
    suite = parse_suite(json.dumps(data))
    assert suite.conversations[0].turns[0].allow_other_calls


def test_validation_every_problem_reported_at_once(tmp_path: Path) -> None:
    data = copy.deepcopy(BASE)
    wanted: list[str] = []
    for name, edit, expected in TABLE:
        if name in ALL_AT_ONCE:
            edit(data)
            wanted.extend(expected)
    found = _problems(data, tmp_path / "all.json")
    assert sorted(found) == sorted(wanted)


def test_validation_patterns_may_leave_required_arguments_out() -> None:
    data = copy.deepcopy(BASE)
    _conv(data)["checks"]["forbidden"] = [
        {"tool": "write_file"},
        {"name": "delete_file", "arguments": {}},
    ]
    data["environments"]["canned"]["rules"] = [
        {"when": {"tool": "write_file", "arguments": {"path": "a"}}}
    ]
    suite = parse_suite(json.dumps(data))
    assert [p.name for p in suite.conversations[0].checks.forbidden] == [
        "write_file",
        "delete_file",
    ]


def test_validation_rule_may_answer_a_tool_only_a_conversation_defines() -> None:
    data = copy.deepcopy(BASE)
    _conv(data)["tool_definitions"] = [_tool("grep", pattern="string")]
    data["environments"]["canned"]["rules"] = [
        {"when": {"tool": "grep", "arguments": {"pattern": 1}}}
    ]
    assert parse_suite(json.dumps(data)).environments["canned"].kind == "scripted"


def test_validation_conversation_own_tool_checked_with_its_definition() -> None:
    data = copy.deepcopy(BASE)
    _conv(data)["tool_definitions"] = [_tool("count", n="string")]
    _conv(data)["turns"][1]["expected"] = {"tool": "count", "arguments": {"n": "one"}}
    _conv(data)["turns"][1]["alternatives"] = []
    _conv(data)["reference"][1] = [{"tool": "count", "arguments": {"n": "one"}}]
    _conv(data)["checks"]["trajectory"]["calls"] = [{"tool": "count", "arguments": {"n": "1"}}]
    assert parse_suite(json.dumps(data)).conversations[0].tool_definitions[0].name == "count"


def test_validation_python_class_is_not_imported(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "files.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nclass Workspace: pass\n", encoding="utf-8"
    )
    (tmp_path / "suite.json").write_text(json.dumps(BASE), encoding="utf-8")
    assert load_suite(tmp_path / "suite.json").environments["ws"].kind == "python"
    assert not marker.exists()


@pytest.mark.parametrize(
    ("pointer", "valid"),
    [
        ("", True),
        ("/", True),
        ("/a/b", True),
        ("/a~0b~1c", True),
        ("a", False),
        ("/a~", False),
        ("/~2", False),
    ],
)
def test_is_json_pointer_follows_rfc_6901(pointer: str, valid: bool) -> None:
    assert is_json_pointer(pointer) is valid
