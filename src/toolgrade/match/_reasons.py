"""Why a value fails its parameter's schema, said in the schema's words.

One short reason per violated keyword, naming the value and the keyword (with its
rule when it has one): `null is not a string (schema: type)`, `[] has fewer than 1 item
(schema: minItems 1)`, `"fast " is not one of "fast", "slow" (schema: enum)`. The
schema violations of a call (`_schema.schema_mismatches`) carry it as their message,
and a difference the comparison found at the same path carries it too
(`_schema.merge_mismatches`), so that a failure says why the tool would refuse the value
and not only that it differs from the expectation. Matchers that test a JSON type word
their failures with the same type names (`type_phrase`).
"""

from __future__ import annotations

from collections.abc import Callable

from toolgrade._core.json_data import shown_json
from toolgrade.match._matchers import _is_number

__all__ = ["EXPECTS_LEFT_OUT", "schema_reason", "type_phrase"]

EXPECTS_LEFT_OUT = "the case expects the argument left out"
"""What a value given for an argument the case wants absent (`$absent`) is told."""

_LISTED = 5  # enum values named in a reason

_ARTICLE = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def type_phrase(types: object) -> str:
    """JSON Schema type names as words: `a string`, `an integer or null`.

    Examples:
        >>> type_phrase("integer"), type_phrase(["string", "null"])
        ('an integer', 'a string or null')
    """
    names = [types] if isinstance(types, str) else types if isinstance(types, list) else []
    words = [_ARTICLE.get(str(n), f"of type {n}") for n in names]
    if not words:
        return "of an allowed type"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _plural(n: object, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _bound(
    sentence: Callable[[str], str],
) -> Callable[[str, object, str], str | None]:
    """A keyword whose rule is a number: the sentence, and the rule after the keyword."""

    def reason(keyword: str, rule: object, value: str) -> str | None:
        if not _is_number(rule):
            return None
        n = shown_json(rule)
        return f"{value} {sentence(n)} (schema: {keyword} {n})"

    return reason


def _count(noun: str, more: bool) -> Callable[[str, object, str], str | None]:
    """A keyword that bounds a count (characters, items, members)."""

    def reason(keyword: str, rule: object, value: str) -> str | None:
        if not isinstance(rule, int) or isinstance(rule, bool):
            return None
        side = "more" if more else "fewer"
        if noun == "character":
            side = "longer" if more else "shorter"
            return f"{value} is {side} than {_plural(rule, noun)} (schema: {keyword} {rule})"
        return f"{value} has {side} than {_plural(rule, noun)} (schema: {keyword} {rule})"

    return reason


def _type(keyword: str, rule: object, value: str) -> str | None:
    return f"{value} is not {type_phrase(rule)} (schema: type)"


def _enum(keyword: str, rule: object, value: str) -> str | None:
    if not isinstance(rule, list):
        return None
    listed = ", ".join(shown_json(item) for item in rule[:_LISTED])
    more = f" and {len(rule) - _LISTED} more" if len(rule) > _LISTED else ""
    return f"{value} is not one of {listed}{more} (schema: enum)"


def _const(keyword: str, rule: object, value: str) -> str | None:
    return f"{value} is not {shown_json(rule)} (schema: const)"


def _pattern(keyword: str, rule: object, value: str) -> str | None:
    return f"{value} does not match /{rule}/ (schema: pattern)"


def _unique(keyword: str, rule: object, value: str) -> str | None:
    return f"{value} has repeated items (schema: uniqueItems)"


def _forms(keyword: str, rule: object, value: str) -> str | None:
    count = len(rule) if isinstance(rule, list) else 0
    return f"{value} matches none of the {count} allowed forms (schema: {keyword})"


def _not(keyword: str, rule: object, value: str) -> str | None:
    return f"{value} matches a form the schema excludes (schema: not)"


def _format(keyword: str, rule: object, value: str) -> str | None:
    return f"{value} is not a valid {rule} (schema: format)"


_REASONS: dict[str, Callable[[str, object, str], str | None]] = {
    "type": _type,
    "enum": _enum,
    "const": _const,
    "pattern": _pattern,
    "minimum": _bound(lambda n: f"is less than {n}"),
    "maximum": _bound(lambda n: f"is greater than {n}"),
    "exclusiveMinimum": _bound(lambda n: f"is not greater than {n}"),
    "exclusiveMaximum": _bound(lambda n: f"is not less than {n}"),
    "multipleOf": _bound(lambda n: f"is not a multiple of {n}"),
    "minLength": _count("character", more=False),
    "maxLength": _count("character", more=True),
    "minItems": _count("item", more=False),
    "maxItems": _count("item", more=True),
    "minProperties": _count("member", more=False),
    "maxProperties": _count("member", more=True),
    "uniqueItems": _unique,
    "anyOf": _forms,
    "not": _not,
    "format": _format,
}


def schema_reason(keyword: str | None, rule: object, value: object, *, fallback: str) -> str:
    """Why `value` fails one keyword of its schema, in a short sentence.

    Args:
        keyword: the violated keyword (`type`, `minItems`...); None for a `false` schema.
        rule: the keyword's value in the schema (`"string"`, `1`).
        value: the offending value.
        fallback: the validator's own message, for a keyword without a sentence here
            (it is followed by the keyword) and to tell the two failures of `oneOf`.

    Returns:
        The reason, e.g. `[] has fewer than 1 item (schema: minItems 1)`.

    Examples:
        >>> schema_reason("type", "string", None, fallback="")
        'null is not a string (schema: type)'
        >>> schema_reason("minItems", 1, [], fallback="")
        '[] has fewer than 1 item (schema: minItems 1)'
        >>> schema_reason("maximum", 10, 99, fallback="")
        '99 is greater than 10 (schema: maximum 10)'
    """
    text = shown_json(value)
    if keyword is None:
        return f"{text} is not allowed by the tool schema"
    if keyword == "oneOf":
        count = len(rule) if isinstance(rule, list) else 0
        if "valid under each of" in fallback:  # jsonschema's words for "more than one"
            return f"{text} matches more than one of the {count} forms (schema: oneOf)"
        return f"{text} matches none of the {count} allowed forms (schema: oneOf)"
    found = _REASONS.get(keyword)
    reason = found(keyword, rule, text) if found is not None else None
    return reason if reason is not None else f"{fallback} (schema: {keyword})"
