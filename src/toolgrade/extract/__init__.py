"""Extraction: raw model output -> tool calls, one module per family of formats."""

from toolgrade.extract._api import extract_calls
from toolgrade.extract._registry import list_formats
from toolgrade.extract._structured import StructuredFormat
from toolgrade.extract._types import (
    ExtractContext,
    Extraction,
    ExtractionError,
    ExtractionErrorReason,
    TextFormat,
)

__all__ = [
    "ExtractContext",
    "Extraction",
    "ExtractionError",
    "ExtractionErrorReason",
    "StructuredFormat",
    "TextFormat",
    "extract_calls",
    "list_formats",
]
