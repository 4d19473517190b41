"""A fast "is this valid?" check in front of jsonschema's detailed error reports.

jsonschema (pure Python) spends about half a millisecond per case of a suite: 10,000
cases would take seconds. jsonschema-rs answers "valid or not" a thousand times faster,
so valid documents (the common case) skip the detailed pass; an invalid one still goes
through jsonschema, whose errors carry the paths and context our messages are built
from. Without jsonschema-rs (a platform without its wheel) everything still works,
only slower.
"""

from __future__ import annotations

import logging
from typing import Protocol

from toolgrade._json import JsonObject, JsonValue

__all__ = ["FastValidator", "fast_validator"]

logger = logging.getLogger(__name__)


class FastValidator(Protocol):
    """The one method of a jsonschema-rs validator that is used here."""

    def is_valid(self, instance: JsonValue, /) -> bool:
        """True when the instance satisfies the schema."""
        ...


def fast_validator(schema: JsonObject) -> FastValidator | None:
    """A jsonschema-rs validator for the schema, or None when none can be built.

    Formats are not asserted (jsonschema does not assert them either without a format
    checker), and references are never fetched over the network.

    Args:
        schema: a JSON Schema, already known to be valid.

    Returns:
        The validator, or None (jsonschema-rs missing, or it refuses the schema): the
        caller then validates with jsonschema alone.
    """
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - a platform without the wheel
        return None
    try:
        validator: FastValidator = jsonschema_rs.validator_for(
            schema, validate_formats=False, offline=True
        )
    except Exception as exc:  # any refusal just means "no fast path"
        logger.debug("no fast validator for a schema: %s", exc)
        return None
    return validator
