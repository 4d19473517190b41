"""Extraction: raw model output -> tool calls, one module per family of formats."""

from toolgrade.extract._api import extract_calls
from toolgrade.extract._deprecated import EXTRACT_DEPRECATED as _DEPRECATED
from toolgrade.extract._deprecated import deprecated_attribute as _deprecated_attribute
from toolgrade.extract._registry import list_formats
from toolgrade.extract._structured import StructuredFormat
from toolgrade.extract._types import (
    ExtractContext,
    Extraction,
    ExtractionProblem,
    ExtractionProblemReason,
    TextFormat,
)

__all__ = [
    "ExtractContext",
    "Extraction",
    "ExtractionError",
    "ExtractionErrorReason",
    "ExtractionProblem",
    "ExtractionProblemReason",
    "StructuredFormat",
    "TextFormat",
    "extract_calls",
    "list_formats",
]


def __getattr__(name: str) -> object:
    # `ExtractionError` and `ExtractionErrorReason` (renamed in 0.2, removed in 0.3).
    return _deprecated_attribute(__name__, name, _DEPRECATED)
