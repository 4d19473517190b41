"""Plain deep equality, fast: hashable keys (`deep_key`) and a direct test (`same_arguments`).

`deep_key(a) == deep_key(b)`, and `same_arguments(a, b)` for argument objects, hold exactly
when `compare_values(a, b, options=DEEP_EQUALITY)` finds no difference (property tests hold
them together; tuples count as arrays). Neither builds a `Mismatch`: `score_calls` asks
`compare_arguments` for the differences only on the pairs it reports.

`same_arguments` compares two calls directly and stops at the first difference, which is
what most same-tool pairs have (another path, another line). Keys pay off when one call is
compared with many others, e.g. a value against every member of an `enum`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, cast

__all__ = ["deep_key", "same_arguments"]

# Strings, integers and null stand for themselves; the other kinds are tagged tuples, which
# never equal a bare value. Booleans must be tagged: in Python True == 1 (and 1 == 1.0,
# which is wanted), but a boolean never equals a number here.
_BOOL, _ARR, _OBJ = range(3)
_BARE = frozenset({str, int, type(None)})
# Floats are not bare: NaN equals nothing, not even itself, yet Python's container
# comparisons call a NaN equal to the same NaN object (they test identity first).
_NUMBERS = frozenset({int, float})
# Two values of one of these types (the same on both sides) are equal exactly when `==` says so.
_ATOMS = frozenset({str, int, float, bool, type(None)})
_PLAIN = _ATOMS | {dict, list}  # the types json.loads returns


def deep_key(value: object) -> Hashable:
    """Return a hashable key that identifies `value` up to plain deep equality.

    Examples:
        >>> deep_key({"n": 1}) == deep_key({"n": 1.0})
        True
        >>> deep_key([True]) == deep_key([1])
        False
    """
    kind = type(value)
    # Exact-type checks first: they are several times faster than isinstance on ABCs.
    if kind in _BARE:
        return value
    if kind is dict:
        items = cast(dict[str, object], value).items()
        # Scalars stand for themselves: skipping the call for them halves the cost.
        return (_OBJ, frozenset([(k, v if type(v) in _BARE else deep_key(v)) for k, v in items]))
    if kind is bool:
        return (_BOOL, value)
    if kind is float:
        return value if value == value else object()  # NaN: a key equal to no other key
    if kind is list:
        elements = cast(list[object], value)
        return (_ARR, tuple([v if type(v) in _BARE else deep_key(v) for v in elements]))
    return _slow_key(value)


def _slow_key(value: object) -> Hashable:
    if isinstance(value, bool):
        return (_BOOL, value)
    if isinstance(value, float) and value != value:
        return object()
    if isinstance(value, str | int | float):
        return value
    if isinstance(value, Mapping):
        return (_OBJ, frozenset((k, deep_key(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (_ARR, tuple(deep_key(v) for v in value))
    return ("?", type(value).__name__, repr(value))


_MISSING = object()


def same_arguments(expected: Mapping[str, object], actual: Mapping[str, object]) -> bool:
    """Whether two argument objects are equal under plain deep equality.

    Examples:
        >>> same_arguments({"n": 1, "x": [True]}, {"x": [True], "n": 1.0})
        True
        >>> same_arguments({"n": 1}, {"n": True})
        False
    """
    if len(expected) != len(actual):
        return False
    missing = _MISSING
    for key, e in expected.items():
        a = actual.get(key, missing)
        if a is missing:
            return False
        kind = type(e)
        # Atoms of one type are compared inline (a call per value is most of the cost);
        # containers of one type through `_SAME_KIND`, anything else by `_same_value`.
        if kind is not type(a):
            same = _same_value(e, a)
        elif kind in _ATOMS:
            same = e == a  # not `is`: NaN equals nothing, as compare_values says
        else:
            same = _SAME_KIND.get(kind, _same_value)(e, a)
        if not same:
            return False
    return True


def _same_items(expected: list[object], actual: list[object]) -> bool:
    if len(expected) != len(actual):
        return False
    for e, a in zip(expected, actual, strict=True):
        kind = type(e)  # as in same_arguments
        if kind is not type(a):
            same = _same_value(e, a)
        elif kind in _ATOMS:
            same = e == a
        else:
            same = _SAME_KIND.get(kind, _same_value)(e, a)
        if not same:
            return False
    return True


def _same_value(expected: object, actual: object) -> bool:
    """Two values under plain deep equality, whatever their kinds."""
    kind = type(expected)
    if kind is type(actual):
        same_kind = _SAME_KIND.get(kind)
        if same_kind is not None:
            return same_kind(expected, actual)
        if kind in _ATOMS:
            return expected == actual
    elif kind in _NUMBERS and type(actual) in _NUMBERS:
        return expected == actual  # 1 == 1.0
    elif kind in _PLAIN and type(actual) in _PLAIN:
        return False  # different JSON kinds, or a boolean against a number
    # Tuples, other mappings and unknown types: the keys define their equality.
    return deep_key(expected) == deep_key(actual)


_SAME_KIND: dict[type, Callable[[Any, Any], bool]] = {dict: same_arguments, list: _same_items}
"""The one table of how two containers of the same kind are compared."""
