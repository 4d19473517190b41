"""Building blocks shared by the XML, special-token and pythonic parsers.

`Found` collects calls and problems while a parser scans; `Found.result` turns them into
an `Extraction` (or None when nothing of the format was seen).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolgrade._json import JsonObject, JsonValue
from toolgrade.calls import ToolCall
from toolgrade.extract._common import MAX_CALLS, loads_bounded, parse_error
from toolgrade.extract._types import ExtractContext, Extraction, ExtractionError

__all__ = ["MAX_ERRORS", "Finder", "Found", "is_tool_name", "json_arguments", "resolve_name"]

MAX_ERRORS = 100
"""At most this many problems are reported per output (hostile input repeats them)."""
_NAME_FORBIDDEN = frozenset("{}<>()[]\"'`,;= \t\r\n")
_MAX_NAME = 256


def is_tool_name(name: str) -> bool:
    """True when `name` can be a function name (not prose or a template placeholder).

    Letters, digits, `_`, `-`, `.`, `/` and `:` are allowed (namespaced tools); spaces,
    quotes, brackets and the like are not.
    """
    return 0 < len(name) <= _MAX_NAME and not any(ch in _NAME_FORBIDDEN for ch in name)


def resolve_name(name: str, ctx: ExtractContext) -> str:
    """Drop a namespace prefix (`functions.`, `default_api.`) when only the rest is a tool."""
    if ctx.tools is None or name in ctx.tools or "." not in name:
        return name
    short = name.rsplit(".", 1)[1]
    return short if short in ctx.tools else name


def json_arguments(text: str) -> JsonObject | str:
    """Decode call arguments written as a JSON object; return the problem as a string.

    Empty text means no arguments. A JSON string holding an object (double-encoded
    arguments) is decoded once more.
    """
    if not text.strip():
        return {}
    try:
        value: JsonValue = loads_bounded(text)
        if isinstance(value, str) and value.strip().startswith("{"):
            value = loads_bounded(value)
    except ValueError as exc:
        return f"arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return f"arguments must be a JSON object, got {type(value).__name__}"
    return value


@dataclass(slots=True)
class Found:
    """Calls and problems collected while scanning one output for one format."""

    format: str
    """The format name reported in the `Extraction`."""
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[ExtractionError] = field(default_factory=list)

    def call(self, name: str, arguments: JsonObject, ctx: ExtractContext) -> None:
        """Record a well-formed call (the name resolved against the offered tools)."""
        # Arguments come from our own JSON or literal decoding, so they are valid JSON
        # values already; skipping validation keeps extraction fast.
        self.calls.append(
            ToolCall.model_construct(name=resolve_name(name, ctx), arguments=arguments)
        )

    def json_item(self, item: JsonValue, ctx: ExtractContext, *, where: str) -> None:
        """Record a decoded `{"name": ..., "arguments": {...}}` item (or its problem)."""
        if not isinstance(item, dict):
            self.error(f"{where}: a call must be a JSON object")
            return
        name = item.get("name")
        if not isinstance(name, str) or not is_tool_name(name.strip()):
            self.error(f"{where}: the call has no usable 'name'")
            return
        raw = item.get("arguments", item.get("parameters"))
        arguments = json_arguments(raw) if isinstance(raw, str) else raw
        if raw is None:
            arguments = {}
        if not isinstance(arguments, dict):
            detail = arguments if isinstance(arguments, str) else "arguments must be an object"
            self.error(f"{where}: call of '{name.strip()}': {detail}")
            return
        self.call(name.strip(), arguments, ctx)

    def error(self, message: str) -> None:
        """Record a recognisable but malformed call (up to `MAX_ERRORS` of them)."""
        if len(self.errors) < MAX_ERRORS - 1:
            self.errors.append(parse_error(message))
        elif len(self.errors) == MAX_ERRORS - 1:
            self.errors.append(parse_error(f"{message}; further problems are not reported"))

    @property
    def full(self) -> bool:
        """True once `MAX_ERRORS` problems or more than `MAX_CALLS` calls are recorded.

        Scanning further is pointless: `extract_calls` keeps only `MAX_CALLS` calls (and
        notes the cap when there are more).
        """
        return len(self.errors) >= MAX_ERRORS or len(self.calls) > MAX_CALLS

    def result(self) -> Extraction | None:
        """The `Extraction`, or None when neither calls nor malformed calls were seen."""
        if not self.calls and not self.errors:
            return None
        return Extraction(calls=tuple(self.calls), format=self.format, errors=tuple(self.errors))


class Finder:
    """`str.find` over one text that remembers answers, so repeated scans stay linear.

    Parsers look for the same closing tag again and again; on hostile input (thousands of
    opening tags and no closing one) plain `find` would rescan the rest of the text each
    time. A remembered answer is reused whenever it still is the first match at or after
    the new position.
    """

    __slots__ = ("_memo", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._memo: dict[str, tuple[int, int]] = {}

    def find(self, token: str, pos: int) -> int:
        """Index of the first `token` at or after `pos`, or -1."""
        memo = self._memo.get(token)
        if memo is not None:
            asked, answer = memo
            if asked <= pos and (answer == -1 or answer >= pos):
                return answer
        answer = self.text.find(token, pos)
        self._memo[token] = (pos, answer)
        return answer
