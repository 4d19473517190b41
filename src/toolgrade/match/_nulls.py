"""`null` for an argument: a value, or the argument left out (docs/matching.md).

Many agent frameworks send `null` for an argument they were not given. Such a `null` is
read as the argument being left out where the argument's schema allows null, or where
the suite says so for every argument (`defaults.null_is_absent`,
`MatchOptions.null_is_absent`); elsewhere `null` is a value like any other. The rule
holds for the optional members of objects (an argument, or a member of an object inside
one): a member its object's schema lists in `required` cannot be left out, so a `null`
there is a value; never for array items. The comparison (`_values`, `_unordered`) reads
such a member as left out, and the judge validates the arguments without it
(`without_absent_nulls`).
"""

from __future__ import annotations

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.match._coerce import child_schema

__all__ = [
    "absent_null_reason",
    "allows_null",
    "is_required",
    "reads_as_absent",
    "without_absent_nulls",
]

_MAX_DEPTH = 32  # `anyOf` inside `oneOf` inside...: deeper is not read as allowing null


def allows_null(schema: JsonObject | None, _depth: int = 0) -> bool:
    """Whether a schema names `null` as a value it accepts.

    It does by `type` (`"null"`, or a list holding it), OpenAPI's `nullable: true`, an
    `enum` holding null, `const: null`, or an `anyOf`/`oneOf` branch that does. A schema
    that says nothing about types (`{}`) does not name null.

    Examples:
        >>> allows_null({"type": ["string", "null"]}), allows_null({"type": "string"})
        (True, False)
        >>> allows_null({"anyOf": [{"type": "string"}, {"type": "null"}]})
        True
        >>> allows_null({"type": "string", "nullable": True}), allows_null(None)
        (True, False)
    """
    if not schema or _depth > _MAX_DEPTH:
        return False
    declared = schema.get("type")
    if declared == "null" or (isinstance(declared, list) and "null" in declared):
        return True
    if schema.get("nullable") is True:
        return True
    enum = schema.get("enum")
    if isinstance(enum, list) and None in enum:
        return True
    if "const" in schema and schema["const"] is None:
        return True
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and any(
            isinstance(b, dict) and allows_null(b, _depth + 1) for b in branches
        ):
            return True
    return False


def is_required(parent: JsonObject | None, key: str) -> bool:
    """Whether an object's schema lists `key` in `required`.

    Examples:
        >>> is_required({"required": ["path"]}, "path"), is_required(None, "path")
        (True, False)
    """
    required = parent.get("required") if parent else None
    return isinstance(required, list) and key in required


def reads_as_absent(
    value: JsonValue, schema: JsonObject | None, *, everywhere: bool, required: bool = False
) -> bool:
    """Whether a member's value is read as the member left out.

    Args:
        value: the member's value.
        schema: the member's schema (None: unknown).
        everywhere: the suite reads every `null` member as left out.
        required: the object's schema requires the member (then `null` is a value).
    """
    return value is None and not required and (everywhere or allows_null(schema))


def absent_null_reason(schema: JsonObject | None) -> str:
    """The message of a `null` read as left out where the expectation wanted a value."""
    why = "its schema allows null" if allows_null(schema) else "defaults.null_is_absent"
    return f"null read as the argument left out ({why})"


def without_absent_nulls(
    value: JsonValue, schema: JsonObject | None, *, everywhere: bool
) -> JsonValue:
    """`value` without the members whose `null` is read as left out, at any depth.

    The value itself is returned when nothing is dropped (no copy); a value holding
    no `null` at all is returned at once.

    Examples:
        >>> s = {"type": "object", "properties": {"ref": {"type": ["string", "null"]}}}
        >>> without_absent_nulls({"ref": None, "n": None}, s, everywhere=False)
        {'n': None}
    """
    if not _holds_null(value):
        return value
    return _without(value, schema, everywhere=everywhere)


def _holds_null(value: JsonValue) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if node is None:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _without(value: JsonValue, schema: JsonObject | None, *, everywhere: bool) -> JsonValue:
    if isinstance(value, dict):
        out: dict[str, JsonValue] = {}
        changed = False
        for key, member in value.items():
            sub = child_schema(schema, key)
            if reads_as_absent(
                member, sub, everywhere=everywhere, required=is_required(schema, key)
            ):
                changed = True
                continue
            kept = _without(member, sub, everywhere=everywhere)
            changed = changed or kept is not member
            out[key] = kept
        return out if changed else value
    if isinstance(value, list):
        items = [
            _without(item, child_schema(schema, k), everywhere=everywhere)
            for k, item in enumerate(value)
        ]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value
