"""What a conversation left behind: every step, every tool exchange, every check.

A conversation's `CaseResult` carries one `ConversationRecord` (`CaseResult.conversation`):
the turns as they happened (each model reply with the calls extracted from it and the
results the environment gave), the verdict of each turn and each check, the first
failure with its cause, and the environment's state at the start and the end.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    WithJsonSchema,
    model_serializer,
)

from toolgrade._core.json_data import JsonValue
from toolgrade._core.problems import StoredProblem
from toolgrade._core.vocab import Mismatch, PairResult, Status, ToolCall

__all__ = [
    "FAILURE_CAUSES",
    "CheckResult",
    "ConversationMode",
    "ConversationRecord",
    "Exchange",
    "ExchangeOutcome",
    "FailureCause",
    "FirstFailure",
    "Step",
    "TurnResult",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")

FAILURE_CAUSES: tuple[Status, ...] = (
    Status.PARSE_ERROR,
    Status.WRONG_TOOL,
    Status.WRONG_ARGS,
    Status.MISSED_CALL,
    Status.UNEXPECTED_CALL,
    Status.FORBIDDEN_CALL,
    Status.STATE_MISMATCH,
    Status.REPLY_MISMATCH,
    Status.STEP_LIMIT,
    Status.UNCOVERED_CALL,
    Status.TIMEOUT,
    Status.ERROR,
)
"""Every status that can be why a conversation failed, in a fixed order (for reports):
every `Status` but `correct` and `extra_calls` (a turn's extra call is an
`unexpected_call`)."""
_CAUSES = frozenset(FAILURE_CAUSES)


def _failure_cause(status: Status) -> Status:
    if status not in _CAUSES:
        raise ValueError(f"{status.value!r} is not a failure cause")
    return status


FailureCause = Annotated[
    Status,
    AfterValidator(_failure_cause),
    WithJsonSchema({"type": "string", "enum": [c.value for c in FAILURE_CAUSES]}),
]
"""Why a conversation failed, at its first failure: a `Status` among `FAILURE_CAUSES`
(written as its value, e.g. `"wrong_args"`)."""

ConversationMode = Literal["on_policy", "teacher_forced"]
"""`on_policy`: the model lives with its own history; `teacher_forced`: every turn
starts from the reference's history and state."""

ExchangeOutcome = Literal["ok", "error", "uncovered", "injected", "rejected"]
"""What became of one call: `ok` executed; `error` the tool raised (the model sees an
error result); `uncovered` no scripted rule covers it; `injected` a failure made on
purpose (`fail`); `rejected` not executed (no such tool, or arguments that do not
validate against its schema)."""


class Exchange(BaseModel):
    """One call sent to the environment and the result the model saw."""

    model_config = _FROZEN

    id: str
    """The call id (sent back with the result in native mode)."""
    call: ToolCall
    """The call, with the suite's tool name."""
    result: JsonValue = None
    """The result the model saw."""
    outcome: ExchangeOutcome = "ok"
    """What became of the call."""
    rule: int | None = None
    """Scripted environments: the index of the rule that answered."""
    note: str | None = None
    """Why the call was not executed normally (uncovered, rejected, raised)."""


class Step(BaseModel):
    """One model reply within a turn, and the tool exchanges it led to."""

    model_config = _FROZEN

    raw_response: JsonValue = None
    """The model's raw output (text, or the assistant message)."""
    calls: tuple[ToolCall, ...] = ()
    """The calls extracted from it (suite names)."""
    exchanges: tuple[Exchange, ...] = ()
    """The calls as executed, with their results, in order."""
    extraction_format: str | None = None
    """The output format the calls were read in (`none`: no call)."""
    extraction_errors: tuple[StoredProblem, ...] = ()
    """Malformed calls the extractor reported (each kept as `reason: message` text)."""
    latency_ms: float | None = None
    """Time the model took."""
    ttft_ms: float | None = None
    """Time to the first streamed token."""
    finish_reason: str | None = None
    """Why the server stopped."""
    error: str | None = None
    """A request that failed (the conversation ended here)."""
    endpoint: str | None = None
    """With several endpoints: the one this request went to (left out of the JSON
    when None, by `_drop_empty_keys`)."""


class TurnResult(BaseModel):
    """One user turn: what the model did and whether that was what the turn asked."""

    model_config = _FROZEN

    index: int
    """The turn's position, from 0."""
    user: str
    """The user's message."""
    steps: tuple[Step, ...] = ()
    """The model's replies in this turn, in order."""
    reply: str | None = None
    """The assistant's final text (None when the turn ended without one)."""
    passed: bool = True
    """Whether the turn held: its calls and reply as stated, within its step limit."""
    checked: bool = False
    """Whether the turn stated anything to check (calls or reply)."""
    cause: FailureCause | None = None
    """Why the turn failed."""
    message: str | None = None
    """What went wrong, for people."""
    expected: tuple[ToolCall, ...] = ()
    """The expectation judged against (the best alternative)."""
    pairs: tuple[PairResult, ...] = ()
    """The pairing of the turn's expected and actual calls (without credit)."""
    forced: bool = False
    """True when the turn started from the reference's history and state."""
    expect: str | None = None
    """The outcome the turn states (`call`, `clarify`, `refuse`, `answer`); None when it
    states none, and then left out of the JSON."""

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """Every call the model made in this turn, in order."""
        return tuple(c for s in self.steps for c in s.calls)


class CheckResult(BaseModel):
    """One end-of-conversation check."""

    model_config = _FROZEN

    name: str
    """The check: `turns`, `final_state`, `unchanged`, `trajectory`, `forbidden`, `max_calls`."""
    passed: bool
    """Whether it held."""
    deciding: bool = True
    """Whether it decides pass or fail (`success`)."""
    message: str | None = None
    """What went wrong, for people."""
    details: tuple[Mismatch, ...] = ()
    """Differences with their JSON paths (state checks)."""


class FirstFailure(BaseModel):
    """Where and why the conversation first went wrong."""

    model_config = _FROZEN

    cause: FailureCause
    """The cause."""
    message: str
    """What went wrong, for people."""
    turn: int | None = None
    """The turn it happened in (from 0); None for an end-of-conversation check."""
    step: int | None = None
    """The step within that turn (from 0), when one is to blame."""
    check: str | None = None
    """The deciding check that failed."""


class ConversationRecord(BaseModel):
    """A conversation as it happened, with every verdict on it."""

    model_config = _FROZEN

    mode: ConversationMode = "on_policy"
    """How it was run."""
    turns: tuple[TurnResult, ...] = ()
    """Every turn that was reached."""
    total_turns: int = 0
    """How many turns the conversation has (some are not reached after an error)."""
    checks: tuple[CheckResult, ...] = ()
    """The end-of-conversation checks, `turns` first."""
    passed: bool = False
    """Whether every deciding check held."""
    progress: float = 0.0
    """Share of the conversation's turns passed."""
    first_failure: FirstFailure | None = None
    """The first failure (None when it passed)."""
    initial_state: JsonValue = None
    """The environment's state at the start."""
    final_state: JsonValue = None
    """The environment's state at the end."""
    initial_state_hash: str | None = None
    """Stored records only: the hash the run stores `initial_state` under, written in
    the JSON instead of that state (see `toolgrade.store`); loading a run puts the
    state back and this back to None."""
    final_state_hash: str | None = None
    """Stored records only: the same for `final_state`."""
    precision: float | None = None
    """Share of the model's calls that the reference makes (None: no reference)."""
    recall: float | None = None
    """Share of the reference's calls the model made."""
    f1: float | None = None
    """Their harmonic mean."""

    @model_serializer(mode="wrap")
    def _without_empty_keys(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            _drop_empty_keys(data)
            for key in ("initial_state", "final_state"):
                if data.get(f"{key}_hash") is None:
                    data.pop(f"{key}_hash", None)
                elif data.get(key) is None:
                    data.pop(key, None)  # the hash stands for it
        return data

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """Every call of the conversation, in order."""
        return tuple(c for t in self.turns for c in t.calls)

    @property
    def steps(self) -> int:
        """How many model replies the conversation took."""
        return sum(len(t.steps) for t in self.turns)


def _drop_empty_keys(record: object) -> None:
    """Remove the keys a serialized `ConversationRecord` leaves out when empty.

    `"expect": None` of every turn, `"endpoint": None` of every step, and `"credit": None`
    of every turn's pair.
    Called by the record's own serializer: a wrap serializer on `Step` or `PairResult`
    itself would cost about 2.5 us per item, this a dict lookup. A run with one server
    then writes its steps without `endpoint`, and every run its turns' pairs without
    `credit`.
    """
    turns = record.get("turns") if isinstance(record, dict) else None
    for turn in turns if isinstance(turns, list | tuple) else ():
        if not isinstance(turn, dict):
            continue
        if turn.get("expect", 0) is None:
            del turn["expect"]
        steps = turn.get("steps")
        for step in steps if isinstance(steps, list | tuple) else ():
            if isinstance(step, dict) and step.get("endpoint", 0) is None:
                del step["endpoint"]
        pairs = turn.get("pairs")
        for pair in pairs if isinstance(pairs, list | tuple) else ():
            if isinstance(pair, dict) and pair.get("credit", 0) is None:
                del pair["credit"]
