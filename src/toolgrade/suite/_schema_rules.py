"""A tool's parameters as a JSON Schema: is it one, and do expected arguments satisfy it.

Expected arguments may hold matchers (`{"$regex": ...}`) where a value would be: an error
about a matcher, or about a value a matcher stands in for, is not a problem.
"""

from __future__ import annotations

import json
from functools import lru_cache

from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator

from toolgrade._core.json_data import JsonValue
from toolgrade.match import (
    QuickValidator,
    bounded_validator_class,
    check_tool_schema,
    is_matcher,
    quick_validator,
)

__all__ = [
    "argument_path",
    "arguments_validator",
    "fast_arguments_validator",
    "holds_matcher",
    "schema_error",
    "through_matcher",
]

_COMPOSITE = frozenset({"anyOf", "oneOf", "allOf", "not", "if", "contains", "uniqueItems"})


@lru_cache(maxsize=1024)
def schema_error(parameters_json: str) -> tuple[str, str] | None:
    """Where (a JSON path suffix) and why parameters are not a valid JSON Schema.

    Cached: checking costs milliseconds, and case after case may define the same tool.
    """
    schema = json.loads(parameters_json)
    try:
        check_tool_schema(schema)
    except SchemaError as exc:
        return exc.json_path[1:], exc.message
    return None


@lru_cache(maxsize=256)
def arguments_validator(parameters_json: str) -> Validator | None:
    """The validator of a tool's parameters (None when they are not a valid schema)."""
    if schema_error(parameters_json) is not None:
        return None  # reported once with the tool
    schema = json.loads(parameters_json)
    return bounded_validator_class(schema)(schema)


@lru_cache(maxsize=256)
def fast_arguments_validator(parameters_json: str) -> QuickValidator | None:
    """The fast (jsonschema-rs) validator of a tool's parameters, where there is one."""
    if arguments_validator(parameters_json) is None:
        return None
    return quick_validator(json.loads(parameters_json))


def holds_matcher(value: object) -> bool:
    """True when the value is, or holds, a matcher."""
    if is_matcher(value):
        return True
    if isinstance(value, dict):
        return any(holds_matcher(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_matcher(v) for v in value)
    return False


def through_matcher(root: JsonValue, error: ValidationError) -> bool:
    """True when the error is about a matcher, or a value a matcher stands in for."""
    node: JsonValue = root
    for step in error.absolute_path:
        if is_matcher(node):
            return True
        if isinstance(node, dict) and isinstance(step, str) and step in node:
            node = node[step]
            continue
        if isinstance(node, list) and isinstance(step, int) and step < len(node):
            node = node[step]
            continue
        break
    if is_matcher(node):
        return True
    return error.validator in _COMPOSITE and holds_matcher(error.instance)


def argument_path(base: str, error: ValidationError) -> str:
    """The JSON path of a schema error within the arguments at `base`."""
    path = base
    for step in error.absolute_path:
        path += f"[{step}]" if isinstance(step, int) else f".{step}"
    return path
