"""Tool calls: the `ToolCall` model, and reading calls from the shapes tools and models use.

`as_call` and `as_calls` return `ToolCall`s; `read_calls` reads a list of calls without
building models, for `score_calls`, which mostly needs only names and arguments.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, model_validator

from toolgrade._json import JsonObject, JsonValue, loads_checked
from toolgrade._trusted import construct_trusted
from toolgrade.errors import InputError

__all__ = [
    "ARGUMENT_KEYS",
    "NAME_KEYS",
    "RawCalls",
    "ToolCall",
    "as_call",
    "as_calls",
    "read_calls",
]

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
            name, arguments = _name_and_arguments(data)
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


def _name_and_arguments(data: Mapping[str, Any]) -> tuple[str, JsonObject]:
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
        raise ValueError(f"arguments of '{name}' must be an object, got {_kind(arguments)}")
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
        return f"call name must be a string, got {_kind(name)}"
    return "call name is empty"


def _kind(value: object) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    if value is None:
        return "null"
    return type(value).__name__


def _trusted_call(name: str, arguments: JsonObject) -> ToolCall:
    """Build a ToolCall from values already checked, skipping pydantic validation.

    Scoring builds one call per input, so it matters (tests compare it with a validated call).
    """
    return construct_trusted(ToolCall, {"name": name, "arguments": arguments})


def as_call(value: object, *, where: str = "call") -> ToolCall:
    """Turn a `ToolCall` or a call mapping into a `ToolCall`.

    Args:
        value: a `ToolCall`, or a mapping with a name and arguments (any accepted alias).
        where: how to name the value in an error message, e.g. `expected[2]`.

    Returns:
        The call.

    Raises:
        InputError: the value is not a call.

    Examples:
        >>> as_call({"tool": "search", "args": {"q": "x"}}).to_dict()
        {'name': 'search', 'arguments': {'q': 'x'}}
    """
    if type(value) is not dict and isinstance(value, ToolCall):
        return value
    return _trusted_call(*_read_call(value, where))


def _read_call(value: object, where: str) -> tuple[str, JsonObject]:
    """Read the name and arguments of a `ToolCall` or a call mapping (see `as_call`)."""
    if type(value) is not dict:  # the common case first: a plain dict
        if isinstance(value, ToolCall):
            return value.name, value.arguments
        if not isinstance(value, Mapping):
            raise InputError(f"{where}: a call must be an object, got {_kind(value)}")
    try:
        return _name_and_arguments(value)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None


class RawCalls(NamedTuple):
    """One side's calls as read: names and arguments, `ToolCall`s built only on request.

    `score_calls` callers mostly want numbers, and building twenty models would cost more
    than the scoring itself.
    """

    names: list[str]
    arguments: list[JsonObject]
    given: dict[int, ToolCall]
    """The inputs that were `ToolCall`s already, by index: handed back as they are."""

    def call(self, i: int) -> ToolCall:
        """The `i`-th call as a `ToolCall` (a new one each time, unless it was given)."""
        given = self.given.get(i)
        return _trusted_call(self.names[i], self.arguments[i]) if given is None else given


def read_calls(values: object, side: str) -> RawCalls:
    """Read a list of calls (see `as_calls`) without building `ToolCall`s.

    Raises:
        InputError: `values` is not a list, or one item is not a call (named by index).
    """
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Sequence):
        raise InputError(f"{side}: must be a list of calls, got {_kind(values)}")
    calls = RawCalls([], [], {})
    names, arguments = calls.names, calls.arguments
    for i, value in enumerate(values):
        if type(value) is dict and "function" not in value:
            # The usual shapes, read inline with the precedence of `NAME_KEYS` and
            # `ARGUMENT_KEYS` (a loop over them costs a tenth of scoring); `tool_name`,
            # any other shape, or anything wrong takes the general path below.
            name = value["name"] if "name" in value else value.get("tool")
            args = (
                value["arguments"]
                if "arguments" in value
                else value["args"]
                if "args" in value
                else value.get("parameters")
            )
            if type(name) is str and type(args) is dict and name.strip():
                names.append(name)
                arguments.append(args)
                continue
        name, args = _read_call(value, f"{side}[{i}]")
        if isinstance(value, ToolCall):
            calls.given[i] = value
        names.append(name)
        arguments.append(args)
    return calls


def as_calls(values: object, *, side: str = "calls") -> tuple[ToolCall, ...]:
    """Turn a list of calls (objects or `ToolCall`s) into a tuple of `ToolCall`.

    Raises:
        InputError: `values` is not a list, or one item is not a call (named by index).
    """
    calls = read_calls(values, side)
    return tuple(calls.call(i) for i in range(len(calls.names)))
