"""Reading tool calls from the shapes tools and models use (`ToolCall` is in `vocab`).

`as_call` and `as_calls` return `ToolCall`s; `read_calls` reads a list of calls without
building models, for `score_calls`, which mostly needs only names and arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from toolgrade._core.json_data import JsonObject
from toolgrade._core.trusted import construct_trusted
from toolgrade._core.vocab import ARGUMENT_KEYS, NAME_KEYS, ToolCall, kind_of, name_and_arguments
from toolgrade.errors import InputError

new_tuple = tuple.__new__
"""`new_tuple(SomeNamedTuple, values)` builds a named tuple without its Python-level
`__new__` (no check of the number of values: the caller passes every field, in order)."""

__all__ = [
    "ARGUMENT_KEYS",
    "NAME_KEYS",
    "RawCalls",
    "ToolCall",
    "as_call",
    "as_calls",
    "call_at",
    "new_tuple",
    "read_calls",
]


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
            raise InputError(f"{where}: a call must be an object, got {kind_of(value)}")
    try:
        return name_and_arguments(value)
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
    # A plain list first: the ABC checks below cost a sixth of scoring a short list.
    if type(values) is not list and (
        isinstance(values, str | bytes | Mapping) or not isinstance(values, Sequence)
    ):
        raise InputError(f"{side}: must be a list of calls, got {kind_of(values)}")
    # Cheaper than `RawCalls(...)`: a tenth of scoring a short list.
    calls = new_tuple(RawCalls, ([], [], {}))
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


def call_at(calls: Sequence[ToolCall], index: int | None) -> ToolCall | None:
    """The call at `index`, or None (no index, or one out of range).

    Examples:
        >>> call_at((ToolCall(name="a"),), 0).name, call_at((), 0), call_at((), None)
        ('a', None, None)
    """
    return calls[index] if index is not None and 0 <= index < len(calls) else None
