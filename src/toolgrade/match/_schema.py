"""Validating actual arguments against the tool's JSON Schema (jsonschema).

A violation makes the call incorrect even when every expected argument matched: the
tool would have rejected the call. Violations become `Mismatch`es: a missing required
property is `missing`, a property that `additionalProperties: false` forbids is
`unexpected`, anything else is `schema`. The schema's patterns run on RE2 in both
validators (`_schema_keywords`, `_fastschema`): a schema with a pattern RE2 cannot run
is refused (`SuiteError`), never matched by a backtracking engine.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass

from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.memo import IdentityMemo
from toolgrade._core.vocab import REQUIRED_BY_SCHEMA, Mismatch
from toolgrade.errors import SuiteError
from toolgrade.match._ecma import schema_search
from toolgrade.match._fastschema import QuickValidator, quick_validator, quickly_valid
from toolgrade.match._reasons import EXPECTS_LEFT_OUT, schema_reason
from toolgrade.match._schema_keywords import bounded_validator_class, check_tool_schema

__all__ = ["json_path", "merge_mismatches", "schema_mismatches"]

_MAX_MESSAGE = 200


@dataclass(frozen=True, slots=True)
class _Compiled:
    """A schema's validators, and a copy of the schema they were compiled from."""

    snapshot: JsonObject
    detailed: Validator
    quick: QuickValidator | None


def _compile(schema: JsonObject) -> _Compiled:
    try:
        check_tool_schema(schema)
    except SchemaError as exc:
        where = f" at {exc.json_path}" if exc.json_path != "$" else ""
        raise SuiteError(f"invalid tool parameters schema{where}: {exc.message}") from None
    cls = bounded_validator_class(schema)
    return _Compiled(copy.deepcopy(schema), cls(schema), quick_validator(schema))


def _unchanged(schema: JsonObject, compiled: _Compiled) -> bool:
    # A schema is a plain dict that its owner may still change: compiled validators are
    # reused only while it equals the copy they were compiled from (a C-speed comparison).
    return compiled.snapshot == schema


# Compiled once per schema object (while it is unchanged), by identity: tools are shared
# by every call and case that uses them.
_COMPILED: IdentityMemo[JsonObject, _Compiled] = IdentityMemo(256)


def json_path(parts: Iterable[str | int], root: str = "$") -> str:
    """Render a jsonschema error path (`deque(['a', 0])`) as `$.a[0]`."""
    out = root
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def schema_mismatches(arguments: JsonObject, schema: JsonObject | None) -> list[Mismatch]:
    """Validate actual arguments against a tool's parameters schema.

    Args:
        arguments: the actual arguments, already coerced by the schema.
        schema: the tool's parameters JSON Schema; None or empty validates everything.

    Returns:
        One `Mismatch` per violation (at most one per path and reason).

    Raises:
        SuiteError: the schema itself is not a valid JSON Schema, or holds a pattern RE2
            cannot run (lookaround, a backreference); the message says where.

    Examples:
        >>> s = {"type": "object", "properties": {"n": {"type": "integer"}},
        ...      "required": ["n", "m"]}
        >>> [(m.path, m.reason) for m in schema_mismatches({"n": "x"}, s)]
        [('$.m', 'missing'), ('$.n', 'schema')]
    """
    if not schema:
        return []
    compiled = _COMPILED.get(schema, _compile, fresh=_unchanged)
    if quickly_valid(compiled.quick, arguments):
        return []
    found: dict[tuple[str, str], Mismatch] = {}
    for error in compiled.detailed.iter_errors(arguments):
        for mismatch in _convert(error):
            found.setdefault((mismatch.path, mismatch.reason), mismatch)
    return sorted(found.values(), key=lambda m: m.path)


def _convert(error: ValidationError) -> list[Mismatch]:
    path = json_path(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        wanted = error.validator_value if isinstance(error.validator_value, list) else []
        return [
            Mismatch(path=f"{path}.{key}", reason="missing", message=REQUIRED_BY_SCHEMA)
            for key in wanted
            if isinstance(key, str) and key not in instance
        ]
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        return [
            Mismatch(
                path=f"{path}.{key}",
                reason="unexpected",
                actual=instance[key],
                message="not allowed by the tool schema",
            )
            for key in _undeclared(instance, schema)
        ]
    rule = error.validator_value
    keyword = error.validator if isinstance(error.validator, str) else None
    message = schema_reason(keyword, rule, instance, fallback=error.message)
    if len(message) > _MAX_MESSAGE:
        message = message[: _MAX_MESSAGE - 3] + "..."
    expected: JsonValue = rule if _is_json(rule) else None  # type: ignore[assignment]
    return [
        Mismatch(
            path=path,
            reason="schema",
            expected=expected,
            actual=instance if _is_json(instance) else None,
            message=message,
        )
    ]


def _undeclared(instance: dict[str, object], schema: JsonObject) -> list[str]:
    props = schema.get("properties")
    declared = set(props) if isinstance(props, dict) else set()
    patterns = schema.get("patternProperties")
    regexes = [str(p) for p in patterns] if isinstance(patterns, dict) else []
    return [
        key
        for key in instance
        if key not in declared and not any(schema_search(p, key) for p in regexes)
    ]


def _is_json(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool | list | dict)


def merge_mismatches(compared: list[Mismatch], validated: list[Mismatch]) -> list[Mismatch]:
    """Join comparison and validation differences, one per path.

    A schema violation at a path the comparison already reported is not listed again;
    its reason, in the schema's words (`_reasons`), joins the comparison's difference
    instead: `expected "main", got null [null is not a string (schema: type)]`. A value
    given where the case wants the argument left out is told why the tool refuses it
    too (`[] has fewer than 1 item (schema: minItems 1); the case expects the argument
    left out`). An expected argument that is missing and that the schema also requires
    keeps that fact (its message), so that reports can call it required rather than
    only expected.
    """
    if not validated:
        return compared
    required = {m.path for m in validated if m.required_by_schema}
    reasons: dict[str, str] = {}
    for m in validated:
        if m.reason != "missing" and m.message:
            reasons.setdefault(m.path, m.message)
    if required or reasons:
        compared = [_joined(m, required, reasons) for m in compared]
    seen = {m.path for m in compared}
    return compared + [m for m in validated if m.path not in seen]


def _joined(m: Mismatch, required: set[str], reasons: dict[str, str]) -> Mismatch:
    """A comparison's difference with what the schema says about the same path."""
    if m.reason == "missing":
        if m.path not in required:
            return m
        message = f"{m.message}: {REQUIRED_BY_SCHEMA}" if m.message else REQUIRED_BY_SCHEMA
        return m.model_copy(update={"message": message})
    reason = reasons.get(m.path)
    if reason is None:
        return m
    if m.reason == "unexpected":  # a value the case wants left out, which the tool refuses
        message = f"{reason}; {EXPECTS_LEFT_OUT}"
    elif m.message and not reason.startswith(m.message):
        message = f"{m.message}; {reason}"
    else:  # no message, or one the reason repeats (`5 is not a string (schema: type)`)
        message = reason
    return m.model_copy(update={"message": message})
