"""Every known format, in the documented auto-detection order.

Text formats are tried stage by stage: marker formats (a special token or tag names the
format), then fenced JSON, then bare JSON, then pythonic. Within a stage the order is
fixed: XML-bodied formats before Hermes (they share the `<tool_call>` tag), then the
special-token formats, then the JSON marker formats.
"""

from __future__ import annotations

from functools import cache

from toolgrade.extract import (
    _json_formats,
    _json_generic,
    _pythonic,
    _token_formats,
    _xml_formats,
)
from toolgrade.extract._structured import STRUCTURED, StructuredFormat
from toolgrade.extract._types import TextFormat

__all__ = ["STAGES", "find_format", "format_names", "list_formats", "text_formats"]

STAGES: tuple[str, ...] = ("marker", "fenced", "bare", "pythonic")
"""Auto-detection stages after the structured one, in order."""


@cache
def text_formats() -> tuple[TextFormat, ...]:
    """The text formats in detection order (stage, then the order of the families)."""
    families = (
        _xml_formats.FORMATS,
        _token_formats.FORMATS,
        _json_formats.FORMATS,
        _json_generic.FORMATS,
        _pythonic.FORMATS,
    )
    every = [fmt for family in families for fmt in family]
    return tuple(sorted(every, key=lambda fmt: STAGES.index(fmt.stage)))


def list_formats() -> list[TextFormat | StructuredFormat]:
    """Every format, structured ones first, in auto-detection order.

    Examples:
        >>> [f.name for f in list_formats()][:2]
        ['openai', 'openai_function_call']
    """
    return [*STRUCTURED, *text_formats()]


@cache
def _by_name() -> dict[str, TextFormat | StructuredFormat]:
    return {fmt.name: fmt for fmt in reversed(list_formats())}


def find_format(name: str) -> TextFormat | StructuredFormat | None:
    """The format called `name`, or None."""
    return _by_name().get(name)


def format_names() -> list[str]:
    """Names of every format, in detection order."""
    return [fmt.name for fmt in list_formats()]
