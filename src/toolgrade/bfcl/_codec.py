"""BFCL function docs and possible answers <-> toolgrade tool schemas and expected calls.

The importer (`toolgrade.bfcl._import`) encodes, the `bfcl` profile decodes; both live
here so that the round trip is exact:

- A BFCL type becomes a JSON Schema type (BFCL's own `GORILLA_TO_OPENAPI` map, as its
  function-calling handlers send it). Where the JSON type does not say the BFCL type
  (`tuple`, `any`, every Java and JavaScript type) the schema keeps it under
  `x-bfcl-type` (and `x-bfcl-items-type`), an annotation JSON Schema ignores.
- A possible answer `{"param": [v1, v2, ""]}` becomes
  `{"param": {"$any_of": [v1, v2, {"$absent": true}]}}`, a single value stays a literal,
  and dict answers (`{"key": [values]}`) become dicts of such matchers.
- The documented default of an optional argument, when BFCL's answer omits it, is added
  as a nested `{"$any_of": [default]}`: the default profile accepts it (passing the
  default means the same as omitting it), the `bfcl` profile skips nested `$any_of`
  items, as BFCL rejects the default.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache

from jsonschema import Draft202012Validator

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.bfcl._checker import BfclFunction, BfclParam, Language

__all__ = [
    "ABSENT",
    "NEVER",
    "decode_answer",
    "encode_answer",
    "function_from_schema",
    "schema_from_bfcl",
]

ABSENT: JsonObject = {"$absent": True}
"""The matcher that stands for BFCL's `""`: the argument may be omitted."""
NEVER: JsonObject = {"$regex": "(?!)"}
"""A matcher nothing meets: BFCL's empty list of values (no answer can pass)."""

_TO_JSON_TYPE = {
    "integer": "integer",
    "number": "number",
    "float": "number",
    "string": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "dict": "object",
    "object": "object",
    "tuple": "array",
    "any": "string",
}
"""BFCL's GORILLA_TO_OPENAPI for Python types (Java and JavaScript values are strings)."""

_FROM_JSON_TYPE = {
    "integer": "integer",
    "number": "float",
    "string": "string",
    "boolean": "boolean",
    "array": "array",
    "object": "dict",
}
_PLAIN = {"integer", "float", "string", "boolean", "array", "dict"}
_LANGUAGE_NOTE = {
    "java": "Java",
    "javascript": "JavaScript",
}


def schema_from_bfcl(parameters: Mapping[str, JsonValue], language: Language) -> JsonObject:
    """Turn a BFCL `parameters` object (`type: "dict"`) into a JSON Schema object."""
    props = parameters.get("properties")
    out: JsonObject = {"type": "object", "properties": {}}
    converted: JsonObject = {}
    if isinstance(props, Mapping):
        for name, spec in props.items():
            if isinstance(spec, Mapping):
                converted[name] = (
                    _python_property(spec)
                    if language == "python"
                    else _source_property(spec, language)
                )
    out["properties"] = converted
    required = parameters.get("required")
    out["required"] = (
        [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    )
    return out


def _python_property(spec: Mapping[str, JsonValue]) -> JsonObject:
    bfcl_type = spec.get("type")
    out: JsonObject = {k: v for k, v in spec.items() if k not in ("type", "optional")}
    if not isinstance(bfcl_type, str):
        out["type"] = "string"
        return out
    out["type"] = _TO_JSON_TYPE.get(bfcl_type, "string")
    if bfcl_type not in _PLAIN:
        out["x-bfcl-type"] = bfcl_type
    if bfcl_type == "float":
        # As BFCL's function-calling handlers describe a float.
        out["format"] = "float"
        out["description"] = _text(spec.get("description")) + " This is a float type value."
    items = spec.get("items")
    if isinstance(items, Mapping):
        out["items"] = _python_property(items)
    inner = spec.get("properties")
    if isinstance(inner, Mapping):
        out["properties"] = {
            k: _python_property(v) for k, v in inner.items() if isinstance(v, Mapping)
        }
    return out


def _source_property(spec: Mapping[str, JsonValue], language: Language) -> JsonObject:
    """Java and JavaScript: the model sends source text, so the JSON type is string.

    The descriptions get the notes BFCL adds for these languages, so that the model knows
    to write the value as source code.
    """
    out: JsonObject = {
        k: v for k, v in spec.items() if k not in ("type", "items", "properties", "optional")
    }
    out["type"] = "string"
    bfcl_type = spec.get("type")
    name = _LANGUAGE_NOTE[language]
    note = f" This is {name} {bfcl_type} type parameter in string representation."
    if bfcl_type == "any":
        note = f" This parameter can be of any type of {name} object in string representation."
    if isinstance(bfcl_type, str):
        out["x-bfcl-type"] = bfcl_type
    items = spec.get("items")
    if isinstance(items, Mapping) and isinstance(items.get("type"), str):
        out["x-bfcl-items-type"] = items["type"]
        if bfcl_type in ("ArrayList", "Array", "array"):
            note += (
                f" The list elements are of type {items['type']}; "
                "they are not in string representation."
            )
    out["description"] = _text(spec.get("description")) + note
    return out


def _text(value: JsonValue) -> str:
    return value if isinstance(value, str) else ""


def function_from_schema(
    name: str, parameters: Mapping[str, JsonValue], language: Language
) -> BfclFunction:
    """Recover the BFCL function doc the checker reads from a tool's JSON Schema."""
    props = parameters.get("properties")
    params: dict[str, BfclParam] = {}
    if isinstance(props, Mapping):
        for key, spec in props.items():
            if isinstance(spec, Mapping):
                params[key] = BfclParam(type=_bfcl_type(spec), items=_items_type(spec))
    required = parameters.get("required")
    req = tuple(r for r in required if isinstance(r, str)) if isinstance(required, list) else ()
    return BfclFunction(name=name, params=params, required=req)


def _bfcl_type(spec: Mapping[str, JsonValue]) -> str:
    marked = spec.get("x-bfcl-type")
    if isinstance(marked, str):
        return marked
    json_type = spec.get("type")
    return _FROM_JSON_TYPE.get(json_type, "any") if isinstance(json_type, str) else "any"


def _items_type(spec: Mapping[str, JsonValue]) -> str | None:
    marked = spec.get("x-bfcl-items-type")
    if isinstance(marked, str):
        return marked
    items = spec.get("items")
    return _bfcl_type(items) if isinstance(items, Mapping) else None


def _any_of_items(value: JsonValue) -> list[JsonValue] | None:
    """The alternatives of an `$any_of` matcher, or None when `value` is not one."""
    if isinstance(value, dict) and len(value) == 1 and "$any_of" in value:
        items = value["$any_of"]
        return items if isinstance(items, list) else [items]
    return None


def _is_absent(value: JsonValue) -> bool:
    return isinstance(value, dict) and value == ABSENT


def _is_present(value: JsonValue) -> bool:
    return isinstance(value, dict) and value == {"$present": True}


def encode_answer(answer: Mapping[str, JsonValue], schema: Mapping[str, JsonValue]) -> JsonObject:
    """Encode one BFCL possible answer (`{param: [values]}`) as expected arguments.

    `""` becomes `$absent`, except for a required argument, where it stays the empty
    string (BFCL fails a missing required argument whatever the answer says). A required
    argument the answer leaves out becomes `{"$present": true}`.

    Args:
        answer: BFCL's acceptable values per argument (`""` = may be omitted).
        schema: the tool's JSON Schema (types, `required`, documented defaults).

    Returns:
        The expected arguments, with `$any_of` / `$absent` matchers.
    """
    props = schema.get("properties")
    properties: Mapping[str, JsonValue] = props if isinstance(props, Mapping) else {}
    required_raw = schema.get("required")
    required = (
        {r for r in required_raw if isinstance(r, str)} if isinstance(required_raw, list) else set()
    )
    out: JsonObject = {}
    for param, options in answer.items():
        values = list(options) if isinstance(options, list) else [options]
        is_required = param in required
        encoded = [v if v == "" and is_required else _encode_option(v) for v in values]
        spec = properties.get(param)
        if "" in values and not is_required and isinstance(spec, Mapping) and "default" in spec:
            default = spec["default"]
            if not any(_same(default, v) for v in values):
                encoded.append({"$any_of": [default]})
        if not encoded:
            out[param] = dict(NEVER)
        elif encoded == [ABSENT]:
            out[param] = dict(ABSENT)
        elif len(encoded) == 1 and _fits(encoded[0], spec):
            out[param] = encoded[0]
        else:
            out[param] = {"$any_of": encoded}
    for param in sorted(required - set(answer)):
        # BFCL's answer omits a required argument: any value is as good as another.
        out[param] = {"$present": True}
    return out


def _fits(value: JsonValue, spec: JsonValue) -> bool:
    """Whether a literal may stand alone: valid for its schema, not mistaken for a matcher."""
    if isinstance(value, dict) and any(k.startswith("$") for k in value):
        return False
    if not isinstance(spec, dict):
        return True
    try:
        return bool(_validator(json.dumps(spec, sort_keys=True)).is_valid(value))
    except (ValueError, TypeError):
        return False


@lru_cache(maxsize=1024)
def _validator(spec_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(spec_json))


def _same(a: JsonValue, b: JsonValue) -> bool:
    return type(a) is type(b) and a == b


def _encode_option(option: JsonValue) -> JsonValue:
    if option == "":
        return dict(ABSENT)
    if isinstance(option, dict):
        return {k: _encode_inner(v) for k, v in option.items()}
    if isinstance(option, list) and option and all(isinstance(x, dict) for x in option):
        return [_encode_option(x) for x in option]
    return option


def _encode_inner(values: JsonValue) -> JsonValue:
    """A dict answer's list of values for one key (values compare literally there).

    A bare string instead of a list (simple_java_64) is kept as `$literal`, which
    matches as the string does and tells the `bfcl` profile that BFCL reads it as a
    list of characters.
    """
    if isinstance(values, str):
        return {"$literal": values}
    if not isinstance(values, list):
        return values
    if values == [""]:
        return dict(ABSENT)
    items = [_encode_literal(v) for v in values]
    return items[0] if len(items) == 1 else {"$any_of": items}


def _encode_literal(value: JsonValue) -> JsonValue:
    if value == "":
        return dict(ABSENT)
    return {"$literal": value} if isinstance(value, dict) else value


def decode_answer(arguments: Mapping[str, JsonValue]) -> dict[str, list[object]]:
    """Decode expected arguments back into BFCL's possible answer (`encode_answer`'s inverse).

    Nested `$any_of` items (documented defaults added for the default profile) are
    dropped, as BFCL does not list them; `{"$present": true}` arguments are left out,
    as BFCL's answer leaves them out.
    """
    out: dict[str, list[object]] = {}
    for param, value in arguments.items():
        if _is_present(value):
            continue
        if value == NEVER:
            out[param] = []
            continue
        items = _any_of_items(value)
        if items is None:
            out[param] = [_decode_option(value)]
        else:
            out[param] = [_decode_option(v) for v in items if _any_of_items(v) is None]
    return out


def _decode_option(option: JsonValue) -> object:
    if _is_absent(option):
        return ""
    if isinstance(option, dict):
        return {k: _decode_inner(v) for k, v in option.items()}
    if isinstance(option, list) and option and all(isinstance(x, dict) for x in option):
        return [_decode_option(x) for x in option]
    return option


def _decode_inner(value: JsonValue) -> object:
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get("$literal"), str):
        return value["$literal"]  # a bare string: see `_encode_inner`
    items = _any_of_items(value)
    return [_decode_literal(v) for v in ([value] if items is None else items)]


def _decode_literal(value: JsonValue) -> object:
    if _is_absent(value):
        return ""
    if isinstance(value, dict) and len(value) == 1 and "$literal" in value:
        return value["$literal"]
    return value
