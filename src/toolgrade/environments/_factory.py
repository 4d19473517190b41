"""From a conversation's `environment` name to a factory of fresh environments.

Every run of a conversation (each repeat, each teacher-forced turn, each replay of
`suite check`) builds its own environment from the initial state, so runs never share
state. A Python environment's class is loaded once per factory (and its module once
per file version); each environment is a new instance built from a copy of the state.
"""

from __future__ import annotations

import copy
from pathlib import Path

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.transcript import Exchange
from toolgrade._core.vocab import ToolCall
from toolgrade.environments._python import (
    PythonToolEnvironment,
    build_instance,
    load_python_class,
)
from toolgrade.environments._scripted import ScriptedToolEnvironment, deep_merge
from toolgrade.environments._types import EnvironmentFactory, ToolEnvironment
from toolgrade.errors import SuiteError
from toolgrade.suite import Case, PythonEnvironment, Suite, ToolSpec

__all__ = ["NO_ENVIRONMENT_RESULT", "NoToolEnvironment", "deep_merge", "environment_factory"]

NO_ENVIRONMENT_RESULT: JsonObject = {"error": "no environment answers tool calls"}
"""What the model sees for any call in a conversation without an environment."""


class NoToolEnvironment:
    """The environment of a conversation that names none: every call is `uncovered`.

    Examples:
        >>> env = NoToolEnvironment()
        >>> env.execute(ToolCall(name="ls"), call_id="call_0_0_0", tool=None).outcome
        'uncovered'
        >>> env.state()
        {}
    """

    __slots__ = ()

    def execute(self, call: ToolCall, *, call_id: str, tool: ToolSpec | None) -> Exchange:
        """Answer any call with an error result saying no environment answers calls."""
        return Exchange(
            id=call_id,
            call=call,
            result=dict(NO_ENVIRONMENT_RESULT),
            outcome="uncovered",
            note="the conversation has no environment",
        )

    def state(self) -> JsonValue:
        """Always `{}`."""
        return {}


def _tool_names(suite: Suite, conversation: Case) -> frozenset[str]:
    own = (t.name for t in conversation.tool_definitions)
    return frozenset((*(t.name for t in suite.tools), *own))


def _python_factory(
    spec: PythonEnvironment,
    *,
    tool_names: frozenset[str],
    base_dir: Path | None,
    case_id: str,
) -> EnvironmentFactory:
    try:
        cls = load_python_class(spec.class_, base_dir=base_dir)
    except SuiteError as exc:
        raise SuiteError(exc.message, case_id=case_id) from exc

    def build(initial_state: JsonObject) -> ToolEnvironment:
        instance = build_instance(cls, copy.deepcopy(initial_state), case_id=case_id)
        return PythonToolEnvironment(instance, tool_names=tool_names)

    return build


def environment_factory(
    suite: Suite, conversation: Case, *, base_dir: Path | None
) -> EnvironmentFactory:
    """The factory of the environments that answer a conversation's calls.

    Args:
        suite: the suite (its `environments`, tools and defaults).
        conversation: the conversation (its `environment` name).
        base_dir: the suite's folder, where Python environments are looked for first.

    Returns:
        A function building a fresh environment from an initial state.

    Raises:
        SuiteError: the environment is not in the suite, or its Python class cannot be
            loaded (building an instance raises it too, for a state the class refuses).

    Examples:
        >>> suite = Suite.model_validate({"schema_version": 2, "name": "s",
        ...     "cases": [{"id": "c", "turns": ["hi"]}]})
        >>> make = environment_factory(suite, suite.conversations[0], base_dir=None)
        >>> type(make({})).__name__
        'NoToolEnvironment'
    """
    name = conversation.environment
    if name is None:
        return lambda _state: NoToolEnvironment()
    spec = suite.environments.get(name)
    if spec is None:
        known = ", ".join(sorted(suite.environments)) or "none"
        message = f"unknown environment '{name}' (the suite has: {known})"
        raise SuiteError(message, case_id=conversation.id)
    if isinstance(spec, PythonEnvironment):
        return _python_factory(
            spec,
            tool_names=_tool_names(suite, conversation),
            base_dir=base_dir,
            case_id=conversation.id,
        )
    scripted = spec
    trim, null = suite.defaults.trim_strings, suite.defaults.null_is_absent
    return lambda state: ScriptedToolEnvironment(scripted, state, trim=trim, null_is_absent=null)
