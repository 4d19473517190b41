"""Value equality (coercion, normalisation, matchers) and call alignment."""

from toolscore.match._align import align
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
    "MatchOptions",
    "Mismatch",
    "MismatchReason",
    "align",
    "compare_arguments",
    "compare_values",
]
