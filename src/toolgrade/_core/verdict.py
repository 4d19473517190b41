"""The one verdict: what a judge decided about a reply, a turn, a case or a conversation.

Every judge returns a `Verdict`: the call judge on one expectation
(`toolgrade.match.CallJudge`), a judge profile on a case (`register_profile`), the
judge of a turn, and the judge of a conversation (`judge_conversation`) or a
conversation profile. `toolgrade.judging.case_result` and `conversation_result` make
it the `CaseResult` that is stored; a verdict itself is never written.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolgrade._core.transcript import ConversationRecord
from toolgrade._core.vocab import Mismatch, PairResult, Rubric, Status, ToolCall

__all__ = ["Verdict"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's verdict: the status and score, and what they rest on.

    Only `status` and `score` are always given; the other fields say what the judge
    that made the verdict knows (pairs for calls, a record for a conversation).

    Examples:
        >>> Verdict(Status.CORRECT, 1.0).passed
        True
        >>> Verdict.not_scored(Status.TIMEOUT, "no answer in 30 s").score
        0.0
    """

    status: Status
    """The verdict."""
    score: float
    """The score under the rubric, 0 to 1 (0 for unscored statuses)."""
    pairs: tuple[PairResult, ...] = ()
    """The pairing of expected and actual calls."""
    details: tuple[Mismatch, ...] = ()
    """Every argument difference, with its JSON path and reason."""
    expected: tuple[ToolCall, ...] | None = None
    """The expectation judged against (the best alternative); None: the case's own."""
    alternative: int | None = None
    """Which alternative that is (None: the primary expectation)."""
    closeness: float | None = None
    """The call judge's partial-rubric score, which breaks ties between alternatives
    under the other rubrics; None from other judges."""
    record: ConversationRecord | None = None
    """A conversation's record: every turn, check and verdict. From a conversation
    profile, a failing verdict's record may hold only its `first_failure` (the turn
    that failed, and why)."""
    rubric: Rubric | None = None
    """The rubric the score follows, when the judge chose it (a conversation's);
    None: the one the judge was asked for."""
    message: str | None = None
    """What went wrong, for people: why a verdict is not scored (the result's `error`),
    or why a conversation profile failed a conversation."""

    @property
    def passed(self) -> bool:
        """Whether the status is `correct`."""
        return self.status == Status.CORRECT

    @classmethod
    def not_scored(
        cls, status: Status, message: str, *, record: ConversationRecord | None = None
    ) -> Verdict:
        """The verdict on something that could not be judged: a timeout or an error.

        Args:
            status: `timeout` or `error`.
            message: what went wrong (the result's `error`).
            record: for a conversation, its record as far as it went.

        Raises:
            ValueError: `status` is a scored status.
        """
        if status.scored:
            raise ValueError(f"{status.value!r} is a scored status")
        return cls(status, 0.0, record=record, message=message)
