"""When the ground truth's side need not run: the model in lockstep with it.

BFCL's checker executes the ground truth's calls on instances of their own and
compares them with the model's after every turn. Both sides start from the same
scenario, and BFCL's API classes are deterministic (their random generators are
seeded per instance; no result depends on another instance), so while the model makes
exactly the ground truth's calls, turn by turn, the ground truth's instances would be
the model's own, state for state and result for result: the state check and the
response check hold without running them. `call_key` says when two calls are the same
call: the same method, and the same arguments once positional ones are bound to their
parameter names, compared by type and value (`1` is not `1.0`, nor `True`).

The shortcut is off where an instance is not alone with its state: the long-context
scenarios of `TravelAPI` and `VehicleControlAPI` share module-level dicts between
instances (what one side changes, the other sees). A call whose text holds more than
its own `name(` (a nested call, or `name(` inside a string, which BFCL rewrites with
each side's own instance name) has no key, and ends the lockstep there.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Sequence
from functools import lru_cache

from toolgrade.bfcl._mt_apis import bfcl_api_classes, method_owner

__all__ = ["SHARED_STATE_CLASSES", "call_key", "lockstep_allowed", "same_calls"]

SHARED_STATE_CLASSES = frozenset({"TravelAPI", "VehicleControlAPI"})
"""Classes whose long-context scenarios share state between instances."""

_NAME_CALL = re.compile(r"\b[a-zA-Z_]\w*\s*\(")

CallKey = tuple[str, str]


def lockstep_allowed(involved_classes: Sequence[str], *, long_context: bool) -> bool:
    """Whether the lockstep shortcut may be used for an entry."""
    return not (long_context and SHARED_STATE_CLASSES.intersection(involved_classes))


@lru_cache(maxsize=8192)
def call_key(text: str) -> CallKey | None:
    """The identity of a plain call `name(args)`, or None when it has none.

    Examples:
        >>> call_key("cd(folder='docs')") == call_key("cd('docs')")
        True
        >>> call_key("round_number(number=1)") == call_key("round_number(number=1.0)")
        False
        >>> call_key("cd(folder=pwd())") is None
        True
    """
    if len(_NAME_CALL.findall(text)) != 1:
        return None
    try:
        node = ast.parse(text.strip(), mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return None
        name = node.func.id
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
        if len(kwargs) != len(node.keywords):
            return None
        if args:
            method = getattr(bfcl_api_classes()[method_owner(name)], name)
            bound = inspect.signature(method).bind(None, *args, **kwargs).arguments
            bound.pop(next(iter(bound)))  # self
            kwargs = dict(bound)
    except (SyntaxError, ValueError, TypeError, KeyError, MemoryError, RecursionError):
        return None
    return name, repr(sorted((k, _typed(v)) for k, v in kwargs.items()))


def _typed(value: object) -> object:
    """A value with the type of every part spelled out (`1`, `1.0` and `True` differ).

    A dict keeps its key order: a method that stores or returns it may show the order.
    """
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, set | frozenset):
        return (type(value).__name__, sorted((_typed(v) for v in value), key=repr))
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_typed(v) for v in value])
    return (type(value).__name__, value)


def same_calls(model: Sequence[str], truth: Sequence[str]) -> bool:
    """Whether the model's calls of a turn are the ground truth's, in order, all keyed."""
    if len(model) != len(truth):
        return False
    for mine, theirs in zip(model, truth, strict=True):
        key = call_key(mine)
        if key is None or key != call_key(theirs):
            return False
    return True
