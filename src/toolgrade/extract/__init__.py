"""Extraction: raw model output -> tool calls, one module per family of formats."""

from toolgrade.extract._agent_steps import steps_from_messages, turn_start
from toolgrade.extract._api import extract_calls
from toolgrade.extract._deprecated import EXTRACT_DEPRECATED as _DEPRECATED
from toolgrade.extract._deprecated import deprecated_attribute as _deprecated_attribute
from toolgrade.extract._messages import is_trajectory, trajectory_message
from toolgrade.extract._pysource import quiet_source
from toolgrade.extract._reasoning import strip_reasoning
from toolgrade.extract._registry import PlacedFormat, list_formats, register_format
from toolgrade.extract._structured import StructuredFormat
from toolgrade.extract._types import (
    ExtractContext,
    Extraction,
    ExtractionProblem,
    ExtractionProblemReason,
    ParseFn,
    TextFormat,
)

__all__ = [
    "ExtractContext",
    "Extraction",
    "ExtractionError",
    "ExtractionErrorReason",
    "ExtractionProblem",
    "ExtractionProblemReason",
    "ParseFn",
    "PlacedFormat",
    "StructuredFormat",
    "TextFormat",
    "extract_calls",
    "is_trajectory",
    "list_formats",
    "quiet_source",
    "register_format",
    "steps_from_messages",
    "strip_reasoning",
    "trajectory_message",
    "turn_start",
]


def __getattr__(name: str) -> object:
    # `ExtractionError` and `ExtractionErrorReason` (renamed in 0.2, removed in 0.3).
    return _deprecated_attribute(__name__, name, _DEPRECATED)
