"""BFCL's checks: valid or not, with BFCL's error type (the checker's answers).

The `bfcl` profile turns a check into toolgrade's `BfclCheck` (`toolgrade.bfcl._profile`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

__all__ = ["OK", "OK_VARIABLE", "BfclCheck", "ErrorType", "fail", "valid_pairs"]

ErrorType = Literal[
    "",
    "ast_decoder:decoder_failed",
    "wrong_count",
    "wrong_func_name",
    "missing_required",
    "missing_optional",
    "unexpected_param",
    "type_error:simple",
    "type_error:nested",
    "type_error:java",
    "type_error:js",
    "value_error:others",
    "value_error:string",
    "value_error:list/tuple",
    "value_error:dict_key",
    "value_error:dict_value",
    "value_error:list_dict_count",
    "value_error:list_dict_item",
    "dict_checker:unclear",
    "list_dict_checker:unclear",
    "missing_doc",
    "unknown_type",
    "conversion_unsupported",
    "bad_answer",
]
"""BFCL's error types (its names, without the checker-function prefix), plus toolgrade's
for inputs on which BFCL itself would crash (`missing_doc`, `unknown_type`, ...)."""


@dataclass(frozen=True, slots=True)
class BfclCheck:
    """BFCL's check of a value, a call or a case: valid or not, with BFCL's error type."""

    valid: bool
    error_type: ErrorType = ""
    message: str = ""
    param: str | None = None
    pairs: tuple[tuple[int, int], ...] = ()
    """(expected index, actual index) for every call that matched."""


OK = BfclCheck(valid=True)
"""A value or a call that passes."""
OK_VARIABLE = BfclCheck(valid=True, param="variable")
"""A value that passes as a variable name (BFCL's `type_checker`'s is_variable)."""


def fail(error_type: ErrorType, message: str, param: str | None = None) -> BfclCheck:
    """A failure: BFCL's error type, its message, and the parameter it is about."""
    return BfclCheck(valid=False, error_type=error_type, message=message, param=param)


@lru_cache(maxsize=256)
def valid_pairs(pairs: tuple[tuple[int, int], ...]) -> BfclCheck:
    """A case that passes, with its (expected index, actual index) pairs (one per pairing)."""
    return BfclCheck(valid=True, pairs=pairs)
