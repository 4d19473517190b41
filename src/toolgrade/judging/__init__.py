"""Judging: a case's turns and end checks against what the model did.

`judge` gives a single reply's `CaseResult` (asking the profile registry for a `Verdict`:
a `Profile` judges replies and, optionally, whole conversations of its kind);
`judge_conversation` judges each turn of a conversation, then its end checks (final
state, unchanged paths, trajectory, forbidden calls, a call budget). `replay_reference`
plays a conversation's reference solution through its environment, which teacher forcing
and `check_conversations` (`toolgrade suite check`) build on.
"""

from toolgrade.judging._conversation import conversation_result, judge_conversation
from toolgrade.judging._end_checks import find_forbidden
from toolgrade.judging._failed_calls import failed_calls
from toolgrade.judging._judge import (
    JudgeFn,
    case_result,
    judge,
    profile_reads_any_name,
    profiles,
    register_profile,
)
from toolgrade.judging._profiles import ConversationJudgeFn, Profile, find_profile
from toolgrade.judging._reference import (
    FaultCounter,
    ReferenceReplay,
    ReferenceStates,
    assistant_message,
    call_id,
    replay_reference,
    tool_message,
)
from toolgrade.judging._suite_check import (
    CHECK_TIMEOUT,
    ConversationProblem,
    check_conversation,
    check_conversations,
)
from toolgrade.judging._trajectory import TrajectoryMatch, compare_trajectory, trajectory_prf

__all__ = [
    "CHECK_TIMEOUT",
    "ConversationJudgeFn",
    "ConversationProblem",
    "FaultCounter",
    "JudgeFn",
    "Profile",
    "ReferenceReplay",
    "ReferenceStates",
    "TrajectoryMatch",
    "assistant_message",
    "call_id",
    "case_result",
    "check_conversation",
    "check_conversations",
    "compare_trajectory",
    "conversation_result",
    "failed_calls",
    "find_forbidden",
    "find_profile",
    "judge",
    "judge_conversation",
    "profile_reads_any_name",
    "profiles",
    "register_profile",
    "replay_reference",
    "tool_message",
    "trajectory_prf",
]
