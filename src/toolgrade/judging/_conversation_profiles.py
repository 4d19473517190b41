"""Conversation profiles: a judge profile that decides whole conversations of its kind.

`judge_conversation(..., profile=name)` asks `CONVERSATION_PROFILES[name]` first; the
function returns None for a conversation that is not of its kind (which is then judged
turn by turn as usual), else its `Verdict`: `correct`, or the failure cause with, in
its record's `first_failure`, the turn that failed and why (or only a `message`). The
built-in `bfcl` entry (`toolgrade.bfcl._mt_checker:judge_bfcl_conversation`, imported
on first use) gives BFCL's multi-turn check on conversations imported from BFCL. Plug-ins add theirs
through the `toolgrade.conversation_profiles` entry-point group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from toolgrade._core.registry import Registry
from toolgrade._core.transcript import FAILURE_CAUSES, CheckResult, ConversationRecord, FirstFailure
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import Status

if TYPE_CHECKING:
    from toolgrade.environments import TurnRun
    from toolgrade.suite import Case, Suite

__all__ = [
    "CONVERSATION_PROFILES",
    "ConversationProfileFn",
    "decided_record",
]

_CAUSES = frozenset(FAILURE_CAUSES)


class ConversationProfileFn(Protocol):
    """Judges a whole conversation, or returns None when it is not of the profile's kind."""

    def __call__(
        self,
        suite: Suite,
        conversation: Case,
        runs: Sequence[TurnRun],
        /,
        *,
        prompt_mode: bool,
    ) -> Verdict | None:
        """The verdict (`prompt_mode`: the run described tools in the prompt)."""
        ...


CONVERSATION_PROFILES: Registry[ConversationProfileFn] = Registry(
    "conversation profile", "toolgrade.conversation_profiles"
)
"""Profile name -> the function judging whole conversations under that profile."""
CONVERSATION_PROFILES.register("bfcl", "toolgrade.bfcl._mt_checker:judge_bfcl_conversation")


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
