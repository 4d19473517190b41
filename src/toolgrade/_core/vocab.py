"""The shared vocabulary: the words every layer of toolgrade speaks.

`ToolCall` (a call), `Mismatch` (one argument difference), `Status` (the verdict on a
case, a turn or a conversation), `PairKind` and `PairResult` (the verdict on one pair of
calls) and `Rubric` (how a case is scored) are declared here once, and every other
module imports them from here. This module is
the bottom of the import graph: it imports nothing from toolgrade but `_json` (a test
checks it), so extraction, matching, judging, results and reports may all use it.

The public paths stay where users know them (`toolgrade.ToolCall`, `toolgrade.Status`,
`toolgrade.match.Mismatch`, ...): they re-export these names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from toolgrade._core.json_data import JsonObject, JsonValue, loads_checked

__all__ = [
    "ARGUMENT_KEYS",
    "NAME_KEYS",
    "REQUIRED_BY_SCHEMA",
    "Mismatch",
    "MismatchReason",
    "PairKind",
    "PairResult",
    "Rubric",
    "Status",
    "ToolCall",
    "kind_of",
    "name_and_arguments",
]

Rubric = Literal["binary", "partial", "f1"]
"""How a case is scored: `binary` (all or nothing), `partial` (credit per pair) or `f1`
(call-level precision and recall)."""

PairKind = Literal["correct", "wrong_args", "wrong_tool", "missed", "extra"]
"""The verdict on one pair of an expected and an actual call (either may be missing)."""


class Status(StrEnum):
    """The verdict on one case."""

    CORRECT = "correct"
    """Every expected call matched, nothing else was called."""
    WRONG_ARGS = "wrong_args"
    """The right tools, some argument wrong."""
    WRONG_TOOL = "wrong_tool"
    """A tool other than the expected one was called."""
    MISSED_CALL = "missed_call"
    """No call was made when one was expected."""
    UNEXPECTED_CALL = "unexpected_call"
    """A call was made when none was expected."""
    EXTRA_CALLS = "extra_calls"
    """All expected calls matched, plus more calls."""
    PARSE_ERROR = "parse_error"
    """The output held a malformed call and nothing valid matched."""
    TIMEOUT = "timeout"
    """The model did not answer in time (not scored)."""
    ERROR = "error"
    """The case could not be run (not scored)."""
    FORBIDDEN_CALL = "forbidden_call"
    """Conversations: a forbidden call was made."""
    STATE_MISMATCH = "state_mismatch"
    """Conversations: the environment's state is not what was expected."""
    REPLY_MISMATCH = "reply_mismatch"
    """Conversations: an assistant reply does not say what it must."""
    STEP_LIMIT = "step_limit"
    """Conversations: a turn used every step it was allowed without answering."""
    UNCOVERED_CALL = "uncovered_call"
    """Conversations: a call no rule of the scripted environment covers."""

    @property
    def scored(self) -> bool:
        """False for `timeout` and `error`: they are not evidence about the model."""
        return self not in (Status.TIMEOUT, Status.ERROR)

    @property
    def conversational(self) -> bool:
        """True for the statuses only a conversation can have."""
        return self in _CONVERSATIONAL


_CONVERSATIONAL = frozenset(
    {
        Status.FORBIDDEN_CALL,
        Status.STATE_MISMATCH,
        Status.REPLY_MISMATCH,
        Status.STEP_LIMIT,
        Status.UNCOVERED_CALL,
    }
)


# The one alias table of a call object, for `ToolCall` input and for extraction's reader
# (`toolgrade.extract._json_scan.call_from_object`): the first key present wins.
NAME_KEYS = ("name", "tool", "tool_name")
"""Keys that may hold a call's name, in order of precedence."""
ARGUMENT_KEYS = ("arguments", "args", "parameters")
"""Keys that may hold a call's arguments, in order of precedence."""


class ToolCall(BaseModel):
    """One call of a tool: its name and its arguments.

    Input also accepts the aliases `tool_name` and `tool` (for `name`), `args` and `parameters` (for
    `arguments`), and an OpenAI-style `function` object whose `arguments` may be a JSON
    string.

    Examples:
        >>> ToolCall(name="read_file", arguments={"path": "README.md"}).name
        'read_file'
        >>> ToolCall.model_validate({"tool": "search", "args": {"q": "x"}}).arguments
        {'q': 'x'}
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """The name of the tool called."""
    arguments: JsonObject = {}
    """The arguments, a JSON object (empty when the call had none)."""

    @model_validator(mode="before")
    @classmethod
    def _accept_aliases(cls, data: Any) -> Any:
        # Stored results hold calls in the canonical shape: let them through untouched,
        # since loading a large run validates tens of thousands of calls.
        if _is_canonical(data):
            return data
        if isinstance(data, Mapping) and not isinstance(data, ToolCall):
            name, arguments = name_and_arguments(data)
            return {"name": name, "arguments": arguments}
        return data

    def to_dict(self) -> JsonObject:
        """Return the call as `{"name": ..., "arguments": ...}`."""
        return {"name": self.name, "arguments": self.arguments}

    def to_tpmjs(self) -> JsonObject:
        """Return the call as `{"tool": ..., "args": ...}` (the TPMJS scorer's shape)."""
        return {"tool": self.name, "args": self.arguments}


def _is_canonical(data: Any) -> bool:
    """True for `{"name": <non-blank str>, "arguments": <dict>}` and nothing else."""
    return (
        type(data) is dict
        and len(data) == 2
        and type(data.get("arguments")) is dict
        and type(data.get("name")) is str
        and bool(data["name"].strip())
    )


def name_and_arguments(data: Mapping[str, Any]) -> tuple[str, JsonObject]:
    """Read a call's name and arguments from any accepted mapping shape.

    Raises:
        ValueError: the mapping has no usable name, or arguments that are not an object.
    """
    function = data.get("function")
    if function is not None and isinstance(function, Mapping):
        data = function
    name: Any = next((data[k] for k in NAME_KEYS if k in data), None)
    if name is None and isinstance(function, str):
        name = function
    if not isinstance(name, str) or not name.strip():
        raise ValueError(_bad_name(name))
    arguments: Any = None
    for key in ARGUMENT_KEYS:
        if key in data:
            arguments = data[key]
            break
    if isinstance(arguments, dict):
        return name, arguments
    if isinstance(arguments, str):
        # OpenAI sends arguments as a JSON string; an empty string means no arguments.
        arguments = _arguments_json(name, arguments) if arguments.strip() else {}
    if arguments is None:
        return name, {}
    if not isinstance(arguments, Mapping):
        raise ValueError(f"arguments of '{name}' must be an object, got {kind_of(arguments)}")
    return name, dict(arguments)


def _arguments_json(name: str, text: str) -> JsonValue:
    """Parse arguments given as a JSON string, as strictly as an input file."""
    try:
        value, issues = loads_checked(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"arguments of '{name}' are not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise ValueError(f"arguments of '{name}' are nested too deeply") from None
    if issues:
        raise ValueError(f"arguments of '{name}': {issues[0].path}: {issues[0].message}")
    return value


def _bad_name(name: object) -> str:
    if name is None:
        return "call has no name (give 'name' or 'tool')"
    if not isinstance(name, str):
        return f"call name must be a string, got {kind_of(name)}"
    return "call name is empty"


def kind_of(value: object) -> str:
    """Name the JSON kind of a value for an error message: `an object`, `an array`, ..."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    if value is None:
        return "null"
    return type(value).__name__


MismatchReason = Literal["missing", "unexpected", "type", "value", "schema"]

REQUIRED_BY_SCHEMA = "required by the tool schema"
"""The message of a `missing` difference for an argument the tool's schema requires
(a profile may prefix it: `BFCL missing_required: required by the tool schema`)."""


class Mismatch(BaseModel):
    """One difference between an expected and an actual argument value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    """JSON path of the argument, e.g. `$.options.recursive` or `$.files[2]`."""
    reason: MismatchReason
    """Why it differs: `missing`, `unexpected`, `type`, `value` or `schema`."""
    expected: JsonValue = None
    """The expected value (or matcher); null for `unexpected`."""
    actual: JsonValue = None
    """The actual value; null for `missing`."""
    message: str = ""
    """A sentence for people, when the reason alone is not enough."""
    call: int | None = None
    """In a judged case: the index of the expected call this difference belongs to."""

    @property
    def required_by_schema(self) -> bool:
        """A `missing` argument the tool's schema requires (not only the expectation)."""
        return self.reason == "missing" and (
            self.message == REQUIRED_BY_SCHEMA or self.message.endswith(": " + REQUIRED_BY_SCHEMA)
        )

    @property
    def values_known(self) -> bool:
        """False when the difference carries no values, only its message (BFCL's)."""
        return self.expected is not None or self.actual is not None or not self.message

    def describe(self) -> str:
        """Render the difference in one line, e.g. `$.q: expected "a", got "b"`.

        A difference without values (`values_known` is False) is told by its message:
        `$.city: BFCL value_error:string: Invalid value ...`.

        Examples:
            >>> Mismatch(path="$.q", reason="value", expected="a", actual="b").describe()
            '$.q: expected "a", got "b"'
            >>> Mismatch(path="$.p", reason="missing", message=REQUIRED_BY_SCHEMA).describe()
            '$.p: missing [required by the tool schema]'
        """
        if not self.values_known:
            label = _VALUELESS_LABELS.get(self.reason)
            return (
                f"{self.path}: {label} [{self.message}]"
                if label
                else f"{self.path}: {self.message}"
            )
        if self.reason == "missing":
            text = f"{self.path}: missing (expected {_show(self.expected)})"
        elif self.reason == "unexpected":
            text = f"{self.path}: unexpected argument (got {_show(self.actual)})"
        else:
            text = f"{self.path}: expected {_show(self.expected)}, got {_show(self.actual)}"
        return f"{text} [{self.message}]" if self.message else text


_VALUELESS_LABELS = {"missing": "missing", "unexpected": "unexpected argument"}


def _show(value: JsonValue) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


class PairResult(BaseModel):
    """How one expected call and one actual call were paired and judged.

    The pairs of a case (`CaseResult.pairs`) and of a turn (`TurnResult.pairs`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    expected_index: int | None
    """Index into the expected calls; None for an extra actual call."""
    actual_index: int | None
    """Index into the actual calls; None for a missed expected call."""
    verdict: PairKind
    """The verdict on this pair."""
    credit: float | None = None
    """The pair's credit under the case's rubric (0 to 1); None for a turn's pairs, which
    record none (a turn passes or fails)."""
    details: tuple[Mismatch, ...] = ()
    """The argument differences of this pair (for `wrong_args`)."""
