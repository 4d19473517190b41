"""Environments: scripted rules, Python classes, and the factory that picks one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from toolgrade._core.json_data import JsonObject
from toolgrade._core.vocab import ToolCall
from toolgrade.environments._factory import (
    NoToolEnvironment,
    deep_merge,
    environment_factory,
)
from toolgrade.environments._python import (
    MAX_RESULT_CHARS,
    PythonToolEnvironment,
    load_python_class,
    to_json,
)
from toolgrade.environments._scripted import ScriptedToolEnvironment
from toolgrade.environments._types import ToolEnvironment
from toolgrade.errors import SuiteError
from toolgrade.suite import ScriptedEnvironment, Suite, SuiteDefaults, ToolSpec

ENVS = Path(__file__).parent / "envs"

READ = ToolSpec(
    name="read_file",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "lines": {"type": "integer"}},
        "required": ["path"],
    },
)
WRITE = ToolSpec(name="write_file")


def _scripted(rules: list[JsonObject], default: object = None) -> ScriptedEnvironment:
    return ScriptedEnvironment.model_validate(
        {"kind": "scripted", "rules": rules, "default": default}
    )


def _call(name: str, **arguments: object) -> ToolCall:
    return ToolCall.model_validate({"name": name, "arguments": arguments})


# --- deep_merge --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "update", "expected"),
    [
        ({"a": 1}, {"b": 2}, {"a": 1, "b": 2}),
        ({"a": {"x": 1, "y": 2}}, {"a": {"y": 3}}, {"a": {"x": 1, "y": 3}}),
        ({"a": {"x": 1}}, {"a": {"x": None}}, {"a": {}}),
        ({"a": 1, "b": 2}, {"a": None}, {"b": 2}),
        ({"a": [1, 2]}, {"a": [3]}, {"a": [3]}),
        ({"a": 1}, {"a": {"b": {"c": None, "d": 1}}}, {"a": {"b": {"d": 1}}}),
        ({}, {"gone": None}, {}),
    ],
    ids=["add", "nested", "nested-delete", "delete", "list-replaced", "scalar-to-object", "absent"],
)
def test_deep_merge_cases_merge_as_json_merge_patch(
    state: JsonObject, update: JsonObject, expected: JsonObject
) -> None:
    before = repr(state)
    assert deep_merge(state, update) == expected
    assert repr(state) == before


def test_deep_merge_result_shares_nothing_with_update() -> None:
    update: JsonObject = {"a": {"list": [1]}}
    merged = deep_merge({}, update)
    merged["a"]["list"].append(2)  # type: ignore[index,union-attr]
    assert update == {"a": {"list": [1]}}


# --- scripted ------------------------------------------------------------------------


def test_scripted_first_matching_rule_answers() -> None:
    spec = _scripted(
        [
            {"when": {"tool": "read_file", "arguments": {"path": "a.md"}}, "result": "first"},
            {"when": {"tool": "read_file"}, "result": "catch-all"},
            {"when": {"tool": "read_file", "arguments": {"path": "a.md"}}, "result": "never"},
        ]
    )
    env = ScriptedToolEnvironment(spec, {})
    got = env.execute(_call("read_file", path="a.md"), call_id="c0", tool=READ)
    assert (got.result, got.rule, got.outcome, got.id) == ("first", 0, "ok", "c0")
    other = env.execute(_call("read_file", path="b.md"), call_id="c1", tool=READ)
    assert (other.result, other.rule) == ("catch-all", 1)


def test_scripted_rule_matchers_and_semantic_values_match() -> None:
    spec = _scripted(
        [
            {
                "when": {"tool": "read_file", "arguments": {"path": {"$regex": "^src/.*\\.py$"}}},
                "result": "python",
            },
            {"when": {"tool": "read_file", "arguments": {"lines": 5}}, "result": "five"},
        ]
    )
    env = ScriptedToolEnvironment(spec, {})
    assert env.execute(_call("read_file", path="src/a.py"), call_id="c", tool=READ).rule == 0
    # "5" against an integer schema compares as the judge compares it: equal.
    hit = env.execute(_call("read_file", path="x", lines="5"), call_id="c", tool=READ)
    assert hit.rule == 1
    # Trimmed strings, as the judge trims them.
    assert env.execute(_call("read_file", path=" src/b.py "), call_id="c", tool=READ).rule == 0


def test_scripted_rule_ignores_arguments_it_does_not_name() -> None:
    spec = _scripted([{"when": {"tool": "read_file", "arguments": {"path": "a"}}, "result": 1}])
    env = ScriptedToolEnvironment(spec, {})
    assert env.execute(_call("read_file", path="a", lines=3), call_id="c", tool=READ).rule == 0


def test_scripted_rule_on_other_tool_does_not_match() -> None:
    spec = _scripted([{"when": {"tool": "write_file"}, "result": "w"}])
    got = ScriptedToolEnvironment(spec, {}).execute(
        _call("read_file", path="a"), call_id="c", tool=READ
    )
    assert got.outcome == "uncovered"


def test_scripted_trim_off_compares_whitespace() -> None:
    spec = _scripted([{"when": {"tool": "search", "arguments": {"query": "a"}}, "result": 1}])
    tool = ToolSpec(name="search")
    trimmed = ScriptedToolEnvironment(spec, {})
    assert trimmed.execute(_call("search", query=" a "), call_id="c", tool=tool).outcome == "ok"
    exact = ScriptedToolEnvironment(spec, {}, trim=False)
    assert (
        exact.execute(_call("search", query=" a "), call_id="c", tool=tool).outcome == "uncovered"
    )


def test_scripted_update_merges_and_deletes_in_state() -> None:
    spec = _scripted(
        [
            {
                "when": {"tool": "write_file", "arguments": {"path": "a"}},
                "result": "ok",
                "update": {"files": {"a": "new", "old": None}, "writes": 1},
            },
        ]
    )
    initial: JsonObject = {"files": {"a": "x", "old": "y", "keep": "z"}}
    env = ScriptedToolEnvironment(spec, initial)
    env.execute(_call("write_file", path="a"), call_id="c", tool=WRITE)
    assert env.state() == {"files": {"a": "new", "keep": "z"}, "writes": 1}
    assert initial == {"files": {"a": "x", "old": "y", "keep": "z"}}


def test_scripted_unmatched_rule_leaves_state_unchanged() -> None:
    spec = _scripted(
        [{"when": {"tool": "write_file", "arguments": {"path": "a"}}, "update": {"n": 1}}]
    )
    env = ScriptedToolEnvironment(spec, {"n": 0})
    env.execute(_call("write_file", path="b"), call_id="c", tool=WRITE)
    assert env.state() == {"n": 0}


def test_scripted_state_is_a_copy() -> None:
    env = ScriptedToolEnvironment(_scripted([]), {"files": {"a": 1}})
    state = env.state()
    state["files"]["a"] = 2  # type: ignore[index,call-overload]
    assert env.state() == {"files": {"a": 1}}


def test_scripted_uncovered_call_gets_error_result_and_names_call() -> None:
    env = ScriptedToolEnvironment(_scripted([]), {})
    got = env.execute(_call("read_file", path="x.md"), call_id="c", tool=READ)
    assert got.outcome == "uncovered"
    assert got.result == {"error": "no result for this call"}
    assert got.note == 'no rule covers read_file(path="x.md")'
    assert got.rule is None


def test_scripted_uncovered_call_gets_default_result() -> None:
    env = ScriptedToolEnvironment(_scripted([], default={"content": ""}), {})
    got = env.execute(_call("read_file", path="x"), call_id="c", tool=READ)
    assert (got.outcome, got.result) == ("uncovered", {"content": ""})


def test_scripted_uncovered_note_is_bounded() -> None:
    env = ScriptedToolEnvironment(_scripted([]), {})
    call = _call("read_file", **{f"k{i}": "v" * 1000 for i in range(100)})
    note = env.execute(call, call_id="c", tool=READ).note
    assert note is not None and len(note) < 300


def test_scripted_not_offered_tool_is_rejected() -> None:
    spec = _scripted([{"when": {"tool": "rm"}, "result": "deleted", "update": {"gone": True}}])
    env = ScriptedToolEnvironment(spec, {})
    got = env.execute(_call("rm"), call_id="c", tool=None)
    assert (got.outcome, got.result) == ("rejected", {"error": "unknown tool 'rm'"})
    assert env.state() == {}


def test_scripted_same_calls_give_same_results_and_state() -> None:
    spec = _scripted([{"when": {"tool": "write_file"}, "result": "ok", "update": {"n": {"x": 1}}}])
    runs = []
    for _ in range(2):
        env = ScriptedToolEnvironment(spec, {"n": {}})
        out = [env.execute(_call("write_file"), call_id=f"c{i}", tool=WRITE) for i in range(3)]
        runs.append(([e.model_dump() for e in out], env.state()))
    assert runs[0] == runs[1]


def test_environments_satisfy_the_protocol() -> None:
    counter = load_python_class("counter:Counter", base_dir=ENVS)
    for env in (
        ScriptedToolEnvironment(_scripted([]), {}),
        NoToolEnvironment(),
        PythonToolEnvironment(counter()),
    ):
        assert isinstance(env, ToolEnvironment)


# --- python: loading --------------------------------------------------------------------


def test_load_python_class_file_next_to_suite() -> None:
    cls = load_python_class("counter:Counter", base_dir=ENVS)
    assert cls.__name__ == "Counter"
    assert cls.__module__.startswith("_toolgrade_suite_env_")
    assert load_python_class("counter:Counter", base_dir=ENVS) is cls  # cached


def test_load_python_class_dotted_module_in_subfolder() -> None:
    assert load_python_class("pkg.mod:Echo", base_dir=ENVS).__name__ == "Echo"


def test_load_python_class_two_suites_same_module_name_do_not_collide(tmp_path: Path) -> None:
    for n in (1, 2):
        folder = tmp_path / f"suite{n}"
        folder.mkdir()
        (folder / "env.py").write_text(f"class Env:\n    number = {n}\n")
    one = load_python_class("env:Env", base_dir=tmp_path / "suite1")
    two = load_python_class("env:Env", base_dir=tmp_path / "suite2")
    assert (one.number, two.number) == (1, 2)  # type: ignore[attr-defined]


def test_load_python_class_changed_file_is_reloaded(tmp_path: Path) -> None:
    path = tmp_path / "env.py"
    path.write_text("class Env:\n    number = 1\n")
    assert load_python_class("env:Env", base_dir=tmp_path).number == 1  # type: ignore[attr-defined]
    path.write_text("class Env:\n    number = 2\n")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert load_python_class("env:Env", base_dir=tmp_path).number == 2  # type: ignore[attr-defined]


def test_load_python_class_installed_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "tg_test_installed_env.py").write_text("class Env:\n    where = 'installed'\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "tg_test_installed_env", raising=False)
    cls = load_python_class("tg_test_installed_env:Env", base_dir=tmp_path / "elsewhere")
    assert cls.where == "installed"  # type: ignore[attr-defined]
    sys.modules.pop("tg_test_installed_env", None)


def test_load_python_class_file_beats_installed_module() -> None:
    # `json` is installed; a file named json.py next to the suite wins.
    cls = load_python_class("json:Local", base_dir=ENVS / "shadow")
    assert cls.__name__ == "Local"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:Env", "no module 'no_such_module_xyz'"),
        ("counter:Missing", "has no 'Missing'"),
        ("counter:NOT_A_CLASS", "'NOT_A_CLASS' is not a class"),
        ("broken:Env", "this module cannot be loaded"),
        ("counter", "is not 'module:Class'"),
        ("counter:1x", "is not 'module:Class'"),
    ],
    ids=["missing-module", "missing-class", "not-a-class", "import-raises", "no-colon", "bad-name"],
)
def test_load_python_class_errors_name_the_spec(spec: str, message: str) -> None:
    with pytest.raises(SuiteError) as caught:
        load_python_class(spec, base_dir=ENVS)
    assert message in str(caught.value)
    assert spec in str(caught.value)


# --- python: dispatch -----------------------------------------------------------------

INC = ToolSpec(
    name="increment",
    parameters={"type": "object", "properties": {"by": {"type": "integer", "minimum": 1}}},
)


def _counter(**state: object) -> PythonToolEnvironment:
    return PythonToolEnvironment(load_python_class("counter:Counter", base_dir=ENVS)(**state))


def test_python_call_reaches_method_and_changes_state() -> None:
    env = _counter(count=2)
    got = env.execute(_call("increment", by=3), call_id="c", tool=INC)
    assert (got.outcome, got.result, got.id) == ("ok", 5, "c")
    assert env.state() == {"count": 5, "notes": []}


def test_python_arguments_coerced_like_the_judge() -> None:
    env = _counter()
    assert env.execute(_call("increment", by="4"), call_id="c", tool=INC).result == 4


def test_python_inherited_public_method_is_a_tool() -> None:
    env = _counter(count=7)
    got = env.execute(_call("reset"), call_id="c", tool=ToolSpec(name="reset"))
    assert (got.outcome, got.result, env.state()) == ("ok", "reset", {"count": 0, "notes": []})


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"by": 0}, "$.by"),
        ({"by": "many"}, "$.by"),
        ({"by": True}, "$.by"),
    ],
    ids=["below-minimum", "not-a-number", "boolean"],
)
def test_python_invalid_arguments_rejected_before_the_call(
    arguments: JsonObject, problem: str
) -> None:
    env = _counter(count=1)
    got = env.execute(ToolCall(name="increment", arguments=arguments), call_id="c", tool=INC)
    assert got.outcome == "rejected"
    assert isinstance(got.result, dict)
    error = got.result["error"]
    assert isinstance(error, str) and error.startswith("invalid arguments: ") and problem in error
    assert env.state() == {"count": 1, "notes": []}


def test_python_missing_required_argument_rejected() -> None:
    spec = ToolSpec(
        name="add_note",
        parameters={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    )
    got = _counter().execute(_call("add_note"), call_id="c", tool=spec)
    assert got.outcome == "rejected" and "$.text" in str(got.result)


def test_python_arguments_the_method_does_not_take_rejected() -> None:
    got = _counter().execute(
        _call("increment", step=2), call_id="c", tool=ToolSpec(name="increment")
    )
    assert got.outcome == "rejected"
    assert "invalid arguments" in str(got.result) and "step" in str(got.result)


def test_python_method_raising_gives_error_result_and_keeps_changes() -> None:
    env = _counter(count=1)
    got = env.execute(_call("fail"), call_id="c", tool=ToolSpec(name="fail"))
    assert got.outcome == "error"
    assert isinstance(got.result, dict)
    error = got.result["error"]
    assert isinstance(error, str) and error.startswith("RuntimeError: disk on fire")
    assert len(error) <= 500
    assert env.state() == {"count": 101, "notes": []}


def test_python_non_json_result_is_made_json() -> None:
    got = _counter().execute(_call("tags"), call_id="c", tool=ToolSpec(name="tags"))
    assert got.result == {"set": ["a", "b", "c"], "when": "2024-01-02"}


def test_python_none_result_is_null() -> None:
    got = _counter().execute(_call("reset"), call_id="c", tool=ToolSpec(name="reset"))
    assert got.outcome == "ok"
    env = PythonToolEnvironment(load_python_class("counter:Strict", base_dir=ENVS)())
    assert env.execute(_call("ping"), call_id="c", tool=ToolSpec(name="ping")).result == "pong"


def test_python_huge_result_is_truncated_with_marker() -> None:
    got = _counter().execute(_call("big"), call_id="c", tool=ToolSpec(name="big"))
    assert isinstance(got.result, str)
    assert len(got.result) < MAX_RESULT_CHARS + 100
    assert "[truncated: 200002 characters in all]" in got.result


def test_python_state_without_state_method_is_public_attributes() -> None:
    bag = load_python_class("counter:Bag", base_dir=ENVS)
    env = PythonToolEnvironment(bag(items=["a"]))
    env.execute(_call("put", item="b"), call_id="c", tool=ToolSpec(name="put"))
    assert env.state() == {"items": ["a", "b"], "seen": ["y", "z"]}


def test_python_state_is_a_copy() -> None:
    env = _counter(notes=["a"])
    state = env.state()
    state["notes"].append("b")  # type: ignore[index,call-overload,union-attr]
    assert env.state() == {"count": 0, "notes": ["a"]}


def test_python_tool_names_limit_dispatch() -> None:
    counter = load_python_class("counter:Counter", base_dir=ENVS)
    env = PythonToolEnvironment(counter(), tool_names={"reset"})
    got = env.execute(_call("increment"), call_id="c", tool=INC)
    assert (got.outcome, got.result) == ("rejected", {"error": "unknown tool 'increment'"})


def test_to_json_nan_and_cycles_become_text() -> None:
    assert to_json(float("nan")) == "nan"
    cycle: list[object] = []
    cycle.append(cycle)
    assert to_json(cycle) == "[[...]]"


# --- the factory ---------------------------------------------------------------------------


def _suite(environments: JsonObject, conversation: JsonObject) -> Suite:
    return Suite.model_validate(
        {
            "schema_version": 2,
            "name": "s",
            "tools": [
                INC.model_dump(),
                {"name": "reset"},
                {"name": "read_file"},
                {"name": "add_note"},
            ],
            "environments": environments,
            "cases": [{"id": "conv", "turns": ["go"], **conversation}],
        }
    )


def test_factory_without_environment_every_call_uncovered() -> None:
    suite = _suite({}, {})
    env = environment_factory(suite, suite.conversations[0], base_dir=None)({"x": 1})
    got = env.execute(_call("increment"), call_id="c", tool=INC)
    assert (got.outcome, got.result) == (
        "uncovered",
        {"error": "no environment answers tool calls"},
    )
    assert env.state() == {}


def test_factory_unknown_environment_raises_with_case_id() -> None:
    suite = _suite({"ws": {"kind": "scripted"}}, {"environment": "nope"})
    with pytest.raises(SuiteError) as caught:
        environment_factory(suite, suite.conversations[0], base_dir=None)
    assert "unknown environment 'nope'" in str(caught.value) and "conv" in str(caught.value)


def test_factory_scripted_uses_suite_trim_setting() -> None:
    rules = [{"when": {"tool": "read_file", "arguments": {"query": "a"}}, "result": 1}]
    tool = ToolSpec(name="read_file")
    for trim, outcome in ((True, "ok"), (False, "uncovered")):
        suite = _suite({"ws": {"kind": "scripted", "rules": rules}}, {"environment": "ws"})
        suite = suite.model_copy(update={"defaults": SuiteDefaults(trim_strings=trim)})
        env = environment_factory(suite, suite.conversations[0], base_dir=None)({})
        assert isinstance(env, ScriptedToolEnvironment)
        got = env.execute(_call("read_file", query=" a "), call_id="c", tool=tool)
        assert got.outcome == outcome


def test_factory_python_builds_fresh_instance_per_call() -> None:
    suite = _suite({"py": {"kind": "python", "class": "counter:Counter"}}, {"environment": "py"})
    make = environment_factory(suite, suite.conversations[0], base_dir=ENVS)
    initial: JsonObject = {"count": 1, "notes": ["n"]}
    first = make(initial)
    first.execute(_call("increment", by=2), call_id="c", tool=INC)
    first.execute(_call("add_note", text="x"), call_id="c", tool=ToolSpec(name="add_note"))
    second = make(initial)
    assert first.state() == {"count": 3, "notes": ["n", "x"]}
    assert second.state() == {"count": 1, "notes": ["n"]}
    assert initial == {"count": 1, "notes": ["n"]}


def test_factory_python_constructor_error_names_class_and_keys() -> None:
    suite = _suite({"py": {"kind": "python", "class": "counter:Counter"}}, {"environment": "py"})
    make = environment_factory(suite, suite.conversations[0], base_dir=ENVS)
    with pytest.raises(SuiteError) as caught:
        make({"count": 1, "colour": "red"})
    text = str(caught.value)
    assert "Counter" in text and "colour, count" in text and "TypeError" in text
    assert "conv" in text


def test_factory_python_missing_class_raises_with_case_id() -> None:
    suite = _suite({"py": {"kind": "python", "class": "counter:Nope"}}, {"environment": "py"})
    with pytest.raises(SuiteError) as caught:
        environment_factory(suite, suite.conversations[0], base_dir=ENVS)
    assert "counter:Nope" in str(caught.value) and "conv" in str(caught.value)
