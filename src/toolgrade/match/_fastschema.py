"""A fast path for the common case of schema validation: a valid call, a simple schema.

Tool schemas are nearly always plain: `type`, `properties`, `required`, `items`,
`enum`, `additionalProperties`. For those, checking that a call is valid takes a few
isinstance tests, where jsonschema builds an evaluation tree. `is_certainly_valid`
answers True only when it understood every keyword of the schema and the value
satisfies them; any other answer sends the value to jsonschema, which also explains
violations. A property test holds the two together.
"""

from __future__ import annotations

from toolgrade._json import JsonObject, JsonValue
from toolgrade.match._keys import deep_key

__all__ = ["is_certainly_valid", "is_simple"]

# Keywords that only annotate (they never make a value invalid).
# `$schema` is not among them: an older draft reads `integer` and `items` differently.
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "format", "$comment"}
    | {"deprecated", "readOnly", "writeOnly", "contentMediaType", "x-toolgrade-trim"}
)
_CHECKED = frozenset({"type", "properties", "required", "additionalProperties", "items", "enum"})
_KNOWN = _ANNOTATIONS | _CHECKED
_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})


def is_simple(schema: JsonValue) -> bool:
    """True when every keyword of the schema (recursively) is one the fast path knows."""
    if not isinstance(schema, dict):
        return isinstance(schema, bool)
    if not schema.keys() <= _KNOWN:
        return False
    declared = schema.get("type")
    if declared is not None:
        names = declared if isinstance(declared, list) else [declared]
        if not all(isinstance(t, str) and t in _TYPES for t in names):
            return False
    props = schema.get("properties")
    if props is not None and not (
        isinstance(props, dict) and all(is_simple(s) for s in props.values())
    ):
        return False
    required = schema.get("required")
    if required is not None and not (
        isinstance(required, list) and all(isinstance(k, str) for k in required)
    ):
        return False
    enum = schema.get("enum")
    if enum is not None and not isinstance(enum, list):
        return False
    return all(is_simple(schema[k]) for k in ("additionalProperties", "items") if k in schema)


def _type_ok(name: str, value: JsonValue) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    return isinstance(value, int | float)


def is_certainly_valid(value: JsonValue, schema: JsonValue) -> bool:
    """Whether `value` satisfies a simple schema (see `is_simple`; False when unsure)."""
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    if isinstance(declared, str) and not _type_ok(declared, value):
        return False
    if isinstance(declared, list) and not any(_type_ok(str(t), value) for t in declared):
        return False
    enum = schema.get("enum")
    if isinstance(enum, list) and deep_key(value) not in {deep_key(v) for v in enum}:
        return False
    if isinstance(value, dict):
        return _object_ok(value, schema)
    items = schema.get("items")
    if isinstance(value, list) and items is not None:
        return all(is_certainly_valid(v, items) for v in value)
    return True


def _object_ok(value: JsonObject, schema: JsonObject) -> bool:
    required = schema.get("required")
    if isinstance(required, list) and any(k not in value for k in required):
        return False
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = props.get(key, extra)
        if not is_certainly_valid(item, sub):
            return False
    return True
