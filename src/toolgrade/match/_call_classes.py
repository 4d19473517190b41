"""Classes of equal calls: which actual calls of a tool each expected call of it equals.

`score_calls` pairs by these classes instead of by a matrix of every same-tool pair.
Plain deep equality is an equivalence on calls without NaN (1 == 1.0, true != 1, keys in
any order), and a call holding NaN equals no call, itself included: so the actual calls
equal to an expected call form one class, shared by every expected call equal to them,
and classes never overlap. They are found one of three ways, by cost:

- pair by pair (`same_arguments`), for tools with few calls: what the general path does;
- by the arguments' items as a frozenset, built in C, when every value is a string, an
  integer or null: for these, Python's `==` is exactly deep equality;
- by `deep_key`, for many calls with other values (booleans, floats, nested ones).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from itertools import chain, repeat

from toolgrade._core.json_data import JsonObject
from toolgrade.match._keys import deep_key, same_arguments

__all__ = ["Args", "equal_calls"]

Args = Sequence[JsonObject]
"""One side's argument objects, by call index."""

_PAIRWISE_LIMIT = 4
"""Tools with at most this many same-tool pairs are compared pair by pair: keying a call
costs about two direct comparisons, and these stop at the first difference."""
_KEYED_FROM = 8
"""Calls with nested or non-bare values are keyed (`deep_key`, several comparisons' worth
each) only from this many same-tool pairs per call."""

_NONE: tuple[int, ...] = ()

_BARE = frozenset({str, int, type(None)})
"""Scalars whose Python `==` is exactly deep equality (unlike bool, as True == 1, and float,
as a NaN object equals itself inside a container)."""


def equal_calls(
    rows: list[int], cols: list[int], *, exp_args: Args, act_args: Args
) -> list[Sequence[int]]:
    """For each expected call `rows[k]` of one tool, its equal actual calls among `cols`.

    Args:
        rows: the tool's expected calls, ascending.
        cols: the tool's actual calls, ascending.
        exp_args: the expected calls' arguments.
        act_args: the actual calls' arguments.

    Returns:
        One ascending sequence per row; rows of one class get equal sequences (the same
        object, unless compared pair by pair), rows of different classes disjoint ones.
    """
    n_pairs = len(rows) * len(cols)
    if n_pairs > _PAIRWISE_LIMIT:
        # The tool's calls: all calls when it is the only tool.
        exp_calls = exp_args if len(rows) == len(exp_args) else [exp_args[i] for i in rows]
        act_calls = act_args if len(cols) == len(act_args) else [act_args[j] for j in cols]
        values = chain.from_iterable(map(dict.values, chain(exp_calls, act_calls)))
        if _BARE.issuperset(map(type, values)):  # checked in C, for speed
            # With bare values only, equal items are equal calls: keys built in C.
            col_keys: list[Hashable] = list(map(frozenset, map(dict.items, act_calls)))
            return _classes(cols, col_keys, map(frozenset, map(dict.items, exp_calls)))
        if n_pairs > _KEYED_FROM * (len(rows) + len(cols)):
            # `deep_key(a) == deep_key(b)` exactly when `same_arguments(a, b)` (property-
            # tested in match); a call holding NaN gets a key equal to no other, as it
            # equals no call.
            return _classes(cols, list(map(deep_key, act_calls)), map(deep_key, exp_calls))
    return [[j for j in cols if same_arguments(exp_args[i], act_args[j])] for i in rows]


def _classes(
    cols: list[int], col_keys: list[Hashable], row_keys: Iterable[Hashable]
) -> list[Sequence[int]]:
    """Each expected call's equal actual calls, from exact keys (`col_keys` for `cols`)."""
    # One-call tuples and the lookups are made in C: most of the cost at 50 calls.
    col_of = dict(zip(col_keys, zip(cols), strict=True))
    if len(col_of) < len(cols):  # some actual calls are equal: classes of several calls
        classes: dict[Hashable, list[int]] = {}
        for j, key in zip(cols, col_keys, strict=True):
            if key in classes:
                classes[key].append(j)
            else:
                classes[key] = [j]
        return list(map(classes.get, row_keys, repeat(_NONE)))
    return list(map(col_of.get, row_keys, repeat(_NONE)))
