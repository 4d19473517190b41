"""`extract_calls`: any model output in, the tool calls and the format seen out."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

from toolgrade._core.json_data import JsonObject
from toolgrade.errors import InputError
from toolgrade.extract._common import (
    MAX_OUTPUT_CHARS,
    clean_extraction,
    limit_calls,
    parse_error,
)
from toolgrade.extract._reasoning import strip_reasoning
from toolgrade.extract._registry import (
    find_format,
    format_names,
    formats_version,
    text_formats,
)
from toolgrade.extract._shortcut import message_shortcut, plain_shortcut
from toolgrade.extract._structured import Shape, StructuredFormat, parse_structured, shape_of
from toolgrade.extract._types import ExtractContext, Extraction, ExtractionProblem, TextFormat

if TYPE_CHECKING:
    # Only for annotations: at run time a spec is read by its `name` and `parameters`, so
    # extraction does not import the suite package (which sits beside it, not below it).
    from toolgrade.suite import ToolSpec

__all__ = ["extract_calls", "make_context"]

logger = logging.getLogger(__name__)

Output = str | Mapping[str, object]
"""A model's output: its text, an assistant message, or a whole chat-completion response."""


def make_context(tools: Sequence[str | ToolSpec] | None) -> ExtractContext:
    """The extraction context for the offered tools (names, and schemas when given)."""
    if tools is None:
        return _NO_TOOLS
    names: set[str] = set()
    schemas: dict[str, JsonObject] = {}
    for tool in tools:
        if isinstance(tool, str):
            names.add(tool)
        else:
            names.add(tool.name)
            schemas[tool.name] = tool.parameters
    return ExtractContext(tools=frozenset(names), schemas=schemas)


_NO_TOOLS = ExtractContext()
"""The context when the tools are unknown (frozen, and no parser changes its schemas)."""
_NO_CALLS = Extraction()
"""The extraction of output without calls (frozen: one serves every such output)."""


def _failed(error: ExtractionProblem) -> Extraction:
    return Extraction(errors=(error,))


def _shape(output: object) -> Shape | Extraction:
    if isinstance(output, str):
        return Shape(text=output)
    if isinstance(output, Mapping):
        shape = shape_of(output)
        return _failed(shape) if isinstance(shape, ExtractionProblem) else shape
    return _failed(parse_error(f"output must be text or a message mapping, not {type(output)}"))


def _run(fmt: TextFormat, text: str, ctx: ExtractContext) -> Extraction | None:
    """Run one parser; decoding trouble it did not catch is the model's, not ours."""
    try:
        found = fmt.parse(text, ctx)
    except (ValueError, RecursionError, SyntaxError, MemoryError) as exc:
        logger.warning("extractor %s failed on model output: %s", fmt.name, exc)
        return Extraction(format=fmt.name, errors=(parse_error(f"{fmt.name}: {exc}"),))
    return None if found is None else limit_calls(found)


_WORD = re.compile(r"[A-Za-z0-9_]+")


@cache
def _core(marker: str) -> str:
    return max(_WORD.findall(marker), key=len, default=marker)


_JSON_ONLY = frozenset({"xlam"})
"""Marker-less formats that read only JSON objects: never candidates without a `"`."""
_SHORT_OUTPUT = 4096
"""Outputs up to this many characters are searched for markers directly."""


class _Markers:
    """Which markers occur in one text, each searched for at most once.

    Formats share markers, and on a 1 MB output every substring search costs up to a few
    milliseconds; a marker whose first character is absent is known absent for free.
    """

    __slots__ = ("_seen", "_short", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._seen: dict[str, bool] = {}
        # On a short output a plain substring search is cheaper than the bookkeeping.
        self._short = len(text) <= _SHORT_OUTPUT

    def any_of(self, markers: tuple[str, ...]) -> bool:
        if self._short:
            text = self._text
            return any(marker in text for marker in markers)
        return any(self._has(marker) for marker in markers)

    def _has(self, marker: str) -> bool:
        seen = self._seen.get(marker)
        if seen is None:
            first = self._seen.get(marker[0])
            if first is None:
                first = self._seen[marker[0]] = marker[0] in self._text
            # The marker's longest word first: it lacks the `<`, `|` and `[` that hostile
            # text repeats, and a needle sharing no character with the text is skipped
            # over quickly, where the whole marker would be searched one step at a time.
            seen = first and _core(marker) in self._text
            seen = self._seen[marker] = seen and marker in self._text
        return seen


def _any_marker() -> re.Pattern[str]:
    """Finds any marker of any text format (longest first, though any match will do)."""
    return _any_marker_of(formats_version())


@cache
def _any_marker_of(version: int) -> re.Pattern[str]:
    """`_any_marker` for one state of the registry (a registered format changes it)."""
    markers = {marker for fmt in text_formats() for marker in fmt.markers}
    return re.compile("|".join(map(re.escape, sorted(markers, key=len, reverse=True))))


def _unmarked_formats() -> tuple[TextFormat, ...]:
    """The formats that have no marker (always candidates), in detection order."""
    return _unmarked_formats_of(formats_version())


@cache
def _unmarked_formats_of(version: int) -> tuple[TextFormat, ...]:
    """`_unmarked_formats` for one state of the registry."""
    return tuple(fmt for fmt in text_formats() if not fmt.markers)


def _detect(text: str, ctx: ExtractContext) -> Extraction:
    if len(text) <= _SHORT_OUTPUT and _any_marker().search(text) is None:
        # No marker at all (one search, where the loop below tests every format's
        # markers): only the marker-less formats are candidates, in the same order.
        return _detect_unmarked(text, ctx)
    markers = _Markers(text)
    for fmt in text_formats():
        if fmt.markers and not markers.any_of(fmt.markers):
            continue
        found = _run(fmt, text, ctx)
        if found is not None:
            return found
    return _NO_CALLS


def _detect_unmarked(text: str, ctx: ExtractContext) -> Extraction:
    for fmt in _unmarked_formats():
        if fmt.name in _JSON_ONLY and '"' not in text:
            # Without a `"` there is no JSON object key: a JSON format can neither read
            # a call nor see a broken one (that needs `"name"`).
            continue
        found = _run(fmt, text, ctx)
        if found is not None:
            return found
    return _NO_CALLS


def _resolve(name: str) -> TextFormat | StructuredFormat | None:
    if name == "auto":
        return None
    fmt = find_format(name)
    if fmt is None:
        known = ", ".join(format_names())
        raise InputError(f"unknown extraction format {name!r}; known: auto, {known}")
    return fmt


def extract_calls(
    output: Output,
    *,
    format: str = "auto",
    tools: Sequence[str | ToolSpec] | None = None,
) -> Extraction:
    """Pull the tool calls out of a model's output, in whatever format it used.

    Auto-detection is deterministic: structured `tool_calls`/`function_call` first, then
    text formats marked by a special token or tag, then ```json fenced blocks, then bare
    JSON objects, then pythonic call lists (docs/extraction.md lists every format and
    rule). Reasoning blocks (`<think>...</think>`, gpt-oss analysis) are skipped.

    Args:
        output: the assistant's text, an assistant message mapping (OpenAI or Ollama
            shape), or a whole chat-completion response.
        format: `auto`, or a format name (`toolgrade extract --list-formats`) to force.
        tools: the tools offered (names or `ToolSpec`s). When given, JSON that merely looks
            like a call is accepted only if its name is a tool, and ToolSpec schemas type
            the values of XML formats.

    Returns:
        The calls, the format recognised (`none` when there is no call), and the
        malformed calls or refused input as errors. Model output never raises; a lone
        UTF-16 surrogate in it (raw or escaped) is read as U+FFFD.

    Raises:
        InputError: `format` names no known format.

    Examples:
        >>> e = extract_calls('<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>')
        >>> e.format, [c.to_dict() for c in e.calls]
        ('hermes', [{'name': 'f', 'arguments': {'x': 1}}])
        >>> extract_calls("The answer is 42.").format
        'none'
    """
    # Readers decode escapes: a lone surrogate (half an emoji) becomes U+FFFD here, once.
    return clean_extraction(_extract(output, format, tools))


def _extract(output: Output, format: str, tools: Sequence[str | ToolSpec] | None) -> Extraction:
    if format == "auto":
        forced = None
        if isinstance(output, str):
            # Text holds no structured calls: straight to the text formats, and for a
            # plain call list (BFCL's prompting style) straight to the pythonic reader.
            ctx = _NO_TOOLS if tools is None else make_context(tools)
            plain = plain_shortcut(output, ctx)
            return plain if plain is not None else _from_text(output, None, ctx)
        # A message of plain tool calls needs no context (no tool is looked up).
        plain = message_shortcut(output)
        if plain is not None:
            return plain
    else:
        forced = _resolve(format)
    ctx = make_context(tools)
    shape = _shape(output)
    if isinstance(shape, Extraction):
        return shape
    if forced is None or isinstance(forced, StructuredFormat):
        structured = parse_structured(shape)
        if structured is not None or forced is not None:
            return limit_calls(structured) if structured else Extraction()
    return _from_text(shape.text, forced, ctx)


def _from_text(text: str, forced: TextFormat | None, ctx: ExtractContext) -> Extraction:
    if len(text) > MAX_OUTPUT_CHARS:
        message = f"output of {len(text)} characters is over {MAX_OUTPUT_CHARS}"
        return _failed(ExtractionProblem(reason="too_large", message=message))
    text = strip_reasoning(text)
    if forced is not None:
        return _run(forced, text, ctx) or Extraction()
    return _detect(text, ctx)
