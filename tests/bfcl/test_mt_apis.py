"""`BfclApis`: BFCL's multi-turn API classes as one toolgrade Python environment."""

from __future__ import annotations

import copy
import inspect
import json
import types

import pytest

pytest.importorskip("bfcl_eval.eval_checker.multi_turn_eval.func_source_code.math_api")

from bfcl_mt_scenario import FILES

from toolgrade._core.transcript import Exchange
from toolgrade._core.vocab import ToolCall
from toolgrade.bfcl import _mt_apis
from toolgrade.bfcl._mt_apis import (
    BfclApis,
    bfcl_api_classes,
    is_long_context,
    method_owner,
)
from toolgrade.environments._python import PythonToolEnvironment, build_instance
from toolgrade.errors import ConfigError, SuiteError
from toolgrade.suite import ToolSpec

MESSAGES = {
    "user_count": 1,
    "user_map": {"Alice": "USR001"},
    "inbox": [],
    "message_count": 0,
    "current_user": "USR001",
}
"""A MessageAPI scenario."""


def _env(apis: BfclApis) -> PythonToolEnvironment:
    return PythonToolEnvironment(apis)


def _run(env: PythonToolEnvironment, name: str, **arguments: object) -> Exchange:
    tool = ToolSpec(name=name)
    return env.execute(ToolCall(name=name, arguments=arguments), call_id="c", tool=tool)


def test_every_bfcl_method_is_a_plain_def_with_bfcl_signature_and_doc() -> None:
    classes = bfcl_api_classes()
    assert list(classes) == [
        "GorillaFileSystem",
        "MathAPI",
        "MessageAPI",
        "TwitterAPI",
        "TicketAPI",
        "TradingBot",
        "TravelAPI",
        "VehicleControlAPI",
    ]
    names = {
        n
        for cls in classes.values()
        for n, _ in inspect.getmembers(cls(), inspect.ismethod)
        if not n.startswith("_")
    }
    assert len(names) == 128
    for name in names:
        assert isinstance(BfclApis.__dict__[name], types.FunctionType), name
    original = classes["GorillaFileSystem"].__dict__["cd"]
    assert inspect.signature(BfclApis.cd) == inspect.signature(original)
    assert BfclApis.cd.__doc__ == original.__doc__
    assert method_owner("cd") == "GorillaFileSystem"
    assert method_owner("add") == "MathAPI"
    with pytest.raises(KeyError):
        method_owner("nope")


def test_calls_reach_the_owning_instance_and_change_its_state() -> None:
    apis = BfclApis(["GorillaFileSystem", "MathAPI"], {"GorillaFileSystem": FILES})
    assert apis.involved_classes == ("GorillaFileSystem", "MathAPI")
    assert apis.add(a=2, b=3) == {"result": 5}
    env = _env(apis)
    made = _run(env, "mkdir", dir_name="temp")
    assert made.outcome == "ok" and made.result is None
    assert _run(env, "ls").result == {"current_directory_content": ["notes.txt", "docs", "temp"]}
    state = env.state()
    assert state == {
        "GorillaFileSystem": {
            "long_context": False,
            "root": {
                "name": "alex",
                "contents": {
                    "notes.txt": {"name": "notes.txt", "content": "b\na\n"},
                    "docs": {"name": "docs", "contents": {}},
                    "temp": {"name": "temp", "contents": {}},
                },
            },
        },
        "MathAPI": {},
    }
    assert _run(env, "sort", file_name="notes.txt").result == {"sorted_content": "a\nb"}


def test_positional_arguments_bind_as_bfcl_methods_take_them() -> None:
    apis = BfclApis(["MathAPI"], {})
    assert apis.mean([1, 2, 3]) == {"result": 2.0}


def test_exceptions_of_bfcl_methods_propagate_and_become_error_results() -> None:
    apis = BfclApis(["GorillaFileSystem"], {"GorillaFileSystem": FILES})
    with pytest.raises(AttributeError, match="rstrip"):
        apis.cd(folder=5)
    env = _env(apis)  # a tool without a schema: the call reaches BFCL's method
    raised = _run(env, "cd", folder=5)
    assert raised.outcome == "error"
    assert raised.result == {"error": "AttributeError: 'int' object has no attribute 'rstrip'"}
    # A bad argument name is refused before the method runs (the signature is BFCL's).
    refused = _run(env, "cd", folder="docs", where="x")
    assert refused.outcome == "rejected"
    assert "unexpected keyword argument 'where'" in str(refused.result)
    assert _run(env, "pwd").result == {"current_working_directory": "/alex"}


def test_a_method_of_a_class_not_involved_is_an_error_the_model_sees() -> None:
    env = _env(BfclApis(["MathAPI"], {}))
    result = _run(env, "ls")
    assert result.outcome == "error"
    assert "ls belongs to GorillaFileSystem" in str(result.result)
    assert "does not involve" in str(result.result)


@pytest.mark.parametrize(
    "name",
    ["_load_scenario", "_call", "_instances", "instances", "involved_classes", "state", "root"],
)
def test_nothing_private_of_bfcl_is_reachable(name: str) -> None:
    env = _env(BfclApis(["GorillaFileSystem"], {"GorillaFileSystem": FILES}))
    result = _run(env, name)
    assert result.outcome == "rejected"
    assert result.result == {"error": f"unknown tool '{name}'"}


def test_instances_are_fresh_and_the_config_is_never_mutated() -> None:
    config = {"GorillaFileSystem": FILES, "MessageAPI": MESSAGES}
    kept = copy.deepcopy(config)
    first = BfclApis(["GorillaFileSystem", "MessageAPI"], config)
    first.mkdir(dir_name="made")
    first.send_message(receiver_id="USR001", message="hi")
    second = BfclApis(["GorillaFileSystem", "MessageAPI"], config)
    assert config == kept
    assert first.state() != second.state()
    assert "made" not in second.ls()["current_directory_content"]
    # Same seed, same draws: the same ids in a fresh environment.
    third = BfclApis(["GorillaFileSystem", "MessageAPI"], config)
    third.mkdir(dir_name="made")
    third.send_message(receiver_id="USR001", message="hi")
    assert third.state() == first.state()


def test_state_is_json_with_sets_sorted() -> None:
    apis = BfclApis(["MessageAPI"], {"MessageAPI": MESSAGES})
    for _ in range(3):
        apis.send_message(receiver_id="USR001", message="hi")
    state = apis.state()
    assert json.loads(json.dumps(state)) == state
    assert isinstance(state, dict)
    message = state["MessageAPI"]
    assert isinstance(message, dict)
    ids = message["generated_ids"]
    assert isinstance(ids, list) and len(ids) == 3 and ids == sorted(ids)


def test_long_context_loads_bfcl_long_context_scenarios() -> None:
    short = BfclApis(["GorillaFileSystem"], {"GorillaFileSystem": FILES})
    long = BfclApis(["GorillaFileSystem"], {"GorillaFileSystem": FILES}, long_context=True)
    assert short.cat(file_name="notes.txt") == {"file_content": "b\na\n"}
    assert len(long.cat(file_name="notes.txt")["file_content"]) > 1000
    assert len(long.state()["GorillaFileSystem"]["root"]["contents"]["docs"]["contents"]) > 10  # type: ignore[call-overload,index]
    assert is_long_context("multi_turn_long_context_0")
    assert not is_long_context("multi_turn_base_0")
    assert not is_long_context("multi_turn_miss_param_7")


def test_bad_construction_is_a_suite_error_naming_the_class() -> None:
    with pytest.raises(ValueError, match="unknown BFCL API class 'Nope'"):
        BfclApis(["Nope"], {})
    with pytest.raises(SuiteError, match="unknown BFCL API class"):
        build_instance(BfclApis, {"involved_classes": ["Nope"], "initial_config": {}})
    with pytest.raises(ValueError, match="list of BFCL class names"):
        BfclApis("MathAPI", {})


def test_missing_bfcl_eval_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    problem = ConfigError("BFCL's multi-turn API classes need bfcl-eval: pip install ...")
    monkeypatch.setattr(_mt_apis, "_PROBLEM", problem)
    with pytest.raises(ConfigError, match="need bfcl-eval"):
        BfclApis(["MathAPI"], {})
    with pytest.raises(ConfigError, match="need bfcl-eval"):
        bfcl_api_classes()


def test_load_classes_without_the_package_raises_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_mt_apis.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=r"pip install --no-deps bfcl-eval==2026\.3\.23 mpmath"):
        _mt_apis._load_classes()
