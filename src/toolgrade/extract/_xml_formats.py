"""XML-tag tool-call formats: Qwen3-Coder, Seed-OSS, GLM, Hunyuan, Claude-style, MiniMax, OLMo 3.

Every parser scans with `str.find`; the two regular expressions are single bounded
character classes between literals, so they cannot backtrack. A parser returns None when
the output holds nothing of its format. Argument values are bare text typed by
the tool's schema (see `_xml_common.typed_value`).
"""

from __future__ import annotations

import re

from toolgrade._core.json_data import JsonObject
from toolgrade.extract._build import Finder, Found, is_tool_name
from toolgrade.extract._common import NumberTooLarge
from toolgrade.extract._pythonic import add_call_block
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat
from toolgrade.extract._xml_common import (
    InvokeSyntax,
    param_schema,
    trim_newlines,
    typed_value,
    wrapped_invokes,
)

__all__ = [
    "FORMATS",
    "parse_anthropic",
    "parse_glm45",
    "parse_hunyuan",
    "parse_minimax_m2",
    "parse_olmo3",
    "parse_qwen3_coder",
    "parse_seed_oss",
]

_FUNCTION = "<function="
_FUNCTION_END = "</function>"
_PARAM = "<parameter="
_PARAM_END = "</parameter>"
_SEED_OPEN = "<seed:tool_call>"
_SEED_CLOSE = "</seed:tool_call>"
# What may follow a real `</parameter>`; one followed by anything else is text inside a
# value (code that itself contains the tag).
_AFTER_PARAM = (_PARAM, _FUNCTION_END, "</tool_call>", _SEED_CLOSE)
_CALL_ENDS = ("</tool_call>", _SEED_CLOSE)
_BODY_STARTS = (_PARAM, _FUNCTION_END, *_CALL_ENDS)
_HY_SEP = "<tool_sep>"
_HY_SUFFIX = re.compile(r"<(/?)(tool_calls|tool_call|tool_sep|arg_key|arg_value):[^<>\s]{1,40}>")
_NAME_ENDS = ("\n", "<arg_key>", _HY_SEP)
_FUNCTION_OPENERS = ("<tool_call>", _SEED_OPEN, _FUNCTION_END)
_SPACE = " \t\r\n"
_MAX_NAME_SCAN = 300
_MAX_PARAMS = 1024
"""Parameters of one call read at most: more is hostile text (each costs a few us)."""
_FUNCTION_TAG = re.compile(r"<function=([^\s<>{}()\[\]\"'`,;=]{1,256})>")


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos


def _function_calls(finder: Finder, found: Found, ctx: ExtractContext) -> int:
    """Read every `<function=NAME>...</function>`; return how many were seen."""
    text = finder.text
    seen = 0
    pos = 0
    # A name is what `is_tool_name` accepts; `<function={{ name }}>` in prose never matches.
    wrapped = "<tool_call>" in text or _SEED_OPEN in text
    while (match := _FUNCTION_TAG.search(text, pos)) is not None and not found.full:
        body = match.end()
        pos = _skip_space(text, body)
        if pos < len(text) and not text.startswith(_BODY_STARTS, pos):
            continue  # `<function=name>` quoted in prose, followed by more prose
        if wrapped and not _after_tag(text, match.start()):
            continue  # inside the JSON of a Hermes call, or prose next to real calls
        seen += 1
        if all(finder.find(end, body) == -1 for end in (_FUNCTION_END, *_CALL_ENDS)):
            found.error(f"function '{match.group(1)}' is not closed (output truncated?)")
            break
        pos = _function_body(finder, body, name=match.group(1), found=found, ctx=ctx)
        if pos == -1:
            break
    return seen


def _after_tag(text: str, pos: int) -> bool:
    """True when only whitespace separates `pos` from a preceding call tag."""
    while pos > 0 and text[pos - 1] in _SPACE:
        pos -= 1
    return text.endswith(_FUNCTION_OPENERS, 0, pos)


def _function_body(
    finder: Finder, pos: int, *, name: str, found: Found, ctx: ExtractContext
) -> int:
    """Read parameters up to `</function>`; return the position after it, or -1."""
    text = finder.text
    arguments: JsonObject = {}
    read = 0
    while True:
        pos = _skip_space(text, pos)
        if text.startswith(_FUNCTION_END, pos):
            found.call(name, arguments, ctx)
            return pos + len(_FUNCTION_END)
        if text.startswith(_CALL_ENDS, pos):
            found.call(name, arguments, ctx)  # `</function>` left out before `</tool_call>`
            return pos
        if not text.startswith(_PARAM, pos):
            found.error(f"function '{name}' is not closed with </function> (output truncated?)")
            return -1
        read += 1
        if read > _MAX_PARAMS:
            found.error(f"function '{name}' has more than {_MAX_PARAMS} parameters")
            close = finder.find(_FUNCTION_END, pos)
            return -1 if close == -1 else close + len(_FUNCTION_END)
        key_end = text.find(">", pos)
        if key_end == -1:
            found.error(f"parameter tag of '{name}' is not closed")
            return -1
        key = text[pos + len(_PARAM) : key_end].strip()
        value_end, pos = _parameter_end(finder, key_end + 1)
        if value_end == -1:
            found.error(f"parameter '{key}' of '{name}' is not closed (output truncated?)")
            return -1
        known, schema = param_schema(ctx, name, key)
        raw = trim_newlines(text[key_end + 1 : value_end])
        try:
            arguments[key] = typed_value(raw, known=known, schema=schema)
        except NumberTooLarge as exc:
            found.error(f"parameter '{key}' of '{name}': {exc}")
            close = finder.find(_FUNCTION_END, pos)
            return -1 if close == -1 else close + len(_FUNCTION_END)


def _parameter_end(finder: Finder, start: int) -> tuple[int, int]:
    """End of a parameter value and where parsing resumes; (-1, -1) when it never ends."""
    text = finder.text
    close = finder.find(_REAL_PARAM_END, start)
    if close != -1:
        return close, _skip_space(text, close + len(_PARAM_END))
    # Models sometimes leave out `</parameter>`; the next tag then ends the value.
    ends = [i for tag in ("\n" + _PARAM, _FUNCTION_END) if (i := finder.find(tag, start)) != -1]
    if not ends:
        return -1, -1
    return min(ends), min(ends)


class _RealParamEnds(Finder):
    """A `Finder` whose `_REAL_PARAM_END` is the first `</parameter>` that ends a value.

    Whether a `</parameter>` ends a value depends only on what follows it, so the answer
    is remembered like any other: each parameter used to walk every `</parameter>` that
    is text inside a value again, which was quadratic (2,000 parameters followed by
    2,000 `</parameter>x` took 1.8 s).
    """

    __slots__ = ()

    def find(self, token: str, pos: int) -> int:
        if token != _REAL_PARAM_END:
            return super().find(token, pos)
        memo = self._memo.get(token)
        if memo is not None and memo[0] <= pos and (memo[1] == -1 or memo[1] >= pos):
            return memo[1]
        text = self.text
        close = start = pos
        while (close := super().find(_PARAM_END, start)) != -1:
            after = _skip_space(text, close + len(_PARAM_END))
            if after >= len(text) or text.startswith(_AFTER_PARAM, after):
                break
            start = close + len(_PARAM_END)
        self._memo[token] = (pos, close)
        return close


_REAL_PARAM_END = "\0real </parameter>"
"""The memo key under which `_RealParamEnds` answers (never searched for in the text)."""


def parse_qwen3_coder(text: str, ctx: ExtractContext) -> Extraction | None:
    """`<tool_call><function=NAME><parameter=P>value</parameter></function></tool_call>`."""
    if _FUNCTION not in text or _SEED_OPEN in text:
        return None
    found = Found("qwen3_coder")
    if _function_calls(_RealParamEnds(text), found, ctx) == 0:
        return None
    return found.result()


def parse_seed_oss(text: str, ctx: ExtractContext) -> Extraction | None:
    """`<seed:tool_call><function=NAME><parameter=P>v</parameter></function></seed:tool_call>`."""
    if _SEED_OPEN not in text:
        return None
    found = Found("seed_oss")
    if _function_calls(_RealParamEnds(text), found, ctx) == 0:
        found.error("<seed:tool_call> without a <function=NAME> call")
    return found.result()


def parse_glm45(text: str, ctx: ExtractContext) -> Extraction | None:
    r"""`<tool_call>NAME\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>`."""
    if _HY_SEP in text:
        return None  # Hunyuan's variant of the same tags
    return _arg_pair_calls(text, ctx, fmt="glm45")


def parse_hunyuan(text: str, ctx: ExtractContext) -> Extraction | None:
    r"""`<tool_calls><tool_call>NAME<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value>...`."""
    if _HY_SEP not in text:
        text = _HY_SUFFIX.sub(r"<\1\2>", text)  # `<tool_sep:opensource>` -> `<tool_sep>`
        if _HY_SEP not in text:
            return None
    return _arg_pair_calls(text, ctx, fmt="hunyuan")


def _arg_pair_calls(text: str, ctx: ExtractContext, *, fmt: str) -> Extraction | None:
    """`<tool_call>NAME` (then a newline, `<tool_sep>` or `<arg_key>`) and key/value pairs."""
    found = Found(fmt)
    finder = Finder(text)
    seen = 0
    pos = 0
    while (start := finder.find("<tool_call>", pos)) != -1 and not found.full:
        inner_start = start + len("<tool_call>")
        end = finder.find("</tool_call>", inner_start)
        stop = end if end != -1 else len(text)
        pos = inner_start if end == -1 else end + len("</tool_call>")
        # The name ends at the first newline, <tool_sep> or <arg_key>; look only a little
        # way ahead.
        head = text[inner_start : min(stop, inner_start + _MAX_NAME_SCAN)]
        cut = min(i for i in (*(head.find(t) for t in _NAME_ENDS), len(head)) if i != -1)
        name = head[:cut].strip()
        if not is_tool_name(name) or name.startswith(("{", "[")):
            if end == -1:
                break  # nothing after this is closed either
            continue  # Hermes JSON or another format inside the same tag
        seen += 1
        if end == -1:
            found.error(f"call of '{name}' is not closed with </tool_call> (output truncated?)")
            break
        body_start = inner_start + cut
        if text.startswith(_HY_SEP, body_start):
            body_start += len(_HY_SEP)
        _glm_arguments(text[body_start:end], name=name, found=found, ctx=ctx)
    return found.result() if seen else None


def _glm_arguments(body: str, *, name: str, found: Found, ctx: ExtractContext) -> None:
    arguments: JsonObject = {}
    pos = 0
    while (pos := _skip_space(body, pos)) < len(body):
        key, pos = _tag_text(body, pos, "arg_key")
        if key is None:
            found.error(f"call of '{name}': expected <arg_key> at char {pos}")
            return
        pos = _skip_space(body, pos)
        raw, pos = _tag_text(body, pos, "arg_value")
        if raw is None:
            found.error(f"call of '{name}': <arg_key>{key}</arg_key> has no <arg_value>")
            return
        key = key.strip()
        known, schema = param_schema(ctx, name, key)
        try:
            arguments[key] = typed_value(raw, known=known, schema=schema)
        except NumberTooLarge as exc:
            found.error(f"call of '{name}': argument '{key}': {exc}")
            return
    found.call(name, arguments, ctx)


def _tag_text(body: str, pos: int, tag: str) -> tuple[str | None, int]:
    """Text of `<tag>...</tag>` starting exactly at `pos`, and the position after it."""
    opening, closing = f"<{tag}>", f"</{tag}>"
    if not body.startswith(opening, pos):
        return None, pos
    end = body.find(closing, pos + len(opening))
    if end == -1:
        return None, pos
    return body[pos + len(opening) : end], end + len(closing)


# Claude's own prompt format puts every tag in a namespace; prompted open models mostly
# drop it. Built from parts so the namespaced tag names stay visible in the source.
_NS = "antml" + ":"
_ANTHROPIC = (
    ("<function_calls>", "</function_calls>", InvokeSyntax("")),
    (f"<{_NS}function_calls>", f"</{_NS}function_calls>", InvokeSyntax(_NS)),
)
_MINIMAX = (("<minimax:tool_call>", "</minimax:tool_call>", InvokeSyntax("")),)


def parse_anthropic(text: str, ctx: ExtractContext) -> Extraction | None:
    """`<function_calls><invoke name="X"><parameter name="p">v</parameter></invoke>...`."""
    return wrapped_invokes(text, ctx, fmt="anthropic_xml", wrappers=_ANTHROPIC)


def parse_minimax_m2(text: str, ctx: ExtractContext) -> Extraction | None:
    """`<minimax:tool_call><invoke name="X"><parameter name="p">v</parameter>...`."""
    return wrapped_invokes(text, ctx, fmt="minimax_m2", wrappers=_MINIMAX)


def parse_olmo3(text: str, ctx: ExtractContext) -> Extraction | None:
    r"""`<function_calls>f(a=1)\ng(b="x")</function_calls>`: pythonic calls, one per line."""
    found = Found("olmo3")
    pos = 0
    while (start := text.find("<function_calls>", pos)) != -1 and not found.full:
        body_start = start + len("<function_calls>")
        end = text.find("</function_calls>", body_start)
        body = text[body_start : end if end != -1 else len(text)]
        if "<invoke" in body:
            return None  # Anthropic-style invoke blocks, not pythonic
        if body.strip():
            add_call_block(found, body, ctx, where="function_calls block")
        if end == -1:
            break
        pos = end + len("</function_calls>")
    return found.result()


FORMATS: list[TextFormat] = [
    TextFormat(
        name="seed_oss",
        stage="marker",
        markers=(_SEED_OPEN,),
        parse=parse_seed_oss,
        description="<seed:tool_call><function=NAME><parameter=P>... (ByteDance Seed-OSS)",
    ),
    TextFormat(
        name="qwen3_coder",
        stage="marker",
        markers=(_FUNCTION,),
        parse=parse_qwen3_coder,
        description="<tool_call><function=NAME><parameter=P>... (Qwen3-Coder, Qwen3-Next)",
    ),
    TextFormat(
        name="hunyuan",
        stage="marker",
        markers=("<tool_sep",),
        parse=parse_hunyuan,
        description="<tool_call>NAME<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value> (Hy3)",
    ),
    TextFormat(
        name="glm45",
        stage="marker",
        markers=("<tool_call>",),
        parse=parse_glm45,
        description="<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value> (GLM-4.5/4.6/4.7)",
    ),
    TextFormat(
        name="minimax_m2",
        stage="marker",
        markers=("<minimax:tool_call>",),
        parse=parse_minimax_m2,
        description='<minimax:tool_call><invoke name="X"><parameter name="p">... (MiniMax-M2)',
    ),
    TextFormat(
        name="anthropic_xml",
        stage="marker",
        markers=("<function_calls>", f"<{_NS}function_calls>"),
        parse=parse_anthropic,
        description='<function_calls><invoke name="X"><parameter name="p">... (Claude-style)',
    ),
    TextFormat(
        name="olmo3",
        stage="marker",
        markers=("<function_calls>",),
        parse=parse_olmo3,
        description="<function_calls>f(a=1)\\ng(b=2)</function_calls> pythonic lines (OLMo 3)",
    ),
]
