"""Marker formats whose calls are JSON: Hermes/Qwen, Mistral, Llama 3.x, Granite, and more.

Each parser returns None when its marker is present but used in a way that is not this
format (prose mentioning `<tool_call>`, a code-interpreter action), so auto-detection
can move on. A recognisable call whose JSON is broken or truncated becomes a
`parse_error`, and the well-formed calls around it are kept. Tag bodies are read as JSON
first, so a closing tag written inside a JSON string is text (`json_tagged_blocks`).
The Functionary formats are in `_json_functionary` and listed here.
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
from toolgrade.extract._json_functionary import FORMATS as _FUNCTIONARY_FORMATS
from toolgrade.extract._json_scan import (
    call_from_object,
    calls_from_payload,
    decode_sequence,
    json_until,
)
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat

__all__ = ["FORMATS", "json_tagged_blocks", "tagged_blocks"]

_MAX_BLOCKS = MAX_CALLS + 1
"""Blocks of one output read at most: reading one past the cap shows it was hit."""
_MAX_VALUES = 64
"""JSON values read from one tag body at most."""


def tagged_blocks(text: str, open_tag: str, close_tag: str) -> list[tuple[str, bool]]:
    """Bodies between `open_tag` and `close_tag`, each with whether it was closed.

    An unclosed body runs to the next `open_tag` or the end of the text. Runs in linear
    time: the next closing tag is searched for only once it has been passed.
    """
    blocks: list[tuple[str, bool]] = []
    pos = text.find(open_tag)
    close = -2
    while pos != -1 and len(blocks) < _MAX_BLOCKS:
        start = pos + len(open_tag)
        if close != -1 and close < start:
            close = text.find(close_tag, start)
        nxt = text.find(open_tag, start)
        if close != -1 and (nxt == -1 or close < nxt):
            blocks.append((text[start:close], True))
            nxt = text.find(open_tag, close + len(close_tag))
        else:
            blocks.append((text[start : nxt if nxt != -1 else len(text)], False))
        pos = nxt
    return blocks


def _note_cap(found: Found, blocks: int) -> None:
    """Say so when an output has more call blocks than `MAX_CALLS` (the rest are not read)."""
    if blocks > MAX_CALLS:
        found.errors.append(cap_error())


Block = tuple[str, bool, list[JsonValue] | None]
"""A tag body, whether it was closed, and its JSON values when it was read as JSON."""


def json_tagged_blocks(text: str, open_tag: str, close_tag: str, *, lead: str = "") -> list[Block]:
    """Like `tagged_blocks`, but a body of JSON values is read as JSON first.

    A body that starts (after whitespace and `lead`) with `{` or `[` is decoded, value by
    value, and ends at the closing tag that follows the last value: a closing tag inside
    a JSON string is text. Several values in one body (small Qwen models put two call
    objects in one `<tool_call>`) are all returned. A body that does not read that way
    (broken JSON, other text after a value, no closing tag) is cut at the first closing
    tag as by `tagged_blocks`, with values None, so its problem is reported as before.
    After `MAX_FAILED_DECODES` such bodies, the rest are cut without decoding: a decode
    may run far past the closing tag before failing, and that must not repeat.
    """
    blocks: list[Block] = []
    pos = text.find(open_tag)
    close = -2
    failures = 0
    while pos != -1 and len(blocks) < _MAX_BLOCKS:
        start = pos + len(open_tag)
        first = skip_space(text, start)
        if lead and text.startswith(lead, first):
            first = skip_space(text, first + len(lead))
        if failures < MAX_FAILED_DECODES and text.startswith(("{", "["), first):
            read = json_until(text, first, close_tag, max_values=_MAX_VALUES)
            if read is not None:
                blocks.append((text[start : read[1]], True, read[0]))
                pos = text.find(open_tag, read[1] + len(close_tag))
                continue
            failures += 1
        if close != -1 and close < start:
            close = text.find(close_tag, start)
        nxt = text.find(open_tag, start)
        if close != -1 and (nxt == -1 or close < nxt):
            blocks.append((text[start:close], True, None))
            nxt = text.find(open_tag, close + len(close_tag))
        else:
            blocks.append((text[start : nxt if nxt != -1 else len(text)], False, None))
        pos = nxt
    return blocks


def _json_body(
    body: str, closed: bool, where: str, found: Found, values: list[JsonValue] | None = None
) -> None:
    """Read a tag body holding a call object or a list of calls (`values` when decoded).

    An unclosed body is accepted when it is exactly one JSON value: a stop sequence on the
    closing tag removes it from otherwise complete output.
    """
    if values is not None:
        for value in values:
            found.add(*calls_from_payload(value, where))
        return
    stripped = body.strip()
    try:
        value, end = decode_at(stripped, 0)
    except ValueError as exc:
        found.errors.append(error_for(exc, where))
        return
    if stripped[end:].strip():
        what = "unterminated tag" if not closed else "text after the JSON"
        found.errors.append(parse_error(f"{where}: {what} ({stripped[end : end + 40]!r})"))
        if not closed:
            return
    found.add(*calls_from_payload(value, where))


def _tagged_json(
    text: str, *, name: str, tags: tuple[str, str], foreign: tuple[str, ...] = ()
) -> Extraction | None:
    """Calls in `<open>{json}</close>` blocks; bodies starting with `foreign` are not ours."""
    found = Found()
    blocks = json_tagged_blocks(text, *tags)
    for index, (body, closed, values) in enumerate(blocks, start=1):
        stripped = body.lstrip()
        if foreign and stripped.startswith(foreign):
            continue
        if not stripped or (not closed and "{" not in stripped and "[" not in stripped):
            continue  # the tags mentioned in prose, not a call
        _json_body(body, closed, f"{name}: {tags[0]} #{index}", found, values)
    _note_cap(found, len(blocks))
    return found.result(name)


def _hermes(text: str, ctx: ExtractContext) -> Extraction | None:
    # Bodies starting with `<` are Qwen3-Coder / GLM / MiniMax XML inside the same tag.
    return _tagged_json(text, name="hermes", tags=("<tool_call>", "</tool_call>"), foreign=("<",))


def _jamba(text: str, ctx: ExtractContext) -> Extraction | None:
    return _tagged_json(text, name="jamba", tags=("<tool_calls>", "</tool_calls>"))


def _command_r7b(text: str, ctx: ExtractContext) -> Extraction | None:
    return _tagged_json(text, name="command_r7b", tags=("<|START_ACTION|>", "<|END_ACTION|>"))


def _internlm2(text: str, ctx: ExtractContext) -> Extraction | None:
    found = Found()
    blocks = json_tagged_blocks(text, "<|action_start|>", "<|action_end|>", lead="<|plugin|>")
    for index, (body, closed, values) in enumerate(blocks, start=1):
        # `<|interpreter|>` actions are code for the interpreter, not tool calls.
        head, sep, rest = body.partition("<|plugin|>")
        if not sep or head.strip():
            continue
        _json_body(rest, closed, f"internlm2: action #{index}", found, values)
    _note_cap(found, len(blocks))
    return found.result("internlm2")


_CALLS_OPENING = re.compile(r"\s*[\[{]")
_LIST_ITEMS_OPENING = re.compile(r"\s*[{\]]")


def _prefixed_json(
    text: str, marker: str, *, name: str, opening: re.Pattern[str], start: str = ""
) -> Extraction | None:
    """Calls in a JSON value right after each `marker`; text after the value is prose.

    A marker not followed by `opening` is the token named in prose, not a call.
    """
    found = Found()
    pos = text.find(marker)
    index = 0
    while pos != -1 and index < _MAX_BLOCKS:
        begin = pos + len(marker)
        if opening.match(text, begin) is None:
            pos = text.find(marker, begin)
            continue
        index += 1
        where = f"{name}: {marker}{start} #{index}"
        try:
            value, end = decode_at(text, begin - len(start))
        except ValueError as exc:
            found.errors.append(error_for(exc, where))
            end = begin
        else:
            found.add(*calls_from_payload(value, where))
        pos = text.find(marker, max(end, begin))
    _note_cap(found, index)
    return found.result(name)


def _granite(text: str, ctx: ExtractContext) -> Extraction | None:
    return _prefixed_json(text, "<|tool_call|>", name="granite", opening=_CALLS_OPENING)


def _phi4_mini(text: str, ctx: ExtractContext) -> Extraction | None:
    # The `[` belongs to both the marker and the JSON list, so decoding starts one back.
    return _prefixed_json(
        text, "functools[", name="phi4_mini", opening=_LIST_ITEMS_OPENING, start="["
    )


_END_TOKENS = ("<|eom_id|>", "<|eot_id|>", "<|end_of_text|>")


def _llama_body(body: str, where: str, found: Found) -> bool:
    """Read `;`-separated call objects; False when the body is not JSON (pythonic)."""
    for token in _END_TOKENS:
        body = body.split(token, 1)[0]
    stripped = body.strip()
    if not stripped.startswith("{"):
        return False
    try:
        values = decode_sequence(stripped, ";")
    except ValueError as exc:
        found.errors.append(error_for(exc, where))
        return True
    for value in values:
        found.add(*calls_from_payload(value, where))
    return True


def _llama3_json(text: str, ctx: ExtractContext) -> Extraction | None:
    found = Found()
    bodies = text.split("<|python_tag|>")[1:] or [text]
    for index, body in enumerate(bodies[:_MAX_BLOCKS], start=1):
        _llama_body(body, f"llama3_json: call #{index}", found)
    _note_cap(found, len(bodies))
    return found.result("llama3_json")


_MISTRAL_NAME = re.compile(r"\s*([A-Za-z0-9_.:\-]{1,256})\s*(?:\[CALL_ID\][A-Za-z0-9_\-]*)?\s*")


def _mistral_one(segment: str, where: str, found: Found) -> None:
    """One `[TOOL_CALLS]` segment: a JSON list/object, or `NAME[ARGS]{...}`."""
    stripped = segment.lstrip()
    if stripped.startswith(("[", "{")) and not stripped.startswith("[ARGS]"):
        try:
            value, _ = decode_at(stripped, 0)
        except ValueError as exc:
            found.errors.append(error_for(exc, where))
            return
        found.add(*calls_from_payload(value, where))
        return
    match = _MISTRAL_NAME.match(segment)
    rest = segment[match.end() :] if match else ""
    if match is None or not rest.startswith(("[ARGS]", "{")):
        return  # the token named in prose: no JSON and no NAME[ARGS] follows
    rest = rest.removeprefix("[ARGS]")
    try:
        arguments, _ = decode_at(rest, 0)
    except ValueError as exc:
        found.errors.append(error_for(exc, f"{where} ({match.group(1)})"))
        return
    result = call_from_object({"name": match.group(1), "arguments": arguments})
    if result.call is None:
        found.problem(result.error(where))
    else:
        found.calls.append(result.call)


def _mistral(text: str, ctx: ExtractContext) -> Extraction | None:
    found = Found()
    segments = text.split("[TOOL_CALLS]")[1:] or ([text] if text.lstrip()[:1] in "[{" else [])
    for index, segment in enumerate(segments[:_MAX_BLOCKS], start=1):
        _mistral_one(segment, f"mistral: [TOOL_CALLS] #{index}", found)
    _note_cap(found, len(segments))
    return found.result("mistral")


FORMATS: list[TextFormat] = [
    TextFormat(
        "hermes",
        "marker",
        ("<tool_call>",),
        _hermes,
        'Hermes, Qwen 2.5, Qwen 3: <tool_call>{"name": ..., "arguments": ...}</tool_call>',
    ),
    TextFormat(
        "mistral",
        "marker",
        ("[TOOL_CALLS]",),
        _mistral,
        "Mistral: [TOOL_CALLS][{...}] and [TOOL_CALLS]NAME[ARGS]{...}",
    ),
    TextFormat(
        "llama3_json",
        "marker",
        ("<|python_tag|>",),
        _llama3_json,
        'Llama 3.1/3.2: {"name": ..., "parameters": ...}; several separated by ";"',
    ),
    TextFormat(
        "granite", "marker", ("<|tool_call|>",), _granite, "IBM Granite 3: <|tool_call|>[{...}]"
    ),
    TextFormat("phi4_mini", "marker", ("functools[",), _phi4_mini, "Phi-4-mini: functools[{...}]"),
    TextFormat(
        "jamba", "marker", ("<tool_calls>",), _jamba, "AI21 Jamba: <tool_calls>[...]</tool_calls>"
    ),
    TextFormat(
        "internlm2",
        "marker",
        ("<|action_start|>",),
        _internlm2,
        "InternLM2: <|action_start|><|plugin|>{...}<|action_end|>",
    ),
    TextFormat(
        "command_r7b",
        "marker",
        ("<|START_ACTION|>",),
        _command_r7b,
        'Command R7B: <|START_ACTION|>[{"tool_name": ..., "parameters": ...}]<|END_ACTION|>',
    ),
    *_FUNCTIONARY_FORMATS,
]
