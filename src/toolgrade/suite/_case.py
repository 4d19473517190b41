"""The case: one or more turns, an optional environment and optional end checks.

A case is written in one of two shapes (suite `schema_version` 2 reads both, version 1
the first only):

- **one prompt**: `prompt` and `expected` (with `alternatives`, `order`, `any_call`,
  `expect`, `missing`), read as a case of one turn of one reply, judged by `judge`; it
  is written back, and hashed, in this shape;
- **turns**: scripted user `turns`, an `environment` named from the suite's
  `environments` that answers the model's calls (scripted rules, or a Python class with
  state), `checks` at the end and a `reference` solution (docs/conversations.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.trusted import trusted_builder
from toolgrade._core.vocab import Rubric, ToolCall
from toolgrade.suite._end_checks import CheckName, Checks
from toolgrade.suite._models import (
    ChatMessage,
    Difficulty,
    Order,
    PromptCase,
    ToolDefinitions,
)
from toolgrade.suite._turn import FailSpec, ReferenceTurn, Turn

__all__ = ["Case", "Conversation", "read_case"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")
_build_turn = trusted_builder(Turn)  # a case's one turn, from its validated prompt shape

# The keys of a case written as one prompt, in the order it is written.
_HEAD_KEYS = ("id", "category", "tags", "difficulty")
_PROMPT_KEYS = (*_HEAD_KEYS, "prompt", "system", "tools")
_CASE_KEYS = (*_HEAD_KEYS, "system", "tools", "tool_definitions", "rubric", "notes")
_TURN_KEYS = ("expected", "alternatives", "order")  # the turn's, as the case writes them
_OUTCOME_KEYS = ("expect", "missing")  # the turn's, written (and hashed) only when set
_WRITTEN_KEYS = (
    *_PROMPT_KEYS,
    "tool_definitions",
    *_TURN_KEYS,
    "any_call",
    *_OUTCOME_KEYS,
    "rubric",
    "notes",
)


class Case(BaseModel):
    """One test case: user turns, what they must lead to, and what answers the calls.

    `Case(id=..., prompt=..., expected=...)` is a case of one prompt (one turn of one
    reply); `Case(id=..., turns=[...], ...)` a conversation (see the module's help).

    Examples:
        >>> case = Case(id="c1", prompt="Read the readme",
        ...             expected={"name": "read_file", "arguments": {"path": "README.md"}})
        >>> case.single, len(case.turns), case.turns[0].max_steps, case.category
        (True, 1, 1, 'simple')
        >>> case.expected[0].name
        'read_file'
        >>> sorted(case.model_dump(exclude_none=True))[:4]
        ['alternatives', 'any_call', 'category', 'difficulty']
    """

    model_config = _FROZEN

    id: str = Field(min_length=1)
    """Unique id within the suite."""
    category: str = "multi_turn"
    """`simple`, `complex`, `edge`, `multi_turn`, or a category the suite declares (a case
    written as one prompt is `simple` unless it says)."""
    tags: tuple[str, ...] = ()
    """Free labels for selection and breakdowns."""
    difficulty: Difficulty = "medium"
    """How hard the case is meant to be."""
    system: str | None = None
    """System prompt (overrides the suite default)."""
    tools: tuple[str, ...] | None = None
    """Names of the suite's tools offered; None offers all (turns may add more)."""
    tool_definitions: ToolDefinitions = ()
    """Tools defined for this case only (OpenAI or flat form, like the suite's tools).

    Always offered; a definition replaces an offered suite tool of the same name.
    """
    turns: tuple[Turn, ...] = Field(min_length=1)
    """The user's turns, in order (a case written as one prompt: one turn of one reply)."""
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
    """Rubric; None uses the run's or the suite's. For a case of several turns: binary is
    pass/fail only, otherwise the share of deciding checks held."""
    notes: str | None = None
    """Why the expectation is what it is."""

    if TYPE_CHECKING:  # the fields, or a case of one prompt's keys (see the class's help)

        def __init__(self, **data: Any) -> None: ...

    _single: bool = PrivateAttr(default=False)
    _written_state: JsonObject | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _one_prompt(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if not (isinstance(data, Mapping) and "prompt" in data):
            return handler(data)
        # Validated in its own shape (its errors name its own keys), then built as is.
        case = handler(_prompt_fields(PromptCase.model_validate(data)))
        case._single = True
        return case

    @model_serializer(mode="wrap")
    def _written(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if not self.single or not isinstance(data, dict):
            return data
        # A case of one prompt is written (and hashed) in the shape it was written in.
        turn = data["turns"][0]
        written = {**data, "prompt": turn["user"], "any_call": self.turns[0].any_call}
        written.update((k, turn[k]) for k in (*_TURN_KEYS, *_OUTCOME_KEYS) if k in turn)
        return {k: written[k] for k in _WRITTEN_KEYS if k in written}

    @model_validator(mode="after")
    def _reference_per_turn(self) -> Case:
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

    @property
    def single(self) -> bool:
        """True for a case written as one prompt: one turn of one reply, judged by `judge`."""
        # Read from the private values directly: `self._single` goes through pydantic's
        # `__getattr__`, about 2 µs, on the judge's path.
        private = self.__pydantic_private__
        return private is not None and private["_single"] is True

    @property
    def prompt(self) -> str | tuple[ChatMessage, ...]:
        """The first turn's user message (a case of one prompt: its prompt)."""
        return self.turns[0].user

    @property
    def expected(self) -> tuple[ToolCall, ...]:
        """The expected calls (written as turns: the reference's calls, in order)."""
        if self.single:
            return self.turns[0].expected or ()
        return tuple(c for t in self.reference or () for c in t.calls)

    @property
    def alternatives(self) -> tuple[tuple[ToolCall, ...], ...]:
        """The first turn's other acceptable call lists (a case of one prompt: its own)."""
        return self.turns[0].alternatives

    @property
    def order(self) -> Order | None:
        """The first turn's order rule (a case of one prompt: its own)."""
        return self.turns[0].order

    @property
    def any_call(self) -> bool:
        """The first turn's relevance rule: any offered tool called passes."""
        return self.turns[0].any_call

    @property
    def expects_no_call(self) -> bool:
        """True for a case of one prompt that passes only if no tool is called."""
        return self.single and not self.expected and not self.any_call

    def messages(self, default_system: str | None = None) -> list[JsonObject]:
        """The opening messages: the system prompt, then a case of one prompt's prompt."""
        system = self.system if self.system is not None else default_system
        out: list[JsonObject] = [{"role": "system", "content": system}] if system else []
        if self.single:
            out.extend(self.turns[0].opening())
        return out

    def prompt_json(self) -> JsonValue:
        """The prompt as results keep it: a string, or messages (every turn's) as objects."""
        if self.single and isinstance(self.turns[0].user, str):
            return self.turns[0].user
        return [m for t in self.turns for m in t.opening(json=True)]


Conversation = Case
"""The same class as `Case`: a case is a conversation of one or more turns."""


def _prompt_fields(written: PromptCase) -> dict[str, Any]:
    """A case written as one prompt's fields: its own, and its one turn of one reply."""
    turn = _build_turn(
        {
            "user": written.prompt,
            "expected": written.expected,
            "alternatives": written.alternatives,
            "order": written.order,
            "reply": None,
            "max_steps": 1,
            "add_tools": (),
            "any_call": written.any_call,
            "expect_error": False,
            "allow_other_calls": False,
            "expect": written.expect,
            "missing": written.missing,
        }
    )
    fields = {k: getattr(written, k) for k in _CASE_KEYS}
    fields["turns"] = (turn,)
    return fields


_NO_CHECKS = Checks()
_FIELDS = tuple(Case.model_fields)
# One set for every case built here, as `_core.trusted` does: it holds every field name,
# so no update of a model's fields set (which only adds names) can change it.
_ALL_FIELDS = set(_FIELDS)
_set = object.__setattr__  # frozen models refuse their own __setattr__


def read_case(data: Any, handler: ValidatorFunctionWrapHandler) -> Case:
    """A suite's case: one written as one prompt is built from its validated shape.

    The suite's validator of each entry (as `Case`'s own, without validating the built
    case again: loading a large suite costs one validation per case).
    """
    if not (isinstance(data, Mapping) and "prompt" in data):
        return handler(data)  # type: ignore[no-any-return]
    values = _prompt_fields(PromptCase.model_validate(data))
    values.update(
        environment=None,
        state=None,
        initial_state={},
        fail=(),
        checks=_NO_CHECKS,
        reference=None,
    )
    case = Case.__new__(Case)
    _set(case, "__dict__", {k: values[k] for k in _FIELDS})  # in the order validation gives
    _set(case, "__pydantic_fields_set__", _ALL_FIELDS)
    _set(case, "__pydantic_extra__", None)
    _set(case, "__pydantic_private__", {"_single": True, "_written_state": None})
    return case
