"""A model's call cannot reach anything of a Python environment but its public methods.

Every name here is offered as a tool (the worst case: a suite that declares it), so
only the environment's own dispatch rules stand between the call and the attribute.
`counter.TOUCHED` records every unreachable member that runs: it must stay empty.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolgrade._core.json_data import JsonObject
from toolgrade._core.vocab import ToolCall
from toolgrade.environments._python import PythonToolEnvironment, load_python_class
from toolgrade.suite import ToolSpec

ENVS = Path(__file__).parent / "envs"

UNREACHABLE = [
    "__init__",
    "__class__",
    "__dict__",
    "__module__",
    "__getattr__",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
    "__reduce__",
    "__reduce_ex__",
    "__subclasses__",
    "__init_subclass__",
    "__new__",
    "__call__",
    "__globals__",
    "__builtins__",
    "_secret",
    "_Counter__secret",
    "__secret",
    "_hidden",
    "_instance_tool",
    "state",
    "doubled",
    "label",
    "limits",
    "klass",
    "helper",
    "Nested",
    "instance_tool",
    "count",
    "notes",
    "no_such_method",
    "mro",
    "eval",
    "exec",
    "__import__",
    "open",
]
"""Names a model may try: dunders, private members, `state`, a property, class
attributes that are not functions, a classmethod, a staticmethod, a nested class,
instance attributes, what `__getattr__` would answer, `object`'s and the
metaclass's members, builtins."""

MALFORMED = [
    "increment.__globals__",
    "increment()",
    "increment; import os",
    "__import__('os').system('true')",
    "reset\n",
    " increment",
    "increment\x00",
]
"""Names that are not identifiers (expressions, paths, padding): nothing evaluates them."""


@pytest.fixture
def counter_module() -> Iterator[object]:
    """The counter environment's module, with its record of touched members cleared."""
    cls = load_python_class("counter:Counter", base_dir=ENVS)
    module = sys.modules[cls.__module__]
    touched: list[str] = module.TOUCHED
    touched.clear()
    yield module
    touched.clear()


def _env(module: object) -> PythonToolEnvironment:
    return PythonToolEnvironment(module.Counter(count=1))  # type: ignore[attr-defined]


def _offered(name: str) -> ToolCall:
    return ToolCall(name=name, arguments={})


def _tool(name: str) -> ToolSpec:
    return ToolSpec(name=name or "x")


@pytest.mark.parametrize("name", UNREACHABLE + MALFORMED)
def test_security_name_is_rejected_as_unknown_tool(counter_module: object, name: str) -> None:
    env = _env(counter_module)
    before = env.state()
    counter_module.TOUCHED.clear()  # type: ignore[attr-defined]
    got = env.execute(_offered(name), call_id="c", tool=_tool(name))
    assert got.outcome == "rejected"
    assert isinstance(got.result, dict)
    error = got.result["error"]
    assert isinstance(error, str) and error.startswith("unknown tool '")
    assert counter_module.TOUCHED == []  # type: ignore[attr-defined]
    assert env.state() == before


@pytest.mark.parametrize("name", ["increment", "reset"])
def test_security_public_method_is_reachable_control(counter_module: object, name: str) -> None:
    # The control: the same path that refuses the names above reaches a real tool.
    got = _env(counter_module).execute(_offered(name), call_id="c", tool=_tool(name))
    assert got.outcome == "ok"


def test_security_not_offered_public_method_is_rejected(counter_module: object) -> None:
    env = _env(counter_module)
    got = env.execute(_offered("increment"), call_id="c", tool=None)
    assert got.outcome == "rejected"
    assert env.state() == {"count": 1, "notes": []}


@pytest.mark.parametrize(
    "arguments",
    [
        {"__class__": 1},
        {"_x": 1},
        {"__dict__": {}},
        {"by": 1, "_private": 2},
        {"not-an-identifier": 1},
        {"a b": 1},
        {"": 1},
    ],
    ids=["dunder-class", "private", "dunder-dict", "mixed", "dash", "space", "empty"],
)
def test_security_argument_names_are_rejected(
    counter_module: object, arguments: JsonObject
) -> None:
    env = _env(counter_module)
    call = ToolCall(name="echo", arguments=arguments)
    got = env.execute(call, call_id="c", tool=_tool("echo"))
    assert got.outcome == "rejected"
    assert "invalid arguments: argument name" in str(got.result)


def test_security_argument_values_are_data_never_evaluated(counter_module: object) -> None:
    payloads: JsonObject = {
        "code": "__import__('os').system('touch /tmp/pwned')",
        "fmt": "{0.__class__.__mro__}",
        "nested": {"__class__": "x", "$regex": ".*"},
    }
    got = _env(counter_module).execute(
        ToolCall(name="echo", arguments=payloads),
        call_id="c",
        tool=_tool("echo"),
    )
    assert got.outcome == "ok"
    assert got.result == payloads


def test_security_getattr_fallback_never_consulted(counter_module: object) -> None:
    env = _env(counter_module)
    got = env.execute(_offered("anything"), call_id="c", tool=_tool("anything"))
    assert got.outcome == "rejected"
    assert counter_module.TOUCHED == []  # type: ignore[attr-defined]


def test_security_instance_attribute_shadowing_a_method_is_ignored(
    counter_module: object,
) -> None:
    instance = counter_module.Counter(count=1)  # type: ignore[attr-defined]
    # An instance attribute of a tool's name does not replace the class's method.
    instance.__dict__["increment"] = lambda **_: "shadow reached"
    got = PythonToolEnvironment(instance).execute(
        _offered("increment"),
        call_id="c",
        tool=_tool("increment"),
    )
    assert got.result == 2


def test_security_state_is_never_a_tool_even_offered(counter_module: object) -> None:
    env = _env(counter_module)
    got = env.execute(_offered("state"), call_id="c", tool=_tool("state"))
    assert got.outcome == "rejected"


def test_security_metaclass_members_are_unreachable(tmp_path: Path) -> None:
    (tmp_path / "meta_env.py").write_text(
        "HIT = []\n"
        "class Meta(type):\n"
        "    def leak(cls):\n"
        "        HIT.append('leak')\n"
        "        return 'metaclass reached'\n"
        "class Env(metaclass=Meta):\n"
        "    def ok(self):\n"
        "        return 'ok'\n"
    )
    cls = load_python_class("meta_env:Env", base_dir=tmp_path)
    env = PythonToolEnvironment(cls())
    assert env.execute(_offered("leak"), call_id="c", tool=_tool("leak")).outcome == "rejected"
    assert sys.modules[cls.__module__].HIT == []  # type: ignore[attr-defined]
    assert env.execute(_offered("ok"), call_id="c", tool=_tool("ok")).result == "ok"


def test_security_builtin_function_class_attribute_is_unreachable(tmp_path: Path) -> None:
    (tmp_path / "builtin_env.py").write_text(
        "import os\nclass Env:\n    run = os.getcwd\n    listing = staticmethod(os.listdir)\n"
    )
    env = PythonToolEnvironment(load_python_class("builtin_env:Env", base_dir=tmp_path)())
    for name in ("run", "listing"):
        got = env.execute(_offered(name), call_id="c", tool=_tool(name))
        assert got.outcome == "rejected"
