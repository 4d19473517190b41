"""A judged conversation as a result: the `CaseResult` carrying its verdict and record.

`decided_record` is the record of a conversation a profile's conversation judge decided.
"""

from __future__ import annotations

from toolgrade._core.transcript import FAILURE_CAUSES, CheckResult, ConversationRecord, FirstFailure
from toolgrade._core.vocab import Rubric
from toolgrade.results import CaseResult, Status, Verdict
from toolgrade.suite import Case

__all__ = ["conversation_result", "decided_record"]

_DEFAULT_RUBRIC: Rubric = "partial"
_UNSCORED = frozenset(s for s in Status if not s.scored)
_CAUSES = frozenset(FAILURE_CAUSES)


def conversation_result(
    conversation: Case,
    verdict: Verdict,
    *,
    rubric: Rubric | None = None,
    repeat: int = 0,
    error: str | None = None,
    latency_ms: float | None = None,
) -> CaseResult:
    """The `CaseResult` of a judged conversation, with its labels and record.

    Args:
        conversation: the conversation.
        verdict: its verdict (`judge_conversation`), with its record.
        rubric: the rubric; None: the conversation's, then the verdict's, then `partial`.
        repeat: the repetition index.
        error: what went wrong, for a conversation ended by a failed request; None:
            the first failure's message when it is a timeout or an error.
        latency_ms: the model's time; None: the sum over the steps, when known.

    Returns:
        The result: `expected` holds the reference's calls, `actual` every call made,
        `conversation` the record; raw outputs stay in the steps.

    Raises:
        ValueError: the verdict has no record.
    """
    record = verdict.record
    if record is None:
        raise ValueError("a conversation's verdict carries its record")
    first = record.first_failure
    if error is None and first is not None and first.cause in _UNSCORED:
        error = first.message
    steps = [s for t in record.turns for s in t.steps]
    if latency_ms is None:
        known = [s.latency_ms for s in steps if s.latency_ms is not None]
        latency_ms = sum(known) if known else None
    reference = conversation.expected
    source = reference or tuple(c for t in conversation.turns for c in t.expected or ())
    fmt = next(
        (s.extraction_format for s in steps if s.extraction_format not in (None, "none")), None
    )
    return CaseResult(
        case_id=conversation.id,
        status=verdict.status,
        score=verdict.score,
        rubric=rubric or conversation.rubric or verdict.rubric or _DEFAULT_RUBRIC,
        expected=reference,
        actual=record.calls,
        primary_tools=tuple(dict.fromkeys(c.name for c in source)),
        category=conversation.category,
        difficulty=conversation.difficulty,
        tags=conversation.tags,
        prompt=conversation.prompt_json(),
        extraction_format=fmt,
        extraction_errors=tuple(e for s in steps for e in s.extraction_errors),
        raw_response=None,
        latency_ms=latency_ms,
        error=error,
        repeat=repeat,
        conversation=record,
    )


def decided_record(
    record: ConversationRecord, verdict: Verdict, profile: str
) -> tuple[Status, ConversationRecord]:
    """A record decided by a profile's verdict, and the status.

    The record's checks are kept but no longer decide; one check named after the
    profile holds the verdict, which also gives the first failure (a status that is
    not a failure cause fails as an `error`).
    """
    passed = verdict.status == Status.CORRECT
    told = verdict.record.first_failure if verdict.record is not None else None
    message = told.message if told is not None else verdict.message or ""
    check = CheckResult(name=profile, passed=passed, message=message or None, deciding=True)
    checks = (*(c.model_copy(update={"deciding": False}) for c in record.checks), check)
    first = None
    if not passed:
        first = FirstFailure(
            cause=verdict.status if verdict.status in _CAUSES else Status.ERROR,
            message=message or f"{profile} failed",
            turn=told.turn if told is not None else None,
            check=profile,
        )
    record = record.model_copy(update={"checks": checks, "passed": passed, "first_failure": first})
    return (Status.CORRECT if first is None else first.cause), record
