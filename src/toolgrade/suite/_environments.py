"""Environment definitions of a suite: scripted rules, or a Python class with state.

A suite's `environments` name them; a case that names one has its tool calls answered
by it (see `toolgrade.environments` for the code that runs them).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolgrade._core.json_data import JsonObject, JsonValue

__all__ = [
    "Environment",
    "PythonEnvironment",
    "RuleWhen",
    "ScriptedEnvironment",
    "ScriptedRule",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class RuleWhen(BaseModel):
    """Which calls a scripted rule answers: a tool name and argument matchers.

    The matchers are a subset: arguments the rule does not mention are not looked at.
    """

    model_config = _FROZEN

    tool: str = Field(min_length=1)
    """The tool called."""
    arguments: JsonObject = {}
    """Matchers (or plain values) on some of the arguments."""


class ScriptedRule(BaseModel):
    """When a call matches `when`, the environment answers `result` (and applies `update`)."""

    model_config = _FROZEN

    when: RuleWhen
    """The calls this rule answers."""
    result: JsonValue = None
    """The tool result the model sees (JSON, or text)."""
    update: JsonObject | None = None
    """State changes: merged into the state (objects key by key, anything else replaced)."""


class ScriptedEnvironment(BaseModel):
    """Tool results from rules tried in order, plus a default for calls no rule covers."""

    model_config = _FROZEN

    kind: Literal["scripted"]
    """`scripted`."""
    rules: tuple[ScriptedRule, ...] = ()
    """The rules, tried in order: the first whose `when` matches answers."""
    default: JsonValue = None
    """The result of a call no rule covers (null: an error result saying so). Such a
    call is recorded as uncovered either way."""
    description: str = ""
    """What the environment simulates (for people reading the suite)."""


class PythonEnvironment(BaseModel):
    """A Python class whose public methods are the tools, built with the case's state.

    `class` is `"module:Class"`: the module is a file next to the suite (`module.py`,
    dots for folders) or, failing that, an installed module. Loading it runs its code:
    it happens only for suites the user names.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    kind: Literal["python"]
    """`python`."""
    class_: str = Field(alias="class", pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    """`module:Class`."""
    description: str = ""
    """What the environment simulates (for people reading the suite)."""


Environment = Annotated[ScriptedEnvironment | PythonEnvironment, Field(discriminator="kind")]
"""An environment definition: scripted rules or a Python class."""
