"""Tools, chat messages, call lists, and the shape of a case written as one prompt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)

from toolgrade._core.json_data import JsonObject
from toolgrade._core.vocab import Rubric, ToolCall
from toolgrade.suite._outcome import Outcome, check_outcome

__all__ = [
    "CallAlternatives",
    "CallList",
    "ChatMessage",
    "Difficulty",
    "Order",
    "PromptCase",
    "Rubric",
    "ToolDefinitions",
    "ToolSpec",
    "as_call_list",
    "as_call_lists",
]

Order = Literal["any", "strict"]
Difficulty = Literal["easy", "medium", "hard"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


def _empty_object_schema() -> JsonObject:
    return {"type": "object", "properties": {}}


class ToolSpec(BaseModel):
    """An OpenAI-style function definition.

    Accepts the flat form `{"name", "description", "parameters"}` and the OpenAI form
    `{"type": "function", "function": {...}}`.
    """

    model_config = _FROZEN

    name: str = Field(min_length=1)
    """The function name the model calls."""
    description: str = ""
    """What the tool does, as shown to the model."""
    parameters: JsonObject = Field(default_factory=_empty_object_schema)
    """JSON Schema of the arguments object."""

    @model_validator(mode="before")
    @classmethod
    def _unwrap_openai(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("type") == "function" and "function" in data:
            extra = set(data) - {"type", "function"}
            if extra:
                raise ValueError(f"unknown keys beside 'function': {sorted(extra)}")
            return data["function"]
        return data

    def to_openai(self) -> JsonObject:
        """Return the definition in the OpenAI `tools` request shape."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def argument_schema(self, name: str) -> JsonObject | None:
        """Return the JSON Schema of one argument, or None when it is not declared."""
        props = self.parameters.get("properties")
        if isinstance(props, dict):
            schema = props.get(name)
            if isinstance(schema, dict):
                return schema
        return None


class ChatMessage(BaseModel):
    """One chat message of a multi-message prompt."""

    model_config = _FROZEN

    role: Literal["system", "user", "assistant", "tool"]
    """Who speaks."""
    content: str | None = None
    """The text (null for an assistant message that only calls tools)."""
    tool_calls: tuple[ToolCall, ...] | None = None
    """Calls made by an assistant message, for few-shot or multi-step prompts."""
    tool_call_id: str | None = None
    """For a `tool` message: the call it answers."""
    name: str | None = None
    """For a `tool` message: the tool that answered."""


def as_call_list(value: Any) -> Any:
    """Normalise one call, a list of calls, or null into a list (null -> [])."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        return [value]
    return value


def as_call_lists(value: Any) -> Any:
    """Normalise a list of call lists, each a call, a list of calls, or null (null -> ())."""
    if value is None:
        return ()
    return [as_call_list(v) for v in value]


CallList = Annotated[tuple[ToolCall, ...], BeforeValidator(as_call_list)]
"""Calls, given as one call, a list of calls, or null (no call)."""

CallAlternatives = Annotated[tuple[tuple[ToolCall, ...], ...], BeforeValidator(as_call_lists)]
"""Acceptable call lists, each given as one call, a list of calls, or null (no call)."""


def unique_tools(value: tuple[ToolSpec, ...]) -> tuple[ToolSpec, ...]:
    """The tools, refused when two share a name."""
    seen: set[str] = set()
    for tool in value:
        if tool.name in seen:
            raise ValueError(f"duplicate tool '{tool.name}'")
        seen.add(tool.name)
    return value


ToolDefinitions = Annotated[tuple[ToolSpec, ...], AfterValidator(unique_tools)]
"""Tools defined for one case, each name once."""


class PromptCase(BaseModel):
    """A case as written in one prompt: the prompt and the tool calls it should produce.

    The shape `Case` reads as a case of one turn (and writes back).
    """

    model_config = _FROZEN

    id: str = Field(min_length=1)
    """Unique id within the suite, e.g. `TC-001`."""
    category: str = "simple"
    """`simple`, `complex`, `edge`, or a category the suite declares."""
    tags: tuple[str, ...] = ()
    """Free labels for selection and breakdowns."""
    difficulty: Difficulty = "medium"
    """How hard the case is meant to be."""
    prompt: str | tuple[ChatMessage, ...]
    """The user's request, or a whole conversation."""
    system: str | None = None
    """System prompt for this case (overrides the suite default)."""
    tools: tuple[str, ...] | None = None
    """Names of the suite's tools offered; None offers all of them."""
    tool_definitions: ToolDefinitions = ()
    """Tools defined for this case only (OpenAI or flat form, like the suite's tools).

    Always offered; a definition replaces an offered suite tool of the same name.
    """
    expected: CallList
    """The expected calls; empty (`null` in the file) means no tool must be called."""
    alternatives: CallAlternatives = ()
    """Other acceptable call lists, each a call, a list of calls, or null (no call)."""
    order: Order | None = None
    """`strict` when the calls must come in this order; None uses the suite default."""
    any_call: bool = False
    """Pass when at least one offered tool is called, arguments unchecked (relevance)."""
    expect: Outcome | None = None
    """The outcome expected: `call`, `clarify`, `refuse` or `answer`; None: not stated."""
    missing: tuple[str, ...] = ()
    """For `clarify`: the arguments the prompt leaves out, which the model should ask for."""
    rubric: Rubric | None = None
    """Rubric for this case; None uses the run's or the suite's."""
    notes: str | None = None
    """Why the expectation is what it is (for people reading the suite)."""

    @model_validator(mode="after")
    def _outcome_agrees(self) -> PromptCase:
        check_outcome(self)
        return self
