"""The conversation data model (suite `schema_version` 2): turns, environments, checks.

A conversation is a case with scripted user `turns` instead of one prompt. The model's
tool calls are answered by an `environment` named from the suite's `environments`
(scripted rules, or a Python class with state), and `checks` at the end decide whether
it passed. docs/conversations.md describes the format with a complete example.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    model_validator,
)

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.vocab import Rubric, ToolCall
from toolgrade.suite._end_checks import (
    CHECK_NAMES,
    CallPattern,
    CheckName,
    Checks,
    FinalStateCheck,
    TrajectoryCheck,
    TrajectoryMode,
)
from toolgrade.suite._models import (
    CallAlternatives,
    CallList,
    Difficulty,
    Order,
    ToolSpec,
    as_call_list,
)

__all__ = [
    "CHECK_NAMES",
    "DEFAULT_MAX_STEPS",
    "CallPattern",
    "CheckName",
    "Checks",
    "Conversation",
    "Environment",
    "FailSpec",
    "FinalStateCheck",
    "PythonEnvironment",
    "ReferenceTurn",
    "RuleWhen",
    "ScriptedEnvironment",
    "ScriptedRule",
    "TrajectoryCheck",
    "TrajectoryMode",
    "Turn",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")

DEFAULT_MAX_STEPS = 10
"""Model replies allowed in one turn unless the turn says otherwise."""


class Turn(BaseModel):
    """One user message and, optionally, what must happen in reply to it.

    A turn given as a plain string is just the user's message (nothing checked).
    """

    model_config = _FROZEN

    user: str
    """The user's message."""
    expected: Annotated[tuple[ToolCall, ...] | None, BeforeValidator(as_call_list)] = None
    """The calls this turn must make (matchers allowed); `null`/`[]`: no call may be
    made; absent: the turn's calls are not checked."""
    alternatives: CallAlternatives = ()
    """Other acceptable call lists for this turn (each a call, a list, or null)."""
    order: Order | None = None
    """`strict` when this turn's calls must come in this order; None: the suite default."""
    reply: JsonValue = None
    """What the assistant's final text of the turn must satisfy: a string (equal up to
    surrounding whitespace) or a matcher such as `{"$contains": "3 files"}`; None: unchecked."""
    max_steps: int = Field(default=DEFAULT_MAX_STEPS, ge=1, le=100)
    """Model replies allowed in this turn (each reply with calls is one step)."""
    add_tools: tuple[str, ...] = ()
    """Tools of the suite offered from this turn on (withheld before it)."""

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        return {"user": data} if isinstance(data, str) else data

    @property
    def states_calls(self) -> bool:
        """True when the turn says which calls it must make (or that none may be made)."""
        return self.expected is not None

    @property
    def states_anything(self) -> bool:
        """True when the turn has something to check (calls or reply)."""
        return self.expected is not None or self.reply is not None


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


def _unavailable() -> JsonValue:
    return {"error": "503 Service Unavailable"}


class FailSpec(BaseModel):
    """A tool result made to fail on purpose.

    The `nth` call of `tool` in the conversation (from 1) is not executed and gets
    `result` instead.
    """

    model_config = _FROZEN

    tool: str = Field(min_length=1)
    """The tool whose call fails."""
    nth: int = Field(default=1, ge=1)
    """Which call of that tool fails (1: the first)."""
    result: JsonValue = Field(default_factory=_unavailable)
    """What the model sees instead of the real result."""


class ReferenceTurn(BaseModel):
    """The reference solution of one turn: its calls, in order, and its final reply."""

    model_config = _FROZEN

    calls: CallList = ()
    """The calls, in the order they are made (one per step)."""
    reply: str = ""
    """The assistant's final text of the turn."""

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, data: Any) -> Any:
        if data is None or isinstance(data, list):
            return {"calls": data or []}
        return data


class Conversation(BaseModel):
    """A multi-turn case: user turns, an environment, checks and a reference solution."""

    model_config = _FROZEN

    id: str = Field(min_length=1)
    """Unique id within the suite."""
    category: str = "multi_turn"
    """A category, as for cases."""
    tags: tuple[str, ...] = ()
    """Free labels for selection and breakdowns."""
    difficulty: Difficulty = "medium"
    """How hard the conversation is meant to be."""
    system: str | None = None
    """System prompt (overrides the suite default)."""
    tools: tuple[str, ...] | None = None
    """Names of the suite's tools offered; None offers all (turns may add more)."""
    tool_definitions: tuple[ToolSpec, ...] = ()
    """Tools defined for this conversation only."""
    turns: tuple[Turn, ...] = Field(min_length=1)
    """The user's messages, in order."""
    environment: str | None = None
    """Name of the suite environment that answers calls; None: every call is uncovered."""
    state: str | None = None
    """The name of a suite `states` entry to start from; `initial_state` then holds
    changes to it (a JSON Merge Patch) until the suite resolves it."""
    initial_state: JsonObject = {}
    """The environment's state at the start. In a suite, the resolved state: a named
    `state` with the changes written here applied (see `written_state`)."""
    fail: tuple[FailSpec, ...] = ()
    """Tool results made to fail on purpose."""
    checks: Checks = Checks()
    """Checks at the end."""
    reference: tuple[ReferenceTurn, ...] | None = None
    """The reference solution, one entry per turn (teacher forcing and `suite check`)."""
    rubric: Rubric | None = None
    """Rubric (binary: pass/fail only; otherwise the share of deciding checks held)."""
    notes: str | None = None
    """Why the expectation is what it is."""

    _written_state: JsonObject | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _reference_per_turn(self) -> Conversation:
        if self.reference is not None and len(self.reference) != len(self.turns):
            raise ValueError(
                f"reference has {len(self.reference)} entries for {len(self.turns)} turns"
            )
        final = self.checks.final_state
        if final is not None and final.from_reference and self.reference is None:
            raise ValueError("final_state from_reference needs a reference")
        return self

    @property
    def written_state(self) -> JsonObject:
        """The `initial_state` as written: with a named `state`, the changes to it.

        Examples:
            >>> from toolgrade.suite import Suite
            >>> suite = Suite.model_validate({"schema_version": 2, "name": "s",
            ...     "states": {"repo": {"files": {"a": "1", "b": "2"}}},
            ...     "cases": [{"id": "c", "turns": ["hi"], "state": "repo",
            ...                "initial_state": {"files": {"b": None}}}]})
            >>> c = suite.conversations[0]
            >>> c.initial_state, c.written_state
            ({'files': {'a': '1'}}, {'files': {'b': None}})
        """
        return self._written_state if self._written_state is not None else self.initial_state

    def keep_written_state(self, patch: JsonObject) -> None:
        """Record the `initial_state` this conversation was written with (see `written_state`)."""
        self._written_state = patch

    @property
    def expected(self) -> tuple[ToolCall, ...]:
        """Every call the reference makes, in order (empty without a reference)."""
        return tuple(c for t in self.reference or () for c in t.calls)

    def deciding(self) -> tuple[CheckName, ...]:
        """The checks that decide pass or fail: `success`, else every check given."""
        if self.checks.success is not None:
            return self.checks.success
        given: list[CheckName] = []
        if any(t.states_anything for t in self.turns):
            given.append("turns")
        c = self.checks
        if c.final_state is not None:
            given.append("final_state")
        if c.unchanged:
            given.append("unchanged")
        if c.trajectory is not None:
            given.append("trajectory")
        if c.forbidden:
            given.append("forbidden")
        if c.max_calls is not None:
            given.append("max_calls")
        return tuple(given)

    def messages(self, default_system: str | None = None) -> list[JsonObject]:
        """The opening messages: the system prompt (when there is one)."""
        system = self.system if self.system is not None else default_system
        return [{"role": "system", "content": system}] if system else []

    def prompt_json(self) -> JsonValue:
        """The user's turns, as results keep a prompt."""
        return [{"role": "user", "content": t.user} for t in self.turns]
