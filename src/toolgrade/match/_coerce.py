"""Schema-guided reading of values: coercion, string and path normalisation.

Models often send `"5"` for an integer, `"true"` for a boolean, or an object encoded
as a JSON string. Where the tool's JSON Schema says which type it wants, such a value
is read as that type before it is compared and validated; without a schema nothing is
coerced (then `"1"` stays different from `1`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from toolgrade._core.json_data import JsonObject, JsonValue

__all__ = [
    "PATH_ARGUMENT_NAMES",
    "TRIM_KEYWORD",
    "child_schema",
    "coerce_value",
    "is_exact",
    "is_path",
    "normalise_path",
    "schema_types",
    "trim_rule",
]

TRIM_KEYWORD = "x-toolgrade-trim"
"""Schema keyword that says whether a string argument's surrounding whitespace is ignored."""

PATH_ARGUMENT_NAMES = frozenset(
    {
        "path",
        "paths",
        "file_path",
        "file_paths",
        "filepath",
        "filename",
        "dir",
        "dirs",
        "directory",
        "dir_path",
        "directory_path",
        "cwd",
        "working_dir",
        "working_directory",
        "folder",
        "input_path",
        "output_path",
        "source_path",
        "target_path",
    }
)
"""Argument names whose string values are file system paths (also `format: "path"`)."""

# A decoded JSON string may be no larger or deeper than this: the value is model output.
_MAX_JSON_CHARS = 100_000
_MAX_JSON_DEPTH = 64
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")


def schema_types(schema: JsonObject | None) -> frozenset[str]:
    """The JSON types a schema allows (`type`, or the union over `anyOf`/`oneOf`).

    An empty set means the schema does not say.
    """
    if not schema:
        return frozenset()
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset((declared,))
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str))
    found: set[str] = set()
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for branch in branches:
                if isinstance(branch, dict):
                    found |= schema_types(branch)
    return frozenset(found)


def child_schema(schema: JsonObject | None, key: str | int) -> JsonObject | None:
    """The schema of one member (string key) or item (integer index) of a value."""
    if not schema:
        return None
    if isinstance(key, str):
        props = schema.get("properties")
        if isinstance(props, dict):
            sub = props.get(key)
            if isinstance(sub, dict):
                return sub
        extra = schema.get("additionalProperties")
        return extra if isinstance(extra, dict) else None
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list) and key < len(prefix):
        first = prefix[key]
        return first if isinstance(first, dict) else None
    items = schema.get("items")
    if isinstance(items, list) and key < len(items):
        items = items[key]
    return items if isinstance(items, dict) else None


def is_exact(schema: JsonObject | None) -> bool:
    """True when the schema lists the accepted values (`enum`, `const`): compare exactly."""
    return bool(schema) and ("enum" in schema or "const" in schema)  # type: ignore[operator]


def trim_rule(schema: JsonObject | None) -> bool | None:
    """Whether a string's schema decides its trimming: True trim, False keep, None: no say.

    `x-toolgrade-trim` decides when it is a boolean. Otherwise a string with a
    `contentMediaType` (JSON Schema's mark for text content: a file's text, a commit
    message) is compared exactly, since its surrounding whitespace is part of it.

    Examples:
        >>> trim_rule({"type": "string", "contentMediaType": "text/plain"})
        False
        >>> trim_rule({"type": "string", "x-toolgrade-trim": True}), trim_rule(None)
        (True, None)
    """
    if not schema:
        return None
    explicit = schema.get(TRIM_KEYWORD)
    if isinstance(explicit, bool):
        return explicit
    if "contentMediaType" in schema:
        return False
    return None


def is_path(schema: JsonObject | None, name: str | None) -> bool:
    """True when a string value is a file system path: by `format: "path"` or by name."""
    if schema and schema.get("format") == "path":
        return True
    return name is not None and name.lower() in PATH_ARGUMENT_NAMES


def normalise_path(text: str) -> str:
    """Normalise a path for comparison without touching the file system.

    Repeated separators collapse, `.` segments go, a trailing `/` goes (directories),
    and surrounding whitespace goes. `..` is kept: resolving it needs the file system.

    Examples:
        >>> normalise_path("./src//a.py"), normalise_path("docs/"), normalise_path("/")
        ('src/a.py', 'docs', '/')
    """
    text = text.strip()
    absolute = text.startswith("/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    body = "/".join(parts)
    if absolute:
        return "/" + body
    return body or "."


def coerce_value(value: JsonValue, schema: JsonObject | None) -> JsonValue:
    """Read a value as the type its schema wants, when it is a string encoding of it.

    `"5"` becomes `5` where the schema says integer or number, `"true"` becomes `true`
    where it says boolean, and a JSON string that decodes to an object or an array
    becomes that value where the schema says object or array. Members and items are
    coerced recursively by their own schemas. Anything else is returned unchanged.

    Args:
        value: an actual argument value (model output).
        schema: the JSON Schema of that value, or None.

    Returns:
        The coerced value.

    Examples:
        >>> coerce_value("5", {"type": "integer"}), coerce_value("5", None)
        (5, '5')
        >>> coerce_value('{"a": "1"}', {"type": "object",
        ...     "properties": {"a": {"type": "number"}}})
        {'a': 1}
    """
    if not schema:
        return value
    if isinstance(value, str):
        value = _from_string(value, schema)
    if isinstance(value, dict):
        return {k: coerce_value(v, child_schema(schema, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [coerce_value(v, child_schema(schema, k)) for k, v in enumerate(value)]
    return value


def _from_string(text: str, schema: JsonObject) -> JsonValue:
    types = schema_types(schema)
    if not types or "string" in types or is_exact(schema):
        return text
    stripped = text.strip()
    if types & {"integer", "number"}:
        number = _parse_number(stripped)
        if number is not None:
            return number
    if "boolean" in types and stripped.lower() in ("true", "false"):
        return stripped.lower() == "true"
    if types & {"object", "array"} and stripped[:1] in ("{", "["):
        decoded = _decode_json(stripped)
        if isinstance(decoded, dict) and "object" in types:
            return decoded
        if isinstance(decoded, list) and "array" in types:
            return decoded
    if "null" in types and stripped == "null":
        return None
    return text


def _parse_number(text: str) -> int | float | None:
    if _INTEGER.fullmatch(text):
        return int(text)
    if _NUMBER.fullmatch(text):
        number = float(text)
        if not math.isfinite(number):
            return None
        # "5.0" for an integer equals 5; "5.5" for an integer then fails validation.
        return number
    return None


def _decode_json(text: str) -> JsonValue:
    if len(text) > _MAX_JSON_CHARS:
        return None
    try:
        decoded: JsonValue = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return decoded if _depth(decoded) <= _MAX_JSON_DEPTH else None


def _depth(value: object, level: int = 0) -> int:
    if level > _MAX_JSON_DEPTH:
        return level
    if isinstance(value, Mapping):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level
