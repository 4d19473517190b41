"""Value equality (coercion, normalisation, matchers) and call alignment.

The matcher vocabulary (`MATCHER_NAMES`, `is_matcher`, `matcher_problems`) is imported on
first use (PEP 562): plain equality, all `score_calls` needs, does without it.
"""

import typing as _typing

from toolgrade.match._align import align
from toolgrade.match._keys import deep_key, same_arguments
from toolgrade.match._values import (
    DEEP_EQUALITY,
    REQUIRED_BY_SCHEMA,
    MatchOptions,
    Mismatch,
    MismatchReason,
    compare_arguments,
    compare_values,
)

if _typing.TYPE_CHECKING:
    from toolgrade.match._matchers import MATCHER_NAMES, is_matcher, matcher_problems

__all__ = [
    "DEEP_EQUALITY",
    "MATCHER_NAMES",
    "MatchOptions",
    "Mismatch",
    "MismatchReason",
    "REQUIRED_BY_SCHEMA",
    "align",
    "compare_arguments",
    "compare_values",
    "deep_key",
    "is_matcher",
    "matcher_problems",
    "same_arguments",
]

_FROM_MATCHERS = frozenset({"MATCHER_NAMES", "is_matcher", "matcher_problems"})


def __getattr__(name: str) -> object:
    if name in _FROM_MATCHERS:
        from toolgrade.match import _matchers

        value = getattr(_matchers, name)
        globals()[name] = value  # the next access is a plain attribute lookup
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
