"""What a model did in one reply: the four decisions, and the classifier's verdict."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Decision", "DecisionVerdict"]


class Decision(StrEnum):
    """What a model did with one request.

    `call`: it called a tool (a malformed call included); `clarify`: it asked the user
    for a missing detail; `refuse`: it said it cannot do this with the tools it has;
    `answer`: it answered in text; `unclassified`: the rules cannot tell.
    """

    CALL = "call"
    CLARIFY = "clarify"
    REFUSE = "refuse"
    ANSWER = "answer"
    UNCLASSIFIED = "unclassified"


@dataclass(frozen=True, slots=True)
class DecisionVerdict:
    """The decision found in a reply, the rule that found it, and the words it saw.

    Examples:
        >>> v = DecisionVerdict(Decision.CALL, "calls", "2 calls")
        >>> v.to_dict()
        {'decision': 'call', 'rule': 'calls', 'evidence': '2 calls'}
    """

    kind: Decision
    """The decision."""
    rule: str
    """The id of the rule that decided (docs/decisions.md lists them)."""
    evidence: str = ""
    """The words that triggered the rule, clipped."""

    def to_dict(self) -> dict[str, str]:
        """The verdict as JSON."""
        return {"decision": self.kind.value, "rule": self.rule, "evidence": self.evidence}
