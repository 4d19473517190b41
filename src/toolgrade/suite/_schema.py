"""The JSON Schema of the suite file format, and structural validation against it."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, relevance

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.match import QuickValidator, quick_validator

__all__ = ["SCHEMA_FILE", "schema_problems", "suite_schema", "suite_schema_text"]

SCHEMA_FILE = "suite.schema.json"
"""Name of the schema file shipped inside `toolgrade.suite`."""


def suite_schema_text() -> str:
    """The JSON Schema of suite files (schema_version 1 and 2), as shipped in the package."""
    return resources.files("toolgrade.suite").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(suite_schema_text()))


@cache
def _fast_validator() -> QuickValidator | None:
    return quick_validator(json.loads(suite_schema_text()))


def suite_schema() -> JsonObject:
    """The JSON Schema of suite files, parsed (a fresh copy on every call)."""
    schema: JsonObject = json.loads(suite_schema_text())
    return schema


def _specific(error: ValidationError) -> ValidationError:
    """Descend into anyOf/oneOf/if branches to the error a person can act on.

    Of a branch's errors, a plain type mismatch ("is not of type 'null'") is the least
    useful: the value was evidently meant for another branch, so prefer the others.
    """
    while error.context and error.validator not in ("oneOf", "not"):
        pool = [e for e in error.context if e.path or e.validator not in ("type", "const")]
        # The same descent rule as jsonschema's best_match, one level at a time, so
        # that a oneOf/not error keeps its own (clearer) message.
        error = min(pool or error.context, key=relevance)
    return error


def _message(error: ValidationError) -> str:
    # `errorMessage` (the ajv-errors keyword; validators ignore it) gives the message of
    # a rule whose own message would be cryptic, e.g. `not: {}` for a version 1 file
    # holding a conversation, or a pattern.
    if isinstance(error.schema, dict) and isinstance(error.schema.get("errorMessage"), str):
        return str(error.schema["errorMessage"])
    if error.validator == "oneOf" and isinstance(error.instance, dict):
        if "tool" in error.instance and "name" in error.instance:
            return "give the tool's name as 'tool' or 'name', not both"
        return "a call needs the tool's name ('tool' or 'name')"
    if error.validator == "not" and isinstance(error.instance, dict):
        return "give the arguments as 'arguments' or 'args', not both"
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown key(s)")
    return error.message


def schema_problems(data: JsonValue) -> list[tuple[str, str]]:
    """Validate a parsed suite file against the schema.

    Args:
        data: the parsed JSON document.

    Returns:
        One `(json_path, message)` per problem, in document order; empty when valid.
    """
    fast = _fast_validator()
    if fast is not None and fast.is_valid(data):
        return []
    found: list[tuple[str, str]] = []
    for error in _validator().iter_errors(data):
        specific = _specific(error)
        found.append((specific.json_path, _message(specific)))
    return sorted(set(found), key=lambda item: (_path_key(item[0]), item[1]))


def _path_key(path: str) -> tuple[tuple[int, int | str], ...]:
    """Sort JSON paths in document order ($.cases[2] before $.cases[10])."""
    parts: list[tuple[int, int | str]] = []
    for raw in path.replace("[", ".[").split(".")[1:]:
        if raw.startswith("[") and raw[1:-1].isdigit():
            parts.append((0, int(raw[1:-1])))
        else:
            parts.append((1, raw))
    return tuple(parts)
