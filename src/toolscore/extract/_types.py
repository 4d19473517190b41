"""What extraction returns: the calls found, the format seen, and the problems."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from toolscore.calls import ToolCall

__all__ = ["Extraction", "ExtractionError", "ExtractionErrorReason"]

ExtractionErrorReason = Literal["parse_error", "too_large", "too_deep", "unknown_format"]


class ExtractionError(BaseModel):
    """A recognisable but malformed call, or input refused for its size or depth."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reason: ExtractionErrorReason
    """A reason code."""
    message: str
    """What was wrong, for people."""


class Extraction(BaseModel):
    """The tool calls found in one model output."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: tuple[ToolCall, ...] = ()
    """The well-formed calls, in output order."""
    format: str = "none"
    """The format recognised (`none` when the output holds no call)."""
    errors: tuple[ExtractionError, ...] = ()
    """Malformed calls and refused input; model misbehaviour is data, not an exception."""

    @property
    def ok(self) -> bool:
        """True when nothing malformed was seen."""
        return not self.errors
