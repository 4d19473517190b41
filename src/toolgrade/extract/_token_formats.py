"""Special-token tool-call formats: DeepSeek, Kimi K2, gpt-oss harmony, Step-3, LFM2.

The Gemma family (`_gemma_formats`) and the JSON-bodied ones (`_json_token_formats`:
Apertus, LongCat, MiniMax-M1, GigaChat 3, Granite 20B FC) are listed here too, so that
`FORMATS` is every special-token format. Parsers scan with `str.find`; no regular
expression runs over the output.
"""

from __future__ import annotations

from functools import lru_cache

from toolgrade.extract._build import Finder, Found, is_tool_name, json_arguments
from toolgrade.extract._gemma_formats import FORMATS as _GEMMA_FORMATS
from toolgrade.extract._json_token_formats import FORMATS as _JSON_TOKEN_FORMATS
from toolgrade.extract._json_token_formats import json_list
from toolgrade.extract._pythonic import add_call_block
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat
from toolgrade.extract._xml_common import InvokeSyntax, parse_invokes, wrapped_invokes

__all__ = [
    "FORMATS",
    "parse_deepseek_v3",
    "parse_deepseek_v31",
    "parse_deepseek_v32",
    "parse_harmony",
    "parse_kimi_k2",
    "parse_lfm2",
    "parse_step3",
]

# DeepSeek's tokens use U+FF5C (fullwidth vertical line) and U+2581 (lower one eighth
# block, SentencePiece's space); written as escapes so the source stays unambiguous.
_BAR = "\uff5c"
_SPACE = "\u2581"


def _ds(words: str) -> str:
    return f"<{_BAR}{words.replace(' ', _SPACE)}{_BAR}>"


_DS_CALLS_BEGIN = _ds("tool calls begin")
_DS_CALLS_END = _ds("tool calls end")
_DS_CALL_BEGIN = _ds("tool call begin")
_DS_CALL_END = _ds("tool call end")
_DS_SEP = _ds("tool sep")
# Distilled and quantised DeepSeek models spell the tokens with ASCII bars, underscores or
# spaces; all are read as the real tokens.
_DS_WORDS = ("tool calls begin", "tool calls end", "tool call begin", "tool call end", "tool sep")
_DS_SPELLINGS = tuple(
    (f"<{left}{words.replace(' ', space)}{right}>", _ds(words))
    for words in _DS_WORDS
    for left, right in (("|", "|"), (_BAR, _BAR))
    for space in ("_", " ", "\\_", _SPACE)
    if (left, space) != (_BAR, _SPACE)
)
_DS_ODD_PREFIXES = ("<|tool", f"<{_BAR}tool_", f"<{_BAR}tool ", f"<{_BAR}tool\\")
_DS_MARKERS = (
    f"tool{_SPACE}calls{_SPACE}begin",
    f"tool{_SPACE}call{_SPACE}begin",
    f"<{_BAR}tool_calls_begin{_BAR}>",
    f"<{_BAR}tool_call_begin{_BAR}>",
    "<|tool_calls_begin|>",
    "tool calls begin",
    "tool\\_calls\\_begin",
)
_FENCE = "```"


@lru_cache(maxsize=2)  # the V3 and V3.1 parsers both ask, one after the other
def _canonical_tokens(text: str) -> str:
    if not any(prefix in text for prefix in _DS_ODD_PREFIXES):
        return text
    for spelling, canonical in _DS_SPELLINGS:
        if spelling in text:
            text = text.replace(spelling, canonical)
    return text


def _deepseek(text: str, ctx: ExtractContext, style: str) -> Extraction | None:
    """DeepSeek V3/R1 (`style="v3"`, fenced JSON) or V3.1 (`style="v31"`, bare JSON)."""
    if "<steptml:" in text:
        return None  # Step-3 shares the token names but not the call body
    text = _canonical_tokens(text)
    finder = Finder(text)
    found = Found(f"deepseek_{style}")
    pos = 0
    first = True
    while (start := finder.find(_DS_CALL_BEGIN, pos)) != -1 and not found.full:
        body_start = start + len(_DS_CALL_BEGIN)
        end = finder.find(_DS_CALL_END, body_start)
        following = finder.find(_DS_CALL_BEGIN, body_start)
        stop = end if end != -1 else len(text)
        if following != -1 and following < stop:
            stop = following
        body = text[body_start:stop]
        if first:
            if ("v3" if _FENCE in body else "v31") != style:
                return None
            first = False
        if stop != end:
            found.error("DeepSeek tool call is not closed (output truncated?)")
            if following == -1:
                break
            pos = following
            continue
        _deepseek_call(body, found, ctx)
        pos = end + len(_DS_CALL_END)
    if first and style == "v3" and _DS_CALLS_BEGIN in text:
        found.error("DeepSeek tool calls section holds no call (output truncated?)")
    return found.result()


def _deepseek_call(body: str, found: Found, ctx: ExtractContext) -> None:
    sep = body.find(_DS_SEP)
    if sep == -1:
        found.error("DeepSeek tool call without the tool_sep token")
        return
    head, tail = body[:sep].strip(), body[sep + len(_DS_SEP) :]
    if _FENCE in tail:
        # V3/R1: `function<sep>NAME\n```json\n{...}\n````
        fence = tail.find(_FENCE)
        name = tail[:fence].strip()
        line_end = tail.find("\n", fence)
        close = tail.rfind(_FENCE)
        if line_end == -1 or close <= line_end:
            found.error(f"DeepSeek call of '{name}': the ```json block is not closed")
            return
        args_text = tail[line_end + 1 : close]
    elif head == "function" and "\n" in tail.strip():
        name, _, args_text = tail.strip().partition("\n")
    else:
        name, args_text = head, tail  # V3.1: `NAME<sep>{...}`
    name = name.strip()
    if not is_tool_name(name):
        found.error(f"DeepSeek tool call with an unusable name {name[:40]!r}")
        return
    decoded = json_arguments(args_text)
    if isinstance(decoded, str):
        found.error(f"DeepSeek call of '{name}': {decoded}")
    else:
        found.call(name, decoded, ctx)


def parse_deepseek_v3(text: str, ctx: ExtractContext) -> Extraction | None:
    """DeepSeek V3 / R1: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` + fenced JSON."""  # noqa: RUF002
    return _deepseek(text, ctx, "v3")


def parse_deepseek_v31(text: str, ctx: ExtractContext) -> Extraction | None:
    """DeepSeek V3.1: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>`."""  # noqa: RUF002
    return _deepseek(text, ctx, "v31")


def _dsml(prefix: str) -> tuple[tuple[str, str, InvokeSyntax], ...]:
    return tuple(
        (f"<{prefix}{wrapper}>", f"</{prefix}{wrapper}>", InvokeSyntax(prefix))
        for wrapper in ("function_calls", "tool_calls")
    )


_DSML_PREFIXES = (f"{_BAR}DSML{_BAR}", "|DSML|")
_DSML_WRAPPERS = _dsml(_DSML_PREFIXES[0]) + _dsml(_DSML_PREFIXES[1])


def parse_deepseek_v32(text: str, ctx: ExtractContext) -> Extraction | None:
    """DeepSeek V3.2 / V4 DSML: `<｜DSML｜function_calls><｜DSML｜invoke name="X">...`."""  # noqa: RUF002
    return wrapped_invokes(text, ctx, fmt="deepseek_v32", wrappers=_DSML_WRAPPERS)


_KIMI_CALL = "<|tool_call_begin|>"
_KIMI_ARGS = "<|tool_call_argument_begin|>"
_KIMI_END = "<|tool_call_end|>"


def parse_kimi_k2(text: str, ctx: ExtractContext) -> Extraction | None:
    """`<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}<|tool_call_end|>`."""
    finder = Finder(text)
    found = Found("kimi_k2")
    pos = 0
    while (start := finder.find(_KIMI_CALL, pos)) != -1 and not found.full:
        body_start = start + len(_KIMI_CALL)
        args = finder.find(_KIMI_ARGS, body_start)
        end = finder.find(_KIMI_END, body_start)
        if args == -1 or (end != -1 and args > end):
            found.error("Kimi tool call without <|tool_call_argument_begin|>")
            if end == -1:
                break
            pos = end + len(_KIMI_END)
            continue
        name = _kimi_name(text[body_start:args].strip())
        if end == -1:
            found.error(f"Kimi call of '{name}' is not closed (output truncated?)")
            break
        pos = end + len(_KIMI_END)
        decoded = json_arguments(text[args + len(_KIMI_ARGS) : end])
        if not is_tool_name(name):
            found.error(f"Kimi tool call with an unusable id {name[:40]!r}")
        elif isinstance(decoded, str):
            found.error(f"Kimi call of '{name}': {decoded}")
        else:
            found.call(name, decoded, ctx)
    return found.result()


def _kimi_name(call_id: str) -> str:
    """`functions.get_weather:0` -> `get_weather`."""
    base, colon, index = call_id.rpartition(":")
    if colon and index.isdigit():
        call_id = base
    return call_id.removeprefix("functions.")


_H_MESSAGE = "<|message|>"
_H_STOPS = ("<|call|>", "<|end|>", "<|return|>")
_H_NEXT = ("<|start|>", "<|channel|>")


def parse_harmony(text: str, ctx: ExtractContext) -> Extraction | None:
    """gpt-oss harmony: `<|channel|>commentary to=functions.NAME ...<|message|>{...}<|call|>`."""
    if "to=" not in text:
        return None
    finder = Finder(text)
    found = Found("harmony")
    seen = 0
    header_start = pos = 0
    while (message := finder.find(_H_MESSAGE, pos)) != -1 and not found.full:
        body_start = message + len(_H_MESSAGE)
        ends = [(i, len(t)) for t in _H_STOPS if (i := finder.find(t, body_start)) != -1]
        ends += [(i, 0) for t in _H_NEXT if (i := finder.find(t, body_start)) != -1]
        body_end, skip = min(ends) if ends else (len(text), 0)
        recipient = _recipient(text[header_start:message])
        if recipient is not None:
            seen += 1
            decoded = json_arguments(text[body_start:body_end])
            if isinstance(decoded, str):
                found.error(f"harmony call of '{recipient}': {decoded}")
            else:
                found.call(recipient, decoded, ctx)
        pos = header_start = body_end + skip
    return found.result() if seen else None


def _recipient(header: str) -> str | None:
    """The `to=functions.NAME` recipient of a harmony message header, without `functions.`."""
    pos = 0
    while (at := header.find("to=", pos)) != -1:
        pos = at + 3
        if at and header[at - 1] not in " \t\n>":
            continue
        end = pos
        while end < len(header) and header[end] not in " \t\r\n<":
            end += 1
        name = header[pos:end].removeprefix("functions.")
        if is_tool_name(name):
            return name
    return None


def parse_step3(text: str, ctx: ExtractContext) -> Extraction | None:
    """StepFun Step-3: `<steptml:invoke name="X"><steptml:parameter name="p">v</...>`."""
    found = Found("step3")
    if parse_invokes(text, found, ctx, syntax=InvokeSyntax("steptml:")) == 0:
        return None
    return found.result()


_LFM_START = "<|tool_call_start|>"
_LFM_END = "<|tool_call_end|>"


def parse_lfm2(text: str, ctx: ExtractContext) -> Extraction | None:
    """LFM2: `<|tool_call_start|>[f(a=1)]<|tool_call_end|>` (pythonic or a JSON list)."""
    found = Found("lfm2")
    pos = 0
    while (start := text.find(_LFM_START, pos)) != -1 and not found.full:
        body_start = start + len(_LFM_START)
        end = text.find(_LFM_END, body_start)
        if end == -1:
            found.error("LFM2 tool call is not closed with <|tool_call_end|> (output truncated?)")
            break
        body = text[body_start:end].strip()
        pos = end + len(_LFM_END)
        if body.startswith(("[{", "{")):
            json_list(body, found, ctx, where="LFM2 tool call")
        else:
            add_call_block(found, body, ctx, where="LFM2 tool call")
    return found.result()


FORMATS: list[TextFormat] = [
    TextFormat(
        name="deepseek_v32",
        stage="marker",
        markers=tuple(w[0] for w in _DSML_WRAPPERS),
        parse=parse_deepseek_v32,
        description="DSML <invoke name=...> blocks (DeepSeek V3.2, V4)",
    ),
    TextFormat(
        name="step3",
        stage="marker",
        markers=("<steptml:invoke",),
        parse=parse_step3,
        description='<steptml:invoke name="X"><steptml:parameter ...> (StepFun Step-3)',
    ),
    TextFormat(
        name="deepseek_v3",
        stage="marker",
        markers=_DS_MARKERS,
        parse=parse_deepseek_v3,
        description="tool call tokens + ```json argument block (DeepSeek V3, R1)",
    ),
    TextFormat(
        name="deepseek_v31",
        stage="marker",
        markers=_DS_MARKERS,
        parse=parse_deepseek_v31,
        description="tool call tokens, NAME<sep>{json} (DeepSeek V3.1)",
    ),
    TextFormat(
        name="kimi_k2",
        stage="marker",
        markers=(_KIMI_CALL, "<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"),
        parse=parse_kimi_k2,
        description="<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{} (Kimi K2)",
    ),
    TextFormat(
        name="harmony",
        stage="marker",
        markers=(_H_MESSAGE,),
        parse=parse_harmony,
        description="<|channel|>commentary to=functions.NAME ...<|message|>{...} (gpt-oss)",
    ),
    TextFormat(
        name="lfm2",
        stage="marker",
        markers=(_LFM_START,),
        parse=parse_lfm2,
        description="<|tool_call_start|>[f(a=1)]<|tool_call_end|> (Liquid LFM2)",
    ),
    *_GEMMA_FORMATS,
    *_JSON_TOKEN_FORMATS,
]
