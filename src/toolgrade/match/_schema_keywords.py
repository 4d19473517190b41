"""jsonschema validators whose regular expressions run on RE2 (`bounded_validator_class`).

Python jsonschema applies `pattern`, `patternProperties` (and, through them,
`additionalProperties` and `unevaluatedProperties`) with `re.search`, which backtracks:
one crafted pattern and one model answer hold the interpreter for minutes. The validator
classes here are jsonschema's own, extended (`jsonschema.validators.extend`) with those
four keywords rewritten on `schema_search` (RE2, linear time). `check_tool_schema`
checks a schema the same way: its patterns must be ones RE2 runs, and a pattern RE2
refuses (lookaround, a backreference) is reported with its path in the schema.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any, cast

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend, validator_for

from toolgrade._core.json_data import JsonObject
from toolgrade.match._ecma import schema_regex, schema_search

__all__ = ["bounded_validator_class", "check_tool_schema", "pattern_problems"]

_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples"})
"""Keywords whose values are data, not schemas: a `pattern` key inside is not a pattern."""


def _is_valid(errors: Iterator[ValidationError]) -> bool:
    return next(errors, None) is None


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not schema_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if schema_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """The members neither `properties` nor `patternProperties` covers."""
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [
        key
        for key in instance
        if key not in properties and not any(schema_search(p, key) for p in patterns)
    ]


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        listed = ", ".join(repr(each) for each in sorted(extras))
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{listed} {verb} not match any of the regexes: {patterns}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(
                f"Additional properties are not allowed ({listed} {verb} unexpected)"
            )


def _evaluated_keys(validator: Any, instance: Any, schema: Any, *, legacy: bool) -> list[str]:
    """The members some keyword of `schema` evaluates (jsonschema's rule, on RE2).

    `legacy`: draft 2019-09's rule (`$recursiveRef`; `properties` and the others count
    by name), else 2020-12's (`$dynamicRef`; a member counts when its subschema holds).
    """
    if validator.is_type(schema, "boolean"):
        return []
    keys: list[str] = []

    def follow(resolved: Any) -> None:
        evolved = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
        keys.extend(_evaluated_keys(evolved, instance, resolved.contents, legacy=legacy))

    if "$ref" in schema:
        follow(validator._resolver.lookup(schema["$ref"]))
    if legacy and "$recursiveRef" in schema:
        from referencing.jsonschema import lookup_recursive_ref

        follow(lookup_recursive_ref(validator._resolver))
    if not legacy and "$dynamicRef" in schema:
        follow(validator._resolver.lookup(schema["$dynamicRef"]))
    if legacy:
        for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
            value = schema.get(keyword)
            if value is True:
                keys += instance.keys()
            elif isinstance(value, dict):
                keys += [key for key in value if key in instance]
    else:
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            keys += properties.keys() & instance.keys()
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            if (subschema := schema.get(keyword)) is not None:
                keys += [
                    key
                    for key, value in instance.items()
                    if _is_valid(validator.descend(value, subschema))
                ]
    for pattern in schema.get("patternProperties", {}):
        keys += [key for key in instance if schema_search(pattern, key)]
    for key, subschema in schema.get("dependentSchemas", {}).items():
        if key in instance:
            keys += _evaluated_keys(validator, instance, subschema, legacy=legacy)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _is_valid(validator.descend(instance, subschema)):
                keys += _evaluated_keys(validator, instance, subschema, legacy=legacy)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys += _evaluated_keys(validator, instance, schema["if"], legacy=legacy)
            if "then" in schema:
                keys += _evaluated_keys(validator, instance, schema["then"], legacy=legacy)
        elif "else" in schema:
            keys += _evaluated_keys(validator, instance, schema["else"], legacy=legacy)
    return keys


def _unevaluated(legacy: bool) -> Any:
    def unevaluated_properties(
        validator: Any, allowed: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        if not validator.is_type(instance, "object"):
            return
        evaluated = set(_evaluated_keys(validator, instance, schema, legacy=legacy))
        failed = [
            key
            for key in instance
            if key not in evaluated
            and not _is_valid(validator.descend(instance[key], allowed, path=key, schema_path=key))
        ]
        if failed:
            listed = ", ".join(repr(each) for each in sorted(failed, key=str))
            verb = "was" if len(failed) == 1 else "were"
            if allowed is False:
                what = "Unevaluated properties are not allowed"
            else:
                what = "Unevaluated properties are not valid under the given schema"
            yield ValidationError(f"{what} ({listed} {verb} unexpected)")

    return unevaluated_properties


@lru_cache(maxsize=16)
def _bounded(base: type[Validator]) -> type[Validator]:
    keywords: dict[str, Any] = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    }
    if "unevaluatedProperties" in base.VALIDATORS:
        legacy = base.VALIDATORS["unevaluatedProperties"].__name__.endswith("draft2019")
        keywords["unevaluatedProperties"] = _unevaluated(legacy)
    present = {name: fn for name, fn in keywords.items() if name in base.VALIDATORS}
    bounded: type[Validator] = extend(base, present)  # type: ignore[no-untyped-call]
    return bounded


def bounded_validator_class(schema: JsonObject) -> type[Validator]:
    r"""The jsonschema validator class for `schema` (by its `$schema`), its patterns on RE2.

    Examples:
        >>> cls = bounded_validator_class({"pattern": "^([a-z]+\\s?)*$"})
        >>> cls({"pattern": "^([a-z]+\\s?)*$"}).is_valid("a" * 5_000 + "!")
        False
    """
    return _bounded(validator_for(schema, default=Draft202012Validator))


@lru_cache(maxsize=16)
def _format_checker(base: type[Validator]) -> FormatChecker:
    """The class's own format checks for checking a schema, without Python's `regex` one."""
    checker = FormatChecker(formats=())
    checker.checkers = dict(base.FORMAT_CHECKER.checkers)
    checker.checkers.pop("regex", None)  # `pattern_problems` checks patterns, on RE2
    return checker


def pattern_problems(schema: object) -> list[tuple[str, str]]:
    """Every `pattern` and `patternProperties` key of a schema that RE2 cannot run.

    Returns:
        `(path, problem)` pairs, the path a JSON path into the schema
        (`$.properties.q.pattern`), in document order.

    Examples:
        >>> pattern_problems({"properties": {"q": {"pattern": "(?=a)"}}})[0][0]
        '$.properties.q.pattern'
    """
    return [(_render(parts), message) for parts, message in _pattern_problems(schema)]


def _render(parts: tuple[str | int, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _pattern_problems(schema: object) -> list[tuple[tuple[str | int, ...], str]]:
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[object, tuple[str | int, ...]]] = [(schema, ())]
    while stack:  # iterative: a schema nested deeper than Python's recursion is still read
        node, parts = stack.pop()
        if isinstance(node, list):
            stack.extend((item, (*parts, k)) for k, item in reversed(list(enumerate(node))))
            continue
        if not isinstance(node, dict):
            continue
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            found += _problem(pattern, (*parts, "pattern"))
        keyed = node.get("patternProperties")
        if isinstance(keyed, dict):
            for key in keyed:
                found += _problem(str(key), (*parts, "patternProperties"))
        stack.extend(
            (value, (*parts, key))
            for key, value in reversed(node.items())
            if key not in _DATA_KEYWORDS and isinstance(value, dict | list)
        )
    return found


def _problem(pattern: str, parts: tuple[str | int, ...]) -> list[tuple[tuple[str | int, ...], str]]:
    try:
        schema_regex(pattern)
    except ValueError as exc:
        return [(parts, f"pattern {pattern!r} cannot be run by RE2: {exc}")]
    return []


def check_tool_schema(schema: JsonObject) -> None:
    """Check that `schema` is a JSON Schema whose patterns RE2 runs.

    Raises:
        SchemaError: the first problem; its `json_path` says where in the schema and
            its `message` what is wrong (for a pattern: why RE2 refuses it).
    """
    base = validator_for(schema, default=Draft202012Validator)
    checker = _format_checker(base)
    cast(Any, base).check_schema(schema, format_checker=checker)  # the protocol omits it
    for parts, message in _pattern_problems(schema)[:1]:
        raise SchemaError(message, path=deque(parts), validator="pattern", instance=schema)
