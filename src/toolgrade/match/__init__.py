"""Value equality (coercion, normalisation, matchers) and call alignment."""

from toolgrade.match._align import align
from toolgrade.match._keys import deep_key, same_arguments
from toolgrade.match._matchers import MATCHER_NAMES, is_matcher, matcher_problems
from toolgrade.match._values import (
    DEEP_EQUALITY,
    REQUIRED_BY_SCHEMA,
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
    "REQUIRED_BY_SCHEMA",
    "align",
    "compare_arguments",
    "compare_values",
    "deep_key",
    "is_matcher",
    "matcher_problems",
    "same_arguments",
]
