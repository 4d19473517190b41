"""The rules over a reply's text, in order; each returns a verdict or passes.

Only simple, linear patterns and substring searches run on the text, and only on its
last `SCANNED` characters.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from toolgrade.decision._kinds import Decision, DecisionVerdict
from toolgrade.decision._language import detect_language, words
from toolgrade.decision._phrases import CANNOT, DETAIL_REQUESTS, OFFERS, QUESTION_OPENERS

__all__ = ["SCANNED", "text_verdict"]

SCANNED = 4000
"""How many characters of a reply (its end) the rules read."""

_EVIDENCE = 80
# A call written as text that no extractor read: a call's beginning left by a server's
# grammar (`functions.NAME:`), a call tag, or a JSON object opening with a name and its
# arguments.
_CALL_TEXT = re.compile(
    r"(?:functions\.[A-Za-z_][\w.-]{0,127}:|<tool_call>|\[TOOL_CALLS\]|<\|python_tag\|>"
    r'|<function[=>]|\{\s{0,8}"name"\s{0,8}:\s{0,8}"[^"\n]{1,128}"\s{0,8},\s{0,8}'
    r'"(?:arguments|parameters)")'
)
_TOOL_RESULT = ("<tool_response>", '{"error"', "<|tool_response|>", "[tool_results]")
_FENCE = re.compile(r"```[^\n]{0,40}\n")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s+|$)")
_GRAM = 4
# A system prompt's opening at a sentence's start: a reply holding one repeats the
# instructions it was given.
_SYSTEM_OPENING = re.compile(r"(?:^|[.!?:;][^\s]{0,12}\s+)you are an? ")
_ECHO_SHARE = 0.6
_VERBATIM_SHARE = 0.9
_ECHO_MIN_WORDS = 6
_DISTINCT_SHARE = 0.5
_REPEATED_MIN_WORDS = 20


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EVIDENCE else text[: _EVIDENCE - 1] + "…"


def _verdict(kind: Decision, rule: str, evidence: str) -> DecisionVerdict:
    return DecisionVerdict(kind, rule, _clip(evidence))


def _unclassified(rule: str, evidence: str) -> DecisionVerdict:
    return _verdict(Decision.UNCLASSIFIED, rule, evidence)


def _prose(text: str) -> str:
    """The text without fenced code blocks (an unclosed fence runs to the end)."""
    parts: list[str] = []
    pos = 0
    while (opening := _FENCE.search(text, pos)) is not None:
        parts.append(text[pos : opening.start()])
        end = text.find("```", opening.end())
        if end == -1:
            return "".join(parts)
        pos = end + 3
    parts.append(text[pos:])
    return "".join(parts)


def _grams(tokens: Sequence[str]) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + _GRAM]) for i in range(len(tokens) - _GRAM + 1)]


def _echoed(tokens: Sequence[str], prompt: str | None) -> float:
    """The share of the reply's word 4-grams found in the prompt (0 without one)."""
    if not prompt or len(tokens) < _ECHO_MIN_WORDS:
        return 0.0
    grams = _grams(tokens)
    seen = set(_grams(words(prompt[-SCANNED:])))
    return sum(1 for g in grams if g in seen) / len(grams)


def _repeated(tokens: Sequence[str]) -> str | None:
    """The phrase a long reply keeps repeating (a model in a loop), if any.

    In prose nearly every run of four words is new; in a loop most come back.
    """
    if len(tokens) < _REPEATED_MIN_WORDS:
        return None
    grams = Counter(_grams(tokens))
    if len(grams) / sum(grams.values()) > _DISTINCT_SHARE:
        return None
    return " ".join(grams.most_common(1)[0][0])


def _found(text: str, phrases: Sequence[str]) -> str | None:
    return next((p for p in phrases if p in text), None)


def _question(prose: str, language: str) -> str | None:
    """The last sentence, when it is a question to the user (not an offer)."""
    stripped = prose.rstrip()
    if not stripped.endswith("?"):
        return None
    body = stripped.rstrip("? ")
    ends = [m.end() for m in _SENTENCE_END.finditer(body)]
    last = body[ends[-1] :] if ends else body
    last = last.strip().lstrip("¿¡*-# ").lower()
    first = words(last)[:1]
    if not first or first[0] not in QUESTION_OPENERS[language]:
        return None
    if last.startswith(OFFERS[language]):
        return None
    return last + "?"


def _signals(lowered: str, prose: str, language: str) -> DecisionVerdict:
    """Clarify, refuse, both (conflict) or neither (an answer)."""
    asks = _found(lowered, DETAIL_REQUESTS[language])
    rule = "detail_request"
    if asks is None:
        asks, rule = _question(prose, language), "question_to_user"
    cannot = _found(lowered, CANNOT[language])
    if asks and cannot:
        return _unclassified("conflict", f"asks: {asks}; cannot: {cannot}")
    if asks:
        return _verdict(Decision.CLARIFY, rule, asks)
    if cannot:
        return _verdict(Decision.REFUSE, "cannot_with_tools", cannot)
    return _verdict(Decision.ANSWER, "answer", prose.strip())


def text_verdict(text: str, *, prompt: str | None = None) -> DecisionVerdict:
    """The decision in a reply's text (reasoning already removed), by the rules in order."""
    text = text[-SCANNED:].strip()
    if not text:
        return _unclassified("empty", "")
    if (call := _CALL_TEXT.search(text[:200])) is not None:
        return _verdict(Decision.CALL, "call_text", call.group(0))
    if text.startswith(_TOOL_RESULT):
        return _unclassified("echo_tool_result", text)
    prose = _prose(text).strip()
    if not prose or prose.startswith(("{", "[")) or not any(c.isalpha() for c in prose):
        return _unclassified("code_only", text)
    tokens = words(prose)
    if (looped := _repeated(tokens)) is not None:
        return _unclassified("repetition", looped)
    lowered = prose.lower().replace("\u2019", "'")
    if (system := _SYSTEM_OPENING.search(lowered)) is not None:
        return _unclassified("echo_prompt", prose[system.start() :])
    share = _echoed(tokens, prompt)
    if share >= _VERBATIM_SHARE:
        return _unclassified("echo_prompt", prose)
    language = detect_language(prose, tokens)
    if language is None:
        return _unclassified("abstain_language", prose)
    verdict = _signals(lowered, prose, language)
    if verdict.kind is Decision.CLARIFY and share >= _ECHO_SHARE:
        # The user's own question asked back: an echo, not a request for a detail.
        return _unclassified("echo_prompt", prose)
    if verdict.kind is Decision.ANSWER and len(tokens) < 2:
        return _unclassified("too_short", prose)
    return verdict
