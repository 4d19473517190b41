"""Reasoning blocks are removed before extraction: calls drafted while thinking don't count.

Reasoning models often rehearse a call inside their thinking and then make it (or decide
not to). Only what follows the reasoning is the answer.
"""

from __future__ import annotations

__all__ = ["REASONING_TAGS", "strip_reasoning"]

REASONING_TAGS: tuple[tuple[str, str, str], ...] = (
    ("<think>", "</think>", "think"),  # DeepSeek R1, Qwen3, QwQ, GLM, MiniMax, many more
    ("<thinking>", "</thinking>", "thinking"),
    ("<seed:think>", "</seed:think>", "seed:think"),  # Seed-OSS
    ("[THINK]", "[/THINK]", "THINK"),  # Magistral
    ("<|START_THINKING|>", "<|END_THINKING|>", "_THINKING"),  # Command R7B / A
    ("◁think▷", "◁/think▷", "think"),  # Kimi VL thinking
)
"""Open tag, close tag, and a word in both (searched first: it is cheap to rule out)."""

_HARMONY_ANALYSIS = "<|channel|>analysis"
_HARMONY_ENDS = ("<|end|>",)
_HARMONY_NEXT = ("<|start|>", "<|channel|>")


def _strip_pair(text: str, open_tag: str, close_tag: str) -> str:
    """Remove every `open ... close` block.

    A close tag with no open tag before it ends reasoning that began in the prompt (chat
    templates that open `<think>` themselves); an open tag never closed runs to the end
    (the output was cut off while thinking).
    """
    if open_tag not in text and close_tag not in text:
        return text
    parts: list[str] = []
    pos = 0
    first_close = text.find(close_tag)
    first_open = text.find(open_tag)
    if first_close != -1 and (first_open == -1 or first_close < first_open):
        pos = first_close + len(close_tag)
    while True:
        start = text.find(open_tag, pos)
        if start == -1:
            parts.append(text[pos:])
            break
        parts.append(text[pos:start])
        end = text.find(close_tag, start + len(open_tag))
        if end == -1:
            break
        pos = end + len(close_tag)
    return "".join(parts)


def _strip_harmony_analysis(text: str) -> str:
    """Remove gpt-oss `<|channel|>analysis<|message|>...<|end|>` messages."""
    parts: list[str] = []
    pos = 0
    # Cached next positions keep this linear when a token is missing or rare.
    cache: dict[str, int] = {}

    def after(token: str, where: int) -> int:
        found = cache.get(token, -2)
        if found != -1 and found < where:
            found = cache[token] = text.find(token, where)
        return found

    while True:
        start = text.find(_HARMONY_ANALYSIS, pos)
        if start == -1:
            parts.append(text[pos:])
            return "".join(parts)
        parts.append(text[pos:start])
        body = start + len(_HARMONY_ANALYSIS)
        ends = [(i, len(t)) for t in _HARMONY_ENDS if (i := after(t, body)) != -1]
        ends += [(i, 0) for t in _HARMONY_NEXT if (i := after(t, body)) != -1]
        if not ends:
            return "".join(parts)
        index, length = min(ends)
        pos = index + length


def strip_reasoning(text: str) -> str:
    """Return `text` without reasoning blocks.

    Examples:
        >>> strip_reasoning("<think>maybe f(x)?</think>The answer is 4.")
        'The answer is 4.'
    """
    for open_tag, close_tag, word in REASONING_TAGS:
        if word in text:
            text = _strip_pair(text, open_tag, close_tag)
    if _HARMONY_ANALYSIS in text:
        text = _strip_harmony_analysis(text)
    return text
