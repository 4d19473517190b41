"""Extraction problems as values: a malformed call, or input refused for its size or depth.

Results and a conversation's steps keep them as values; a file keeps each one as text,
`reason: message` (`ExtractionProblem.__str__`), and reading a file turns the text back
into the value (`StoredProblem`). A step written without its reason (a bare message)
reads back with `reason` None, and writes back as it was.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer

__all__ = ["ExtractionProblem", "ExtractionProblemReason", "StoredProblem", "problem_from_text"]

ExtractionProblemReason = Literal["parse_error", "too_large", "too_deep", "unknown_format"]
"""Why extraction reported a problem."""

_REASONS: frozenset[str] = frozenset(get_args(ExtractionProblemReason))


class ExtractionProblem(BaseModel):
    """A recognisable but malformed call, or input refused for its size or depth.

    Examples:
        >>> p = ExtractionProblem(reason="parse_error", message="invalid JSON")
        >>> str(p), str(problem_from_text("invalid JSON"))
        ('parse_error: invalid JSON', 'invalid JSON')
        >>> problem_from_text(str(p)) == p
        True
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    reason: ExtractionProblemReason | None
    """A reason code; None when it was not recorded (a step stored as a bare message),
    which counts as a malformed call."""
    message: str
    """What was wrong, for people."""

    def __str__(self) -> str:
        """The problem as a file keeps it: `reason: message` (without a reason, the message)."""
        return self.message if self.reason is None else f"{self.reason}: {self.message}"


def problem_from_text(text: str) -> ExtractionProblem:
    """A problem read back from its text: `reason: message`, else a bare message.

    Examples:
        >>> problem_from_text("too_large: 2 MB").reason
        'too_large'
        >>> problem_from_text("block #1: extra data").reason is None
        True
    """
    reason, _, message = text.partition(": ")
    if reason in _REASONS and message:
        return ExtractionProblem(reason=reason, message=message)
    return ExtractionProblem(reason=None, message=text)


def _read(value: Any) -> Any:
    return problem_from_text(value) if isinstance(value, str) else value


StoredProblem = Annotated[
    ExtractionProblem, BeforeValidator(_read), PlainSerializer(str, return_type=str)
]
"""An extraction problem in a stored record: a value in memory, its text in a file."""
