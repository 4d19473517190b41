"""Old names that still work for a while, with a `DeprecationWarning` on each access.

Like inspect_ai's `relocated_module_attribute`: a package's module `__getattr__` looks a
missing name up in `DEPRECATED` and returns the new object after warning.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

from toolgrade.extract._types import ExtractionProblem, ExtractionProblemReason

__all__ = ["DEPRECATED", "EXTRACT_DEPRECATED", "Deprecated", "deprecated_attribute"]


class Deprecated(NamedTuple):
    """A renamed public name: what it became, since when, and until when it works."""

    value: object
    """The object the old name now stands for."""
    new_name: str
    """The name to use instead."""
    since: str
    """The version that deprecated the old name."""
    removed_in: str
    """The first version without the old name."""


DEPRECATED: dict[str, Deprecated] = {
    "ExtractionError": Deprecated(ExtractionProblem, "ExtractionProblem", "0.2", "0.3"),
}
"""Deprecated names of `toolgrade`, by old name (what `tests/test_public_api.py` consults).

`ExtractionError` is a data model (a malformed call found in model output), not an
exception, so it was renamed `ExtractionProblem`; the old name goes away in 0.3.
"""
EXTRACT_DEPRECATED: dict[str, Deprecated] = {
    **DEPRECATED,
    "ExtractionErrorReason": Deprecated(
        ExtractionProblemReason, "ExtractionProblemReason", "0.2", "0.3"
    ),
}
"""Deprecated names of `toolgrade.extract`, by old name."""


def deprecated_attribute(module: str, name: str, table: dict[str, Deprecated]) -> object:
    """The object a deprecated `name` of `module` stands for, after warning.

    Args:
        module: the module's name, for messages.
        name: the attribute asked for.
        table: the module's deprecated names.

    Raises:
        AttributeError: `name` is not a deprecated name (the module has no such attribute).
    """
    entry = table.get(name)
    if entry is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{module}.{name} is deprecated since {entry.since} and will be removed in "
        f"{entry.removed_in}: use {module}.{entry.new_name}",
        DeprecationWarning,
        stacklevel=3,
    )
    return entry.value
