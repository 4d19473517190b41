"""The quick "is this valid?" answer in front of jsonschema's detailed errors: jsonschema-rs.

Nearly every call a model makes satisfies its tool's schema. jsonschema-rs answers
"valid or not" many times faster than jsonschema builds its evaluation tree, so a valid
call skips the detailed pass; an invalid one still goes through jsonschema, whose errors
carry the paths that `Mismatch`es are built from. A property test holds the two
together. Patterns run on the `regex` crate (`RegexOptions`: no backtracking), never on
fancy-regex, jsonschema-rs's default, which backtracks; a pattern that needs backtracking
makes jsonschema-rs refuse the schema, and `_schema` refuses it too. Suite loading uses
the same validators (jsonschema alone spends about half a millisecond per case of a
suite: 10,000 cases would take seconds). Without jsonschema-rs (a platform without its
wheel) everything still works, only slower.
"""

from __future__ import annotations

import logging
from typing import Protocol

from toolgrade._core.json_data import JsonObject, JsonValue

__all__ = ["QuickValidator", "quick_validator", "quickly_valid"]

logger = logging.getLogger(__name__)


class QuickValidator(Protocol):
    """The one method of a jsonschema-rs validator that is used here."""

    def is_valid(self, instance: JsonValue, /) -> bool:
        """True when the instance satisfies the schema."""
        ...


def quick_validator(schema: JsonObject) -> QuickValidator | None:
    """A jsonschema-rs validator for a schema jsonschema accepted, or None.

    Formats are not asserted (jsonschema asserts none without a format checker),
    references are never fetched over the network, and patterns run in linear time.

    Returns:
        The validator, or None (jsonschema-rs missing, or it refuses the schema): the
        caller then validates with jsonschema alone.
    """
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - a platform without the wheel
        return None
    try:
        validator: QuickValidator = jsonschema_rs.validator_for(
            schema,
            validate_formats=False,
            offline=True,
            pattern_options=jsonschema_rs.RegexOptions(),
        )
    except Exception as exc:  # any refusal just means "no quick answer"
        logger.debug("no quick validator for a schema: %s", exc)
        return None
    return validator


def quickly_valid(validator: QuickValidator | None, value: JsonValue) -> bool:
    """True when `validator` says `value` is valid; False when it says not, or cannot tell."""
    if validator is None:
        return False
    try:
        return validator.is_valid(value)
    except (ValueError, TypeError, OverflowError):  # a value jsonschema-rs cannot read
        return False
