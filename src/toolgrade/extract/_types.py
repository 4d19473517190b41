"""What extraction returns: the calls found, the format seen, and the problems."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from toolgrade._core.json_data import JsonObject
from toolgrade._core.problems import ExtractionProblem, ExtractionProblemReason
from toolgrade._core.trusted import trusted_builder
from toolgrade._core.vocab import ToolCall

__all__ = [
    "ExtractContext",
    "Extraction",
    "ExtractionProblem",
    "ExtractionProblemReason",
    "ParseFn",
    "TextFormat",
    "new_call",
    "new_extraction",
]


class Extraction(BaseModel):
    """The tool calls found in one model output."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: tuple[ToolCall, ...] = ()
    """The well-formed calls, in output order."""
    format: str = "none"
    """The format recognised (`none` when the output holds no call)."""
    errors: tuple[ExtractionProblem, ...] = ()
    """Malformed calls and refused input; model misbehaviour is data, not an exception."""

    @property
    def ok(self) -> bool:
        """True when nothing malformed was seen."""
        return not self.errors


@dataclass(frozen=True, slots=True)
class ExtractContext:
    """What an extractor may know besides the text."""

    tools: frozenset[str] | None = None
    """Names of the tools offered; None when unknown (then any name is accepted)."""
    schemas: Mapping[str, JsonObject] = field(default_factory=dict)
    """Parameter JSON Schema per tool name, for formats whose values are untyped text."""


ParseFn = Callable[[str, ExtractContext], "Extraction | None"]
"""Parse one output; return None when the text is not in this format at all."""


@dataclass(frozen=True, slots=True)
class TextFormat:
    """A named text format of tool calls, and how to recognise and parse it."""

    name: str
    """Format name, e.g. `hermes` (what `Extraction.format` reports)."""
    stage: Literal["marker", "fenced", "bare", "pythonic"]
    """Auto-detection stage: marker formats first, then fenced JSON, bare JSON, pythonic."""
    markers: tuple[str, ...]
    """Substrings whose presence makes this format a candidate (empty: always a candidate)."""
    parse: ParseFn
    """The parser."""
    description: str = ""
    """One line for `toolgrade extract --list-formats`: which models emit it."""


new_call = trusted_builder(ToolCall)
"""A `ToolCall` from a plain reader's valid name and arguments (`{"name", "arguments"}`)."""
new_extraction = trusted_builder(Extraction)
"""An `Extraction` from valid values holding every field (`calls`, `format`, `errors`)."""
