"""The serving verdict of one answer, and of a whole result, from what a run recorded.

Everything needed is kept with every result already: the raw answer (the assistant
message, `tool_calls` and `content` apart), the format its calls were read in, the
extraction problems, `finish_reason`, and the request's failure. Nothing is asked again.

One answer's class, first match wins:

1. no answer (the request failed or timed out) → `request_failed`;
2. prompt mode, or an output that is text by nature → `prompted` (its faults:
   `empty`, `truncated`);
3. structured `tool_calls` a client cannot use → `malformed_call`;
4. calls read only from the message's text, or only a call's beginning
   (`functions.NAME:`) → `calls_in_text` (the format named);
5. calls only in the reasoning field → `calls_in_reasoning`;
6. cut at the token limit → `truncated`; nothing at all → `empty`;
7. otherwise `structured` (calls as `tool_calls`) or `text_only` (no call).

A result's class is its first faulty answer's (a conversation's steps in order), else
`structured` when any answer carried calls, else its one clean class.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonValue
from toolgrade.extract import ExtractionProblem, extract_calls, is_trajectory
from toolgrade.results import CaseResult
from toolgrade.serving._classes import ServingClass

__all__ = [
    "CALL_PREFIX",
    "REASONING_FIELDS",
    "STRUCTURED_FORMATS",
    "Answer",
    "ServingVerdict",
    "classify_answer",
    "delivered",
    "serving_verdict",
]

STRUCTURED_FORMATS = frozenset(("openai", "openai_function_call", "ollama"))
"""The formats a server already parsed (`extract`'s structured stage)."""

REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking")
"""Where servers put a reasoning model's thoughts (vLLM and DeepSeek; vLLM's newer name
and LM Studio; Ollama)."""

CALL_PREFIX = "call_prefix"
"""The format named when only a call's beginning came as text (`functions.NAME:`)."""

# llama-cpp-python's `chatml-function-calling` handler with `tool_choice: auto` (0.3.36):
# when the model starts a message, the grammar it then applies allows only a function's
# name or the end, so the message is `functions.read_file:` and the call's arguments
# never come (83 of 85 cases in `make e2e`; tests/data/real/qwen2.5-coder-0.5b-chatml).
_PREFIX_ONLY = re.compile(r"\s*functions\.[A-Za-z_][\w.-]{0,127}:\s*")
_LENGTH = frozenset(("length", "max_tokens"))
_SHOWN = 120


@dataclass(frozen=True, slots=True)
class Answer:
    """What a run kept of one answer (a single case's, or one step of a conversation)."""

    raw: JsonValue
    """The raw output: an assistant message, a response, text or a message list."""
    extraction_format: str | None = None
    """The format the calls were read in (`none`: no call)."""
    errors: Sequence[ExtractionProblem] = ()
    """The extraction problems."""
    finish_reason: str | None = None
    """Why the server stopped."""
    failure: str | None = None
    """The request's failure, when no answer came."""
    calls: int = 0
    """How many calls were read from it."""


@dataclass(frozen=True, slots=True)
class ServingVerdict:
    """How an answer (or a result) reached the client, and why, for people.

    Examples:
        >>> v = classify_answer(Answer({"role": "assistant", "content": ""}))
        >>> v.kind.value, v.detail
        ('empty', 'no call and no text came back')
    """

    kind: ServingClass
    """The class."""
    detail: str = ""
    """What was found (the format, the malformed call, the failure)."""
    fmt: str | None = None
    """For `calls_in_text` and `calls_in_reasoning`: the format the calls were in."""
    where: str = ""
    """In a conversation: the answer at fault, e.g. `turn 2, step 1` (1-based)."""

    def to_dict(self) -> dict[str, str]:
        """The verdict as JSON (empty parts left out)."""
        data = {"class": self.kind.value, "detail": self.detail}
        if self.fmt:
            data["format"] = self.fmt
        if self.where:
            data["where"] = self.where
        return data


def _message(raw: Mapping[str, JsonValue]) -> Mapping[str, JsonValue] | None:
    """The assistant message of a message or a whole response (OpenAI or Ollama)."""
    choices = raw.get("choices")
    if isinstance(choices, list):
        first = choices[0] if choices else None
        message = first.get("message") if isinstance(first, dict) else None
        return message if isinstance(message, dict) else None
    message = raw.get("message")
    if isinstance(message, dict):
        return message
    if {"content", "tool_calls", "function_call", "role"} & raw.keys():
        return raw
    return None


def _text(message: Mapping[str, JsonValue]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "".join(p for p in parts if isinstance(p, str))
    return ""


def _reasoning(message: Mapping[str, JsonValue]) -> str:
    for key in REASONING_FIELDS:
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _shown(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN else flat[: _SHOWN - 1] + "…"


def _unusable(message: Mapping[str, JsonValue], answer: Answer) -> str | None:
    """Why a message's structured calls cannot be used by a client, or None."""
    if answer.errors:
        return str(answer.errors[0].message)
    calls = message.get("tool_calls")
    seen: set[str] = set()
    for item in calls if isinstance(calls, list) else []:
        ident = item.get("id") if isinstance(item, dict) else None
        if isinstance(ident, str) and ident:
            if ident in seen:
                return f"two tool calls share the id {ident!r}: their results cannot be told apart"
            seen.add(ident)
    return None


def classify_answer(answer: Answer, *, native: bool = True) -> ServingVerdict:
    """The serving class of one answer.

    Args:
        answer: what the run kept of it.
        native: whether tools were sent in the request (`--mode native`); in prompt
            mode calls are read from text by design.

    Examples:
        >>> fenced = {"role": "assistant", "content": '{"name": "f", "arguments": {}}'}
        >>> classify_answer(Answer(fenced, "json", calls=1)).kind.value
        'calls_in_text'
        >>> classify_answer(Answer(fenced, "json", calls=1), native=False).kind.value
        'prompted'
    """
    if answer.failure is not None:
        return ServingVerdict(ServingClass.REQUEST_FAILED, _shown(answer.failure))
    cut = answer.finish_reason in _LENGTH
    raw = answer.raw
    message = _message(raw) if isinstance(raw, dict) else None
    if is_trajectory(raw):
        kind = ServingClass.STRUCTURED if answer.calls else ServingClass.TEXT_ONLY
        return ServingVerdict(kind)
    if not native or message is None:
        text = raw if isinstance(raw, str) else _text(message or {})
        if cut:
            return ServingVerdict(ServingClass.TRUNCATED, "cut at the token limit")
        if not text.strip() and not answer.calls:
            return ServingVerdict(ServingClass.EMPTY, "no text came back")
        return ServingVerdict(ServingClass.PROMPTED)
    fmt = answer.extraction_format
    structured = fmt in STRUCTURED_FORMATS or bool(
        message.get("tool_calls") or message.get("function_call")
    )
    if structured:
        why = _unusable(message, answer)
        if why is not None:
            also = ", cut at the token limit" if cut else ""
            return ServingVerdict(ServingClass.MALFORMED_CALL, why + also)
        if cut:
            return ServingVerdict(ServingClass.TRUNCATED, "calls came, cut at the token limit")
        return ServingVerdict(ServingClass.STRUCTURED)
    text = _text(message)
    if answer.calls or answer.errors:
        found = f"{answer.calls} call(s) as {fmt}" if answer.calls else "an unreadable call"
        also = ", cut at the token limit" if cut else ""
        return ServingVerdict(
            ServingClass.CALLS_IN_TEXT, f"{found} in the text, none in tool_calls{also}", fmt
        )
    if _PREFIX_ONLY.fullmatch(text):
        return ServingVerdict(
            ServingClass.CALLS_IN_TEXT,
            f"only a call's beginning came, as text ({text.strip()!r}): its arguments were lost",
            CALL_PREFIX,
        )
    thought = _reasoning(message)
    if thought:
        hidden = extract_calls(thought)
        if hidden.calls:
            return ServingVerdict(
                ServingClass.CALLS_IN_REASONING,
                f"{len(hidden.calls)} call(s) as {hidden.format} in the reasoning only",
                hidden.format,
            )
    if cut:
        return ServingVerdict(ServingClass.TRUNCATED, "cut at the token limit")
    if not text.strip():
        return ServingVerdict(ServingClass.EMPTY, "no call and no text came back")
    return ServingVerdict(ServingClass.TEXT_ONLY)


def _answers(result: CaseResult) -> Iterable[tuple[str, Answer]]:
    conversation = result.conversation
    if conversation is None:
        failure = result.error if not result.status.scored else None
        yield (
            "",
            Answer(
                result.raw_response,
                result.extraction_format,
                result.extraction_errors,
                result.finish_reason,
                failure,
                len(result.actual),
            ),
        )
        return
    for turn in conversation.turns:
        for index, step in enumerate(turn.steps):
            yield (
                f"turn {turn.index + 1}, step {index + 1}",
                Answer(
                    step.raw_response,
                    step.extraction_format,
                    step.extraction_errors,
                    step.finish_reason,
                    step.error,
                    len(step.calls),
                ),
            )


def serving_verdict(result: CaseResult, *, native: bool = True) -> ServingVerdict:
    """The serving verdict of a result: its first faulty answer's, else its clean class.

    A result that failed before any answer (an `error` or `timeout` without steps) is
    `request_failed`.
    """
    clean: ServingVerdict | None = None
    seen = False
    for where, answer in _answers(result):
        seen = True
        verdict = classify_answer(answer, native=native)
        if not verdict.kind.clean:
            return ServingVerdict(verdict.kind, verdict.detail, verdict.fmt, where)
        if clean is None or verdict.kind is ServingClass.STRUCTURED:
            clean = verdict
    if not result.status.scored and (not seen or clean is not None):
        why = result.error or f"the case ended with status {result.status.value}"
        return ServingVerdict(ServingClass.REQUEST_FAILED, _shown(why))
    return clean or ServingVerdict(ServingClass.TEXT_ONLY)


def delivered(result: CaseResult, *, native: bool = True) -> bool:
    """Whether every call the model made reached the client as structured `tool_calls`.

    A result passes *as served* when it passes and this holds. In prompt mode (and for
    outputs that are text by nature) the client reads the text, so it always holds.
    """
    if not native:
        return True
    for _, answer in _answers(result):
        if not answer.calls and not answer.errors:
            continue
        if is_trajectory(answer.raw) or not isinstance(answer.raw, dict):
            continue
        if answer.extraction_format not in STRUCTURED_FORMATS or answer.errors:
            return False
    return True
