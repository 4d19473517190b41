"""Named states: a suite's shared initial states, and the merge patch that adapts them.

A suite may declare `states` (name -> state). A conversation that names one with
`state` starts from that state with its own `initial_state` applied on top as a JSON
Merge Patch (RFC 7396): objects merge key by key, a `null` removes a key, anything else
replaces what was there. So forty conversations that start from the same repository
write it once, and one that needs a changed file lists only that file.

The suite resolves every conversation when it is built (`resolve_state`): from then
on a conversation's `initial_state` is the state it starts from, whoever reads it (the
runner, the reference replay, `suite check`, reports); the patch as written is kept for
writing the suite back (`Suite.to_dict`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING

from toolgrade._core.json_data import JsonObject

if TYPE_CHECKING:
    from toolgrade.suite._case import Case

__all__ = ["merge_patch", "resolve_state"]


def merge_patch(target: JsonObject, patch: JsonObject) -> JsonObject:
    """Apply `patch` to `target` as a JSON Merge Patch (RFC 7396); return a new object.

    Objects are merged key by key, recursively; any other value replaces what was
    there; a `null` in `patch` deletes the key. Neither argument is changed, and the
    result shares nothing with either. Keys keep the target's order; new keys follow.

    Args:
        target: the object patched.
        patch: the changes.

    Returns:
        The patched object.

    Examples:
        >>> merge_patch({"a": {"x": 1, "y": 2}, "b": [1]}, {"a": {"y": 3, "x": None}, "b": [2]})
        {'a': {'y': 3}, 'b': [2]}
        >>> merge_patch({"a": 1}, {"a": {"b": None, "c": 2}})
        {'a': {'c': 2}}
    """
    merged = dict(target)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict):
            current = merged.get(key)
            merged[key] = merge_patch(current if isinstance(current, dict) else {}, value)
        else:
            merged[key] = copy.deepcopy(value)
    return {k: v if k in patch else copy.deepcopy(v) for k, v in merged.items()}


def resolve_state(conversation: Case, states: Mapping[str, JsonObject]) -> Case:
    """The conversation as it starts: from its named state, patched by its `initial_state`.

    A conversation that names no state is returned as it is. One that names a state
    gets `initial_state` = `merge_patch(states[state], patch)`, where the patch is the
    `initial_state` it was written with (`Case.written_state`, kept so that
    resolving again, with other states, starts from what was written).

    Args:
        conversation: the conversation.
        states: the suite's named states.

    Returns:
        The conversation, or a resolved copy of it.

    Raises:
        ValueError: it names a state that `states` does not define.
    """
    name = conversation.state
    if name is None:
        return conversation
    if name not in states:
        known = ", ".join(sorted(states)) or "none"
        raise ValueError(f"case {conversation.id}: state '{name}' is not defined (states: {known})")
    patch = conversation.written_state
    start = conversation.model_copy(update={"initial_state": merge_patch(states[name], patch)})
    start.keep_written_state(patch)
    return start
