"""Hashable keys for plain deep equality: a fast path for `score_calls`.

`deep_key(a) == deep_key(b)` exactly when `compare_values(a, b, options=DEEP_EQUALITY)`
finds no difference (a property test holds the two together). Comparing keys costs one
tuple comparison, so `score_calls` computes one key per call instead of one deep
comparison per pair, and asks `compare_arguments` for details only on the pairs it reports.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import cast

__all__ = ["deep_key"]

# Strings, numbers and null stand for themselves; the other kinds are tagged tuples, which
# never equal a bare value. Booleans must be tagged: in Python True == 1 (and 1 == 1.0,
# which is wanted), but a boolean never equals a number here.
_BOOL, _ARR, _OBJ = range(3)
_BARE = frozenset({str, int, float, type(None)})


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
    if kind is list:
        elements = cast(list[object], value)
        return (_ARR, tuple([v if type(v) in _BARE else deep_key(v) for v in elements]))
    return _slow_key(value)


def _slow_key(value: object) -> Hashable:
    if isinstance(value, bool):
        return (_BOOL, value)
    if isinstance(value, str | int | float):
        return value
    if isinstance(value, Mapping):
        return (_OBJ, frozenset((k, deep_key(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (_ARR, tuple(deep_key(v) for v in value))
    return ("?", type(value).__name__, repr(value))
