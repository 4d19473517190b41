"""The one reader of a call object (`call_from_object`), and JSON scanning built on it.

Every format that carries JSON call objects, text or structured, reads them here, with
the alias table of `ToolCall` (`NAME_KEYS`, `ARGUMENT_KEYS`) and the one bounded decoder
(`_common.decode_at`: the C JSON decoder, nesting checked on the decoded value). Callers
limit how many failed decode attempts one output may cost; that keeps a 1 MB hostile
output well under 100 ms, where a pure-Python bracket scan would not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.vocab import ARGUMENT_KEYS, NAME_KEYS, ToolCall
from toolgrade.extract._common import (
    TooDeepError,
    check_bounds,
    decode_at,
    loads_fast,
    skip_space,
)
from toolgrade.extract._types import ExtractContext, ExtractionProblem, ExtractionProblemReason

__all__ = [
    "SINGLE_INPUT",
    "CallResult",
    "call_from_object",
    "calls_from_payload",
    "decode_sequence",
    "json_until",
    "looks_like_call_text",
    "object_sequence",
]

# A call's name inside JSON text that failed to decode: used only to decide whether broken
# JSON was meant as a call (then it is a parse_error) or is unrelated prose.
_NAME_IN_TEXT = re.compile(r'"(?:name|tool_name|tool)"\s*:\s*"([^"\\\n]{1,200})"')
_ARGS_IN_TEXT = re.compile(r'"(?:arguments|args|parameters|tool_input)"\s*:')


def json_until(
    text: str, pos: int, close: str, *, max_values: int
) -> tuple[list[JsonValue], int] | None:
    """JSON values from `pos` up to the `close` tag, reading strings as strings.

    A closing tag (or fence) written inside a JSON string is text, not the end of the
    block: the values are decoded first and the tag is looked for only after them.

    Returns:
        The values (one or more, at most `max_values`, separated by whitespace) and the
        index of `close` right after them; None when the text from `pos` is not that
        (invalid or too deep JSON, other text after a value, no `close`), and the caller
        then reads the block as plain text.
    """
    values: list[JsonValue] = []
    while len(values) < max_values:
        try:
            value, pos = decode_at(text, pos)
        except ValueError:
            return None
        values.append(value)
        pos = skip_space(text, pos)
        if text.startswith(close, pos):
            return values, pos
        if text[pos : pos + 1] not in ("{", "["):
            return None
    return None


def object_sequence(
    text: str, *, limit: int, max_broken: int
) -> tuple[list[JsonValue], list[tuple[int, ValueError]]] | None:
    r"""JSON objects one after another, separated by whitespace, `;` or `,`.

    A broken object is noted (its place from 1, and why) and reading goes on at the next
    line that starts with `{`, so the good objects around it still count. At most `limit`
    objects are read, and reading stops at the `max_broken`th broken one (a hostile text
    stays linear).

    Returns:
        The objects decoded and the broken ones; None when the text is something else
        (it does not start with an object, or holds other text between objects).

    Examples:
        >>> text = '{"a": 1}\n{"b": }\n{"c": 3}'
        >>> values, broken = object_sequence(text, limit=10, max_broken=4)
        >>> values, [(k, str(e)) for k, e in broken]
        ([{'a': 1}, {'c': 3}], [(2, 'invalid JSON: Expecting value at char 15')])
    """
    values: list[JsonValue] = []
    broken: list[tuple[int, ValueError]] = []
    pos, n = 0, len(text)
    while len(values) + len(broken) < limit:
        pos = skip_space(text, pos)
        if pos >= n:
            break
        if text[pos] != "{":
            return None
        try:
            value, pos = decode_at(text, pos)
        except ValueError as exc:
            broken.append((len(values) + len(broken) + 1, exc))
            pos = text.find("\n{", pos)
            if pos == -1 or len(broken) >= max_broken:
                break
            continue
        values.append(value)
        pos = skip_space(text, pos)
        if text.startswith((";", ","), pos):
            pos += 1
    return values, broken


def decode_sequence(text: str, separators: str) -> list[JsonValue]:
    """Decode JSON values separated by whitespace and any of `separators` (e.g. `;`).

    Raises:
        TooDeepError: a value is nested too deeply.
        ValueError: something other than JSON values and separators.
    """
    values: list[JsonValue] = []
    pos, n = 0, len(text)
    while True:
        pos = skip_space(text, pos)
        if pos >= n:
            return values
        value, pos = decode_at(text, pos)
        values.append(value)
        pos = skip_space(text, pos)
        if pos < n and text[pos] in separators:
            pos += 1
        elif pos < n:
            raise ValueError(f"invalid JSON: unexpected text at char {pos}")


@dataclass(frozen=True, slots=True)
class CallResult:
    """A call read from a JSON object, or why the object is not a well-formed call."""

    call: ToolCall | None
    problem: str = ""
    """What is wrong (empty when `call` is set)."""
    reason: ExtractionProblemReason = "parse_error"
    """`too_deep` for arguments nested too deeply, else `parse_error`."""

    def error(self, where: str) -> ExtractionProblem:
        """The problem as an `ExtractionProblem`, prefixed with `where`."""
        return ExtractionProblem(reason=self.reason, message=f"{where}: {self.problem}")


SINGLE_INPUT = "__arg1"
"""The argument name of a LangChain `tool_input` written as plain text (LangChain's own)."""
_ENCODINGS = 2
"""Arguments given as a JSON string are decoded this many times at most."""


def _decode_arguments(raw: JsonValue) -> JsonObject | ValueError:
    """Arguments as an object; a JSON string (double encoding) is decoded up to twice."""
    for _ in range(_ENCODINGS + 1):
        if raw is None:
            return {}
        if isinstance(raw, dict):
            return raw
        if not isinstance(raw, str):
            return ValueError(f"arguments must be an object, got {type(raw).__name__}")
        if not raw.strip():
            return {}
        try:
            raw = loads_fast(raw)
        except TooDeepError as exc:
            return exc
        except ValueError as exc:
            return ValueError(f"arguments are not valid JSON ({exc})")
    return ValueError("arguments are encoded too many times")


def _failed(name: str, problem: ValueError) -> CallResult:
    reason: ExtractionProblemReason = (
        "too_deep" if isinstance(problem, TooDeepError) else "parse_error"
    )
    return CallResult(None, f"call '{name}': {problem}", reason)


def call_from_object(obj: object) -> CallResult:
    """Read a call from a call object: the one reader every format uses.

    Accepted: `{"name", "arguments"}` with the aliases of `NAME_KEYS` and `ARGUMENT_KEYS`
    (shared with `ToolCall`), OpenAI's `{"function": {...}}`, and LangChain's
    `{"tool": NAME, "tool_input": ...}`, where a `tool_input` of plain text rather than
    an object is one input, `{"__arg1": text}` (see `_json_generic` for the tool's only
    parameter). Arguments given as a JSON string (once or twice encoded) are decoded,
    by the bounded decoder, and arguments given as an object are held to the same
    bounds: nested too deeply is `too_deep`, an integer of too many digits is
    `parse_error`, whether they came as an object or as a string.
    """
    if not isinstance(obj, dict):
        return CallResult(None, f"a call must be an object, got {type(obj).__name__}")
    function = obj.get("function")
    if isinstance(function, dict):
        obj = function
    langchain = "tool_input" in obj and "name" not in obj
    name = next((obj[k] for k in NAME_KEYS if k in obj), None)
    if not isinstance(name, str) or not name.strip():
        return CallResult(None, "a call needs a non-empty string 'name'")
    if langchain:
        raw = obj["tool_input"]
    else:
        raw = next((obj[k] for k in ARGUMENT_KEYS if k in obj), None)
    arguments = _decode_arguments(raw)
    if isinstance(arguments, ValueError):
        if not (langchain and isinstance(raw, str)):
            return _failed(name, arguments)
        # Old single-input agents pass the tool one string, not an object.
        arguments = {SINGLE_INPUT: raw}
    elif arguments is raw:  # given as an object (decoded strings are bounded already)
        try:
            check_bounds(arguments)
        except ValueError as exc:
            return _failed(name, exc)
    return CallResult(ToolCall.model_construct(name=name.strip(), arguments=arguments))


def calls_from_payload(
    value: JsonValue, where: str
) -> tuple[list[ToolCall], list[ExtractionProblem]]:
    """Calls from a decoded payload that must be a call object or a list of them."""
    items = value if isinstance(value, list) else [value]
    calls: list[ToolCall] = []
    errors: list[ExtractionProblem] = []
    for item in items:
        result = call_from_object(item)
        if result.call is not None:
            calls.append(result.call)
        else:
            errors.append(result.error(where))
    return calls, errors


def looks_like_call_text(text: str, ctx: ExtractContext, *, any_name: bool = False) -> bool:
    """Whether JSON text that failed to decode was evidently meant as a tool call.

    Args:
        text: the start of the broken JSON.
        ctx: the offered tools.
        any_name: the JSON is the whole reply or a whole fenced block, where a call to a
            tool that is not offered is still a call.
    """
    name = _NAME_IN_TEXT.search(text)
    if name is None or _ARGS_IN_TEXT.search(text) is None:
        return False
    return any_name or ctx.tools is None or name.group(1) in ctx.tools
