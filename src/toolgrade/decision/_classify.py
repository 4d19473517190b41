"""The decision of one reply, of a single case's result, and of a conversation's turn.

Calls decide first: any call read from the reply is `call`, and so is a malformed one
(a parse error stays a parse error, never an abstention). Without a call, the reply's
text goes through the rules of `_rules.py` after its reasoning blocks are removed.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import TurnResult
from toolgrade.decision._kinds import Decision, DecisionVerdict
from toolgrade.decision._rules import SCANNED, text_verdict
from toolgrade.extract import strip_reasoning
from toolgrade.results import CaseResult

__all__ = ["classify_reply", "decision_of", "reply_text", "turn_decision"]

# Reasoning is removed from a bounded tail: a reasoning block opened before it is cut
# with it, and one closed inside it is removed as `strip_reasoning` removes a block
# whose opening tag was in the prompt.
_REASONING_WINDOW = 4 * SCANNED


def classify_reply(
    text: str, *, calls: int, parse_errors: int = 0, prompt: str | None = None
) -> DecisionVerdict:
    """What a model did in one reply: call, clarify, refuse, answer, or unclassified.

    Args:
        text: The reply's text.
        calls: How many calls were read from the reply.
        parse_errors: How many malformed calls extraction reported.
        prompt: The user's message, when known: a reply that mostly repeats it is an
            echo (unclassified), not a question or an answer.

    Examples:
        >>> classify_reply("", calls=1).kind.value
        'call'
        >>> classify_reply("Which file do you mean?", calls=0).rule
        'question_to_user'
        >>> classify_reply("I can't book flights with the tools I have.", calls=0).kind.value
        'refuse'
        >>> classify_reply("打开文件", calls=0).rule
        'abstain_language'
    """
    if calls > 0:
        return DecisionVerdict(Decision.CALL, "calls", f"{calls} call{'s' * (calls != 1)}")
    if parse_errors > 0:
        plural = "s" * (parse_errors != 1)
        return DecisionVerdict(
            Decision.CALL, "malformed_call", f"{parse_errors} parse error{plural}"
        )
    return text_verdict(strip_reasoning(text[-_REASONING_WINDOW:]), prompt=prompt)


def reply_text(raw: JsonValue) -> str:
    """The text of a reply: the output itself, or an assistant message's content.

    The runner reads a turn's final text with it too.
    """
    if isinstance(raw, str):
        return raw
    if isinstance(raw, dict):
        content = raw.get("content")
        return content if isinstance(content, str) else ""
    return ""


def _last_user(prompt: JsonValue) -> str | None:
    """The user's message in a result's prompt (a string, or the last user message)."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        for message in reversed(prompt):
            if isinstance(message, Mapping) and message.get("role") == "user":
                content = message.get("content")
                return content if isinstance(content, str) else None
    return None


def decision_of(result: CaseResult) -> DecisionVerdict:
    """The decision of a single case's reply (a conversation's: of its last turn).

    Examples:
        >>> from toolgrade.results import CaseResult
        >>> r = CaseResult(case_id="c", status="missed_call", score=0.0,
        ...                raw_response={"role": "assistant", "content": "Which branch?"})
        >>> decision_of(r).kind.value
        'clarify'
    """
    if result.conversation is not None and result.conversation.turns:
        return turn_decision(result.conversation.turns[-1])
    return classify_reply(
        reply_text(result.raw_response),
        calls=len(result.actual),
        parse_errors=len(result.extraction_errors),
        prompt=_last_user(result.prompt),
    )


def turn_decision(turn: TurnResult) -> DecisionVerdict:
    """The decision of a conversation's turn: its calls, its final reply, its steps' errors."""
    text = turn.reply
    if text is None:
        text = reply_text(turn.steps[-1].raw_response) if turn.steps else ""
    return classify_reply(
        text,
        calls=len(turn.calls),
        parse_errors=sum(len(s.extraction_errors) for s in turn.steps),
        prompt=turn.user,
    )
