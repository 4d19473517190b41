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

from collections.abc import Hashable, Mapping
from typing import cast

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
        # Nearly every value meets one of the same plain type: compare it inline or by a
        # direct call, since a call per value is most of the cost at this size.
        if kind is type(a):
            if kind in _ATOMS:
                same = e == a  # not `is`: NaN equals nothing, as compare_values says
            elif kind is dict:
                same = same_arguments(e, a)  # type: ignore[arg-type]
            elif kind is list:
                same = _same_items(e, a)  # type: ignore[arg-type]
            else:
                same = _same_value(e, a)
        else:
            same = _same_value(e, a)
        if not same:
            return False
    return True


def _same_items(expected: list[object], actual: list[object]) -> bool:
    if len(expected) != len(actual):
        return False
    for e, a in zip(expected, actual, strict=True):
        kind = type(e)  # the same dispatch as in same_arguments
        if kind is type(a):
            if kind in _ATOMS:
                same = e == a
            elif kind is dict:
                same = same_arguments(e, a)  # type: ignore[arg-type]
            elif kind is list:
                same = _same_items(e, a)  # type: ignore[arg-type]
            else:
                same = _same_value(e, a)
        else:
            same = _same_value(e, a)
        if not same:
            return False
    return True


def _same_value(expected: object, actual: object) -> bool:
    kind = type(expected)
    if kind is type(actual):
        if kind is dict:
            return same_arguments(
                cast(dict[str, object], expected), cast(dict[str, object], actual)
            )
        if kind is list:
            return _same_items(cast(list[object], expected), cast(list[object], actual))
        if kind in _ATOMS:
            return expected == actual
    elif kind in _NUMBERS and type(actual) in _NUMBERS:
        return expected == actual  # 1 == 1.0
    elif kind in _PLAIN and type(actual) in _PLAIN:
        return False  # different JSON kinds, or a boolean against a number
    # Tuples, other mappings and unknown types: the keys define their equality.
    return deep_key(expected) == deep_key(actual)
