"""The suite data model: tools, cases and suites (frozen pydantic models)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from toolgrade._json import JsonObject, JsonValue
from toolgrade._vocab import Rubric, ToolCall

__all__ = [
    "Case",
    "ChatMessage",
    "Difficulty",
    "Order",
    "Rubric",
    "Suite",
    "SuiteDefaults",
    "ToolSpec",
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


def _as_call_list(value: Any) -> Any:
    """Normalise one call, a list of calls, or null into a list (null -> [])."""
    if value is None:
        return []
    if isinstance(value, Mapping):
        return [value]
    return value


class Case(BaseModel):
    """One test case: a prompt and the tool calls it should produce."""

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
    tool_definitions: tuple[ToolSpec, ...] = ()
    """Tools defined for this case only (OpenAI or flat form, like the suite's tools).

    Always offered; a definition replaces an offered suite tool of the same name.
    """
    expected: tuple[ToolCall, ...]
    """The expected calls; empty (`null` in the file) means no tool must be called."""
    alternatives: tuple[tuple[ToolCall, ...], ...] = ()
    """Other acceptable answers, each a call, a list of calls, or null (no call)."""
    order: Order | None = None
    """`strict` when the calls must come in this order; None uses the suite default."""
    any_call: bool = False
    """Pass when at least one offered tool is called, arguments unchecked (relevance)."""
    rubric: Rubric | None = None
    """Rubric for this case; None uses the run's or the suite's."""
    notes: str | None = None
    """Why the expectation is what it is (for people reading the suite)."""

    @field_validator("expected", mode="before")
    @classmethod
    def _normalise_expected(cls, value: Any) -> Any:
        return _as_call_list(value)

    @field_validator("alternatives", mode="before")
    @classmethod
    def _normalise_alternatives(cls, value: Any) -> Any:
        if value is None:
            return ()
        return [_as_call_list(v) for v in value]

    @field_validator("tool_definitions")
    @classmethod
    def _unique_definitions(cls, value: tuple[ToolSpec, ...]) -> tuple[ToolSpec, ...]:
        seen: set[str] = set()
        for tool in value:
            if tool.name in seen:
                raise ValueError(f"duplicate tool '{tool.name}'")
            seen.add(tool.name)
        return value

    @property
    def expects_no_call(self) -> bool:
        """True when the case passes only if no tool is called."""
        return not self.expected and not self.any_call

    def prompt_json(self) -> JsonValue:
        """The prompt as JSON: the string, or the messages as objects (as results keep it)."""
        if isinstance(self.prompt, str):
            return self.prompt
        return [m.model_dump(mode="json", exclude_none=True) for m in self.prompt]

    def messages(self, default_system: str | None = None) -> list[JsonObject]:
        """The prompt as chat messages (system first when there is one)."""
        out: list[JsonObject] = []
        system = self.system if self.system is not None else default_system
        if system:
            out.append({"role": "system", "content": system})
        if isinstance(self.prompt, str):
            out.append({"role": "user", "content": self.prompt})
        else:
            out.extend(m.model_dump(exclude_none=True) for m in self.prompt)
        return out


class SuiteDefaults(BaseModel):
    """Suite-wide defaults that cases may override."""

    model_config = _FROZEN

    system: str | None = None
    """Default system prompt."""
    order: Order = "any"
    """Default call order rule."""
    rubric: Rubric = "partial"
    """Default rubric."""
    trim_strings: bool = True
    """Ignore the surrounding whitespace of string arguments whose schema does not say
    otherwise (`x-toolgrade-trim`, `contentMediaType`; see docs/matching.md)."""


class Suite(BaseModel):
    """A versioned set of tools and cases."""

    model_config = _FROZEN

    schema_version: Literal[1] = 1
    """Version of the file format."""
    name: str = Field(min_length=1)
    """Suite name, e.g. `coding-agent`."""
    version: str = ""
    """Version of the content; bump it whenever a case changes. Empty when the file
    gives none (or gives `""`): the suite has no version, and says so."""
    description: str = ""
    """What the suite measures."""
    categories: tuple[str, ...] | None = None
    """Allowed categories; None allows any."""
    defaults: SuiteDefaults = SuiteDefaults()
    """Defaults for cases."""
    tools: tuple[ToolSpec, ...] = ()
    """Every tool a case may offer."""
    cases: tuple[Case, ...] = ()
    """The cases, in file order."""

    def tool(self, name: str) -> ToolSpec | None:
        """Return the suite's tool with this name, or None (case definitions aside)."""
        return next((t for t in self.tools if t.name == name), None)

    def tools_for(self, case: Case) -> tuple[ToolSpec, ...]:
        """The tools offered to a case, in a stable order.

        First the suite's tools the case offers (all, or those `case.tools` names), in
        suite order, each replaced by the case's own definition of the same name; then
        the case's other `tool_definitions`, in their order.

        Examples:
            >>> suite = Suite(name="s", tools=[ToolSpec(name="a"), ToolSpec(name="b")])
            >>> case = Case(id="c", prompt="p", expected=None, tools=["b"],
            ...             tool_definitions=[ToolSpec(name="c"), ToolSpec(name="b")])
            >>> [(t.name, t is case.tool_definitions[1]) for t in suite.tools_for(case)]
            [('b', True), ('c', False)]
        """
        if case.tools is None:
            offered = self.tools
        else:
            wanted = set(case.tools)
            offered = tuple(t for t in self.tools if t.name in wanted)
        if not case.tool_definitions:
            return offered
        own = {t.name: t for t in case.tool_definitions}
        replaced = tuple(own.pop(t.name, t) for t in offered)
        return replaced + tuple(t for t in case.tool_definitions if t.name in own)

    @property
    def content_hash(self) -> str:
        """A stable hash of the normalised suite: `sha256:` + 64 hex digits."""
        canonical = json.dumps(
            self._dump(exclude_none=False),
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def _dump(self, *, exclude_none: bool) -> JsonObject:
        # A case without tool definitions dumps as before the field existed, so that
        # the hashes of existing suites stay the same.
        # Likewise a suite that keeps the default string trimming.
        exclude: dict[str, Any] = {}
        bare = {i: {"tool_definitions"} for i, c in enumerate(self.cases) if not c.tool_definitions}
        if bare:
            exclude["cases"] = bare
        if self.defaults.trim_strings:
            exclude["defaults"] = {"trim_strings"}
        if not self.version:  # an unversioned suite is written without one
            exclude["version"] = True
        data: JsonObject = self.model_dump(
            mode="json", exclude_none=exclude_none, exclude=exclude or None
        )
        return data

    def to_dict(self) -> JsonObject:
        """The suite in the file format: `load_suite` reads it back to an equal suite.

        Examples:
            >>> Suite(name="demo").to_dict()["schema_version"]
            1
        """
        return self._dump(exclude_none=True)
