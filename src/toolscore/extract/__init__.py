"""Extraction: raw model output -> tool calls, one module per family of formats."""

from toolscore.extract._types import Extraction, ExtractionError, ExtractionErrorReason

__all__ = ["Extraction", "ExtractionError", "ExtractionErrorReason"]
