"""MeetKai Functionary's formats: v3 (`>>>NAME` then JSON) and v3.1 (`<function=NAME>{...}`).

Both write the tool's name outside the JSON and only the arguments as a JSON object.
Functionary v3.1 uses Llama 3.1's custom tool-call syntax, `<function=NAME>{json}
</function>`, which it shares with Llama 3.1 models prompted for it; Qwen3-Coder's
`<function=NAME><parameter=...>` XML shares the opening tag, and its parser (tried
first) declines a `<function=NAME>` followed by `{`.
"""

from __future__ import annotations

import re

from toolgrade._core.json_data import JsonValue
from toolgrade.extract._build import Found
from toolgrade.extract._common import (
    MAX_CALLS,
    MAX_FAILED_DECODES,
    cap_error,
    decode_at,
    error_for,
    parse_error,
    skip_space,
)
from toolgrade.extract._json_scan import call_from_object
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat

__all__ = ["FORMATS"]

_MAX_BLOCKS = MAX_CALLS + 1
"""Calls of one output read at most: reading one past the cap shows it was hit."""


def _add_call(found: Found, name: str, arguments: JsonValue, where: str) -> None:
    result = call_from_object({"name": name, "arguments": arguments})
    if result.call is None:
        found.problem(result.error(where))
    else:
        found.calls.append(result.call)


_FUNCTIONARY_HEAD = re.compile(r"([A-Za-z_][A-Za-z0-9_.\-]{0,255})[ \t]*\r?\n")
_OBJECT_START = re.compile(r"\s*\{")


def _functionary_v3(text: str, ctx: ExtractContext) -> Extraction | None:
    found = Found()
    # v3.2's generation prompt ends with `>>>`, so the first recipient has no marker.
    starts = [0] if _FUNCTIONARY_HEAD.match(text) else []
    pos = text.find(">>>")
    while pos != -1 and len(starts) < _MAX_BLOCKS:
        starts.append(pos + 3)
        pos = text.find(">>>", pos + 3)
    if len(starts) > MAX_CALLS:
        found.errors.append(cap_error())
    for start in starts:
        head = _FUNCTIONARY_HEAD.match(text, start)
        if head is None or head.group(1) == "all":
            continue  # `>>>all` introduces text; `>>> x` is a Python prompt
        body_start = head.end()
        if _OBJECT_START.match(text, body_start) is None:
            continue
        where = f"functionary_v3: >>>{head.group(1)}"
        try:
            arguments, _ = decode_at(text, body_start)
        except ValueError as exc:
            found.errors.append(error_for(exc, where))
            continue
        _add_call(found, head.group(1), arguments, where)
    return found.result("functionary_v3")


# The name is what `_build.is_tool_name` accepts, so `<function={{ name }}>` never matches.
_FUNCTION_TAG = re.compile(r"<function=([^\s<>{}()\[\]\"'`,;=]{1,256})>")
_FUNCTION_END = "</function>"
# What may follow arguments whose `</function>` is missing: a stop sequence on the tag,
# the next call, or the end-of-message tokens of Llama 3.1.
_UNCLOSED_OK = ("<function=", "<|eom_id|>", "<|eot_id|>")


def _functionary_v31(text: str, ctx: ExtractContext) -> Extraction | None:
    found = Found()
    seen = failures = 0
    pos = 0
    while seen < _MAX_BLOCKS and (match := _FUNCTION_TAG.search(text, pos)) is not None:
        pos = match.end()
        body = skip_space(text, pos)
        if not text.startswith("{", body):
            continue  # the tag named in prose, or Qwen3-Coder XML
        seen += 1
        name = match.group(1)
        where = f"functionary_v31: <function={name}>"
        try:
            arguments, end = decode_at(text, body)
        except ValueError as exc:
            found.errors.append(error_for(exc, where))
            failures += 1
            if failures >= MAX_FAILED_DECODES:
                break
            continue
        pos = after = skip_space(text, end)
        if text.startswith(_FUNCTION_END, after):
            pos = after + len(_FUNCTION_END)
        elif after < len(text) and not text.startswith(_UNCLOSED_OK, after):
            # `{...}}` or other text before `</function>`: the call is recoverable, the
            # output is still malformed.
            found.errors.append(
                parse_error(f"{where}: text after the arguments ({text[after : after + 40]!r})")
            )
        _add_call(found, name, arguments, where)
    if seen > MAX_CALLS:
        found.errors.append(cap_error())
    return found.result("functionary_v31")


FORMATS: list[TextFormat] = [
    TextFormat(
        "functionary_v3",
        "marker",
        (">>>",),
        _functionary_v3,
        "Functionary v3: >>>NAME\\n{...}",
    ),
    TextFormat(
        "functionary_v31",
        "marker",
        ("<function=",),
        _functionary_v31,
        "Functionary v3.1, Llama 3.1 custom calls: <function=NAME>{...}</function>",
    ),
]
