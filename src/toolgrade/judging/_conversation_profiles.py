"""Conversation profiles: a judge profile that decides whole conversations of its kind.

`judge_conversation(..., profile=name)` asks `CONVERSATION_PROFILES[name]` first; the
function returns None for a conversation that is not of its kind (which is then judged
turn by turn as usual), else its outcome. The built-in `bfcl` entry
(`toolgrade.bfcl._mt_checker:judge_bfcl_conversation`, imported on first use) gives
BFCL's multi-turn verdict on conversations imported from BFCL. Plug-ins add theirs
through the `toolgrade.conversation_profiles` entry-point group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, get_args

from toolgrade._core.registry import Registry
from toolgrade._core.transcript import CheckResult, ConversationRecord, FailureCause, FirstFailure
from toolgrade._core.vocab import Status

if TYPE_CHECKING:
    from toolgrade.environments import TurnRun
    from toolgrade.suite import Conversation, Suite

__all__ = [
    "CONVERSATION_PROFILES",
    "ConversationProfileFn",
    "ProfileOutcome",
    "decided_record",
]

_CAUSES = frozenset(get_args(FailureCause))


class ProfileOutcome(Protocol):
    """A conversation profile's verdict on one conversation."""

    @property
    def passed(self) -> bool:
        """Whether the conversation passed."""
        ...

    @property
    def cause(self) -> str | None:
        """The failure cause (a `FailureCause`), None when it passed."""
        ...

    @property
    def failure_message(self) -> str:
        """What went wrong, for people (`first_failure.message`)."""
        ...

    @property
    def turn(self) -> int | None:
        """The turn that failed, when one did."""
        ...


class ConversationProfileFn(Protocol):
    """Judges a whole conversation, or returns None when it is not of the profile's kind."""

    def __call__(
        self,
        suite: Suite,
        conversation: Conversation,
        runs: Sequence[TurnRun],
        /,
        *,
        prompt_mode: bool,
    ) -> ProfileOutcome | None:
        """The verdict (`prompt_mode`: the run described tools in the prompt)."""
        ...


CONVERSATION_PROFILES: Registry[ConversationProfileFn] = Registry(
    "conversation profile", "toolgrade.conversation_profiles"
)
"""Profile name -> the function judging whole conversations under that profile."""
CONVERSATION_PROFILES.register("bfcl", "toolgrade.bfcl._mt_checker:judge_bfcl_conversation")


def decided_record(
    record: ConversationRecord, outcome: ProfileOutcome, profile: str
) -> tuple[Status, ConversationRecord]:
    """A record decided by a profile, and the status.

    The record's checks are kept but no longer decide; one check named after the
    profile holds the outcome, which also gives the first failure.
    """
    check = CheckResult(
        name=profile, passed=outcome.passed, message=outcome.failure_message or None, deciding=True
    )
    checks = (*(c.model_copy(update={"deciding": False}) for c in record.checks), check)
    first = None
    if not outcome.passed:
        cause = outcome.cause if outcome.cause in _CAUSES else "error"
        first = FirstFailure(
            cause=cause,  # checked against _CAUSES
            message=outcome.failure_message or f"{profile} failed",
            turn=outcome.turn,
            check=profile,
        )
    record = record.model_copy(
        update={"checks": checks, "passed": outcome.passed, "first_failure": first}
    )
    status = Status.CORRECT if first is None else Status(first.cause)
    return status, record
