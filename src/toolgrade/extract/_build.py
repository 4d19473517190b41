"""Building blocks shared by every text parser.

`Found`, the one accumulator, collects calls and problems while a parser scans;
`Found.result` turns them into an `Extraction` (or None when nothing of the format was
seen).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.vocab import ToolCall
from toolgrade.extract._common import MAX_CALLS, loads_fast, parse_error
from toolgrade.extract._json_scan import call_from_object
from toolgrade.extract._types import ExtractContext, Extraction, ExtractionProblem

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
        value: JsonValue = loads_fast(text)
        if isinstance(value, str) and value.strip().startswith("{"):
            value = loads_fast(value)
    except ValueError as exc:
        return f"arguments are not valid JSON ({exc})"
    if not isinstance(value, dict):
        return f"arguments must be a JSON object, got {type(value).__name__}"
    return value


@dataclass(slots=True)
class Found:
    """Calls and problems collected while scanning one output for one format."""

    format: str = "none"
    """The format name reported in the `Extraction` (`result` may name another)."""
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[ExtractionProblem] = field(default_factory=list)

    def call(self, name: str, arguments: JsonObject, ctx: ExtractContext) -> None:
        """Record a well-formed call (the name resolved against the offered tools)."""
        # Arguments come from our own JSON or literal decoding, so they are valid JSON
        # values already; skipping validation keeps extraction fast.
        self.calls.append(
            ToolCall.model_construct(name=resolve_name(name, ctx), arguments=arguments)
        )

    def json_item(self, item: JsonValue, ctx: ExtractContext, *, where: str) -> None:
        """Record a decoded call object (or its problem), read by `call_from_object`."""
        result = call_from_object(item)
        if result.call is None:
            self.problem(result.error(where))
        elif not is_tool_name(result.call.name):
            self.error(f"{where}: the call has no usable 'name'")
        else:
            self.call(result.call.name, result.call.arguments, ctx)

    def add(self, calls: list[ToolCall], errors: list[ExtractionProblem]) -> None:
        """Append calls and problems as they are, keeping output order."""
        self.calls.extend(calls)
        self.errors.extend(errors)

    def error(self, message: str) -> None:
        """Record a recognisable but malformed call (up to `MAX_ERRORS` of them)."""
        self.problem(parse_error(message))

    def problem(self, problem: ExtractionProblem) -> None:
        """Record a problem of any reason (up to `MAX_ERRORS` of them)."""
        if len(self.errors) < MAX_ERRORS - 1:
            self.errors.append(problem)
        elif len(self.errors) == MAX_ERRORS - 1:
            message = f"{problem.message}; further problems are not reported"
            self.errors.append(problem.model_copy(update={"message": message}))

    @property
    def full(self) -> bool:
        """True once `MAX_ERRORS` problems or more than `MAX_CALLS` calls are recorded.

        Scanning further is pointless: `extract_calls` keeps only `MAX_CALLS` calls (and
        notes the cap when there are more).
        """
        return len(self.errors) >= MAX_ERRORS or len(self.calls) > MAX_CALLS

    @property
    def anything(self) -> bool:
        """Whether a call or a problem was found."""
        return bool(self.calls or self.errors)

    def result(self, format: str | None = None) -> Extraction | None:
        """The `Extraction` (in `format`, default `self.format`), or None when empty."""
        if not self.calls and not self.errors:
            return None
        name = self.format if format is None else format
        return Extraction(calls=tuple(self.calls), format=name, errors=tuple(self.errors))


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
