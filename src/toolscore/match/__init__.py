"""Value equality (coercion, normalisation, matchers) and call alignment."""

from toolscore.match._align import align
from toolscore.match._keys import deep_key, same_arguments
from toolscore.match._matchers import MATCHER_NAMES, is_matcher, matcher_problems
from toolscore.match._values import (
    DEEP_EQUALITY,
    MatchOptions,
    Mismatch,
    MismatchReason,
    compare_arguments,
    compare_values,
)

__all__ = [
    "DEEP_EQUALITY",
    "MATCHER_NAMES",
    "MatchOptions",
    "Mismatch",
    "MismatchReason",
    "align",
    "compare_arguments",
    "compare_values",
    "deep_key",
    "is_matcher",
    "matcher_problems",
    "same_arguments",
]
