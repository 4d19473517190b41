"""Scripted environments: tool results from rules tried in order, and a state they update.

A rule answers a call when the tool is the one it names and every argument it names
matches (plain values compare as the judge compares arguments, `$`-objects are
matchers; arguments the rule does not name are not looked at). The first rule that
matches gives the result and merges its `update` into the state. A call no rule covers
is answered by the environment's `default` and recorded as `uncovered`, with a note
naming the call: reports show it as the rule that was missing.
"""

from __future__ import annotations

import copy

from toolgrade._core.json_data import JsonObject, JsonValue, shown_json
from toolgrade._core.transcript import Exchange
from toolgrade._core.vocab import ToolCall
from toolgrade.match import MatchOptions, compare_arguments
from toolgrade.suite import ScriptedEnvironment, ScriptedRule, ToolSpec, merge_patch

__all__ = [
    "NO_RESULT",
    "ScriptedToolEnvironment",
    "deep_merge",
    "describe_call",
    "shown_name",
    "unknown_tool",
]

NO_RESULT: JsonObject = {"error": "no result for this call"}
"""What the model sees for a call no rule covers, when the environment has no `default`."""

_NAME_SHOWN = 80
"""Characters of a tool name quoted in an error or note (model output is unbounded)."""
_NOTE_SHOWN = 240
"""Characters of a whole call quoted in a note."""


def deep_merge(state: JsonObject, update: JsonObject) -> JsonObject:
    """Merge `update` into `state` (JSON Merge Patch, RFC 7396) and return a new object.

    Objects are merged key by key, recursively; any other value replaces what was
    there; a `null` in `update` deletes the key. Neither argument is changed, and the
    result shares nothing with either (`toolgrade.suite.merge_patch`, which also
    applies a conversation's changes to a named state).

    Examples:
        >>> deep_merge({"a": {"x": 1, "y": 2}, "b": [1]}, {"a": {"y": 3, "x": None}, "b": [2]})
        {'a': {'y': 3}, 'b': [2]}
        >>> deep_merge({"a": 1}, {"a": {"b": None, "c": 2}})
        {'a': {'c': 2}}
    """
    return merge_patch(state, update)


def shown_name(name: str) -> str:
    """A tool name as quoted in messages: cut to a bounded length."""
    return name if len(name) <= _NAME_SHOWN else name[: _NAME_SHOWN - 3] + "..."


def unknown_tool(call: ToolCall, call_id: str, *, note: str | None = None) -> Exchange:
    """The exchange of a call that reaches no tool: rejected, `unknown tool 'x'`."""
    name = shown_name(call.name)
    return Exchange(
        id=call_id,
        call=call,
        result={"error": f"unknown tool '{name}'"},
        outcome="rejected",
        note=note or f"no tool '{name}' was offered",
    )


def describe_call(call: ToolCall) -> str:
    """A call in one short line, e.g. `read_file(path="x.md")`, cut to a bounded length.

    Examples:
        >>> describe_call(ToolCall(name="read_file", arguments={"path": "x.md", "n": 2}))
        'read_file(path="x.md", n=2)'
    """
    inside = ", ".join(f"{shown_name(k)}={shown_json(v)}" for k, v in call.arguments.items())
    text = f"{shown_name(call.name)}({inside})"
    return text if len(text) <= _NOTE_SHOWN else text[: _NOTE_SHOWN - 4] + "...)"


class ScriptedToolEnvironment:
    """A `ToolEnvironment` answering calls from a `ScriptedEnvironment`'s rules.

    Deterministic: the result and the state depend only on the rules, the initial
    state and the calls, in order.

    Examples:
        >>> spec = ScriptedEnvironment.model_validate({"kind": "scripted", "rules": [
        ...     {"when": {"tool": "add", "arguments": {"n": {"$any_of": [5, 6]}}},
        ...      "result": "added", "update": {"count": 1}}]})
        >>> env = ScriptedToolEnvironment(spec, {"count": 0})
        >>> tool = ToolSpec(name="add")
        >>> env.execute(ToolCall(name="add", arguments={"n": 5}), call_id="c0", tool=tool).rule
        0
        >>> env.state()
        {'count': 1}
        >>> env.execute(ToolCall(name="add", arguments={"n": -1}), call_id="c1", tool=tool).note
        'no rule covers add(n=-1)'
    """

    __slots__ = ("_options", "_spec", "_state")

    def __init__(
        self,
        spec: ScriptedEnvironment,
        initial_state: JsonObject,
        *,
        trim: bool = True,
        null_is_absent: bool = False,
    ) -> None:
        """Start from a copy of `initial_state`.

        Args:
            spec: the rules and the default result.
            initial_state: the state at the start (copied).
            trim: ignore the surrounding whitespace of strings when matching arguments
                (the suite's `defaults.trim_strings`).
            null_is_absent: read every `null` argument as left out (the suite's
                `defaults.null_is_absent`).
        """
        self._spec = spec
        self._state: JsonObject = copy.deepcopy(initial_state)
        self._options = MatchOptions(
            semantic=True, matchers=True, trim=trim, null_is_absent=null_is_absent
        )

    def execute(self, call: ToolCall, *, call_id: str, tool: ToolSpec | None) -> Exchange:
        """Answer one call from the first rule that matches it (see the module docstring)."""
        if tool is None:
            return unknown_tool(call, call_id)
        schema = tool.parameters or None
        for index, rule in enumerate(self._spec.rules):
            if self._matches(rule, call, schema):
                if rule.update:
                    self._state = deep_merge(self._state, rule.update)
                return Exchange(
                    id=call_id, call=call, result=copy.deepcopy(rule.result), rule=index
                )
        default = self._spec.default
        return Exchange(
            id=call_id,
            call=call,
            result=copy.deepcopy(default) if default is not None else dict(NO_RESULT),
            outcome="uncovered",
            note=f"no rule covers {describe_call(call)}",
        )

    def _matches(self, rule: ScriptedRule, call: ToolCall, schema: JsonObject | None) -> bool:
        when = rule.when
        if when.tool != call.name:
            return False
        if not when.arguments:
            return True
        found = compare_arguments(
            when.arguments, call.arguments, options=self._options, schema=schema
        )
        return not found

    def state(self) -> JsonValue:
        """A copy of the current state."""
        return copy.deepcopy(self._state)
