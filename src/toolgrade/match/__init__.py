"""Value equality (coercion, normalisation, matchers), call alignment and pairing.

Plain equality and pairing, all `score_calls` needs, are imported with the package; the
rest (the matcher vocabulary, the call judge, tool schemas and their regular expressions)
is imported on first use (PEP 562), so that scoring two call lists loads neither the
matchers nor jsonschema.
"""

import typing as _typing
from importlib import import_module as _import_module

from toolgrade.match._align import align
from toolgrade.match._coerce import coerce_value
from toolgrade.match._keys import deep_key, same_arguments
from toolgrade.match._pairing import Pairs, pair_calls, pair_calls_general
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
    from toolgrade.match._calls import WRONG_ARGS_CREDIT, CallJudge
    from toolgrade.match._evaluate import MatchContext, accepts_absent
    from toolgrade.match._fastschema import QuickValidator, quick_validator
    from toolgrade.match._matchers import (
        MATCHER_NAMES,
        Matcher,
        MatcherError,
        MatcherSpec,
        is_matcher,
        matcher_problems,
        parse_matcher,
        register_matcher,
    )
    from toolgrade.match._regex import compiled
    from toolgrade.match._schema import schema_mismatches
    from toolgrade.match._schema_keywords import bounded_validator_class, check_tool_schema

__all__ = [
    "CallJudge",
    "DEEP_EQUALITY",
    "MATCHER_NAMES",
    "MatchContext",
    "MatchOptions",
    "Matcher",
    "MatcherError",
    "MatcherSpec",
    "Mismatch",
    "MismatchReason",
    "Pairs",
    "QuickValidator",
    "REQUIRED_BY_SCHEMA",
    "WRONG_ARGS_CREDIT",
    "accepts_absent",
    "align",
    "bounded_validator_class",
    "check_tool_schema",
    "coerce_value",
    "compare_arguments",
    "compare_values",
    "compiled",
    "deep_key",
    "is_matcher",
    "matcher_problems",
    "pair_calls",
    "pair_calls_general",
    "parse_matcher",
    "quick_validator",
    "register_matcher",
    "same_arguments",
    "schema_mismatches",
]

_LAZY = {
    "_calls": ("CallJudge", "WRONG_ARGS_CREDIT"),
    "_evaluate": ("MatchContext", "accepts_absent"),
    "_fastschema": ("QuickValidator", "quick_validator"),
    "_matchers": (
        "MATCHER_NAMES",
        "Matcher",
        "MatcherError",
        "MatcherSpec",
        "is_matcher",
        "matcher_problems",
        "parse_matcher",
        "register_matcher",
    ),
    "_regex": ("compiled",),
    "_schema": ("schema_mismatches",),
    "_schema_keywords": ("bounded_validator_class", "check_tool_schema"),
}
"""The names imported on first use, by the module that holds them (a test checks this
against the imports above, which are what type checkers read)."""
_HOME = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> object:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # the next access is a plain attribute lookup
    return value
