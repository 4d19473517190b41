"""A turn of a case: the user's message and what must happen in reply; its reference.

Also the tool results a case makes fail on purpose (`FailSpec`).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.vocab import ToolCall
from toolgrade.suite._models import (
    CallAlternatives,
    CallList,
    ChatMessage,
    Order,
    as_call_list,
)
from toolgrade.suite._outcome import Outcome, check_outcome

__all__ = ["DEFAULT_MAX_STEPS", "FailSpec", "ReferenceTurn", "Turn"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")

DEFAULT_MAX_STEPS = 10
"""Model replies allowed in one turn unless the turn says otherwise."""

_WRITTEN_WHEN_SET = ("any_call", "expect_error", "allow_other_calls", "expect", "missing")


class Turn(BaseModel):
    """One user message and, optionally, what must happen in reply to it.

    A turn given as a plain string is just the user's message (nothing checked). A
    case written as one prompt is one turn whose `user` may be the whole list of
    messages that open it (a few-shot prompt).
    """

    model_config = _FROZEN

    user: str | tuple[ChatMessage, ...]
    """The user's message, or the messages that open the turn."""
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
    any_call: bool = False
    """Pass when at least one offered tool is called, arguments unchecked (relevance)."""
    expect_error: bool = False
    """The turn is about a failing call (a missing file, a refused command): an expected
    call counts as made whatever its result. False: only a call whose result is not an
    error (the tool raised, or the call was rejected) counts as made."""
    allow_other_calls: bool = False
    """Calls the turn does not expect (a read, a search, a listing) do not fail it; every
    expected call must still be made, with the right arguments, and succeed (in order,
    among the others, when the order is `strict`). False: every call must be expected."""
    expect: Outcome | None = None
    """The outcome the turn expects: `call` (a tool), `clarify` (ask the user for a
    missing detail), `refuse` (no offered tool can do it) or `answer` (directly, no tool
    needed); None: not stated (`expected_outcome` reads `call` from expected calls)."""
    missing: tuple[str, ...] = ()
    """For `clarify`: the arguments the user's message leaves out, which the model should
    ask for (each a parameter of an offered tool)."""

    @model_serializer(mode="wrap")
    def _written(self, handler: SerializerFunctionWrapHandler) -> Any:
        # `any_call`, `expect_error`, `allow_other_calls`, `expect` and `missing` are
        # written only when set, so that suites written without them hash as they always have.
        data = handler(self)
        if isinstance(data, dict):
            for key in _WRITTEN_WHEN_SET:
                if not getattr(self, key):
                    data.pop(key, None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        return {"user": data} if isinstance(data, str) else data

    @model_validator(mode="after")
    def _not_with_any_call(self) -> Turn:
        if self.allow_other_calls and self.any_call:
            raise ValueError("allow_other_calls with any_call: any_call accepts every call already")
        check_outcome(self)
        return self

    @property
    def states_calls(self) -> bool:
        """True when the turn says which calls it must make (or that none may be made)."""
        return self.expected is not None

    @property
    def states_anything(self) -> bool:
        """True when the turn has something to check (calls or reply)."""
        return self.expected is not None or self.reply is not None

    @property
    def text(self) -> str:
        """The user's message; empty when the turn opens with a list of messages."""
        return self.user if isinstance(self.user, str) else ""

    def opening(self, *, json: bool = False) -> list[JsonObject]:
        """The messages the turn adds to the history: the user's, or its own list.

        `json`: as JSON values (as results keep them), not Python ones.
        """
        if isinstance(self.user, str):
            return [{"role": "user", "content": self.user}]
        mode = "json" if json else "python"
        return [m.model_dump(mode=mode, exclude_none=True) for m in self.user]


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
