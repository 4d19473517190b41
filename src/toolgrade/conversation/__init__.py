"""The conversation engine without a model: environments, the reference, judging.

A conversation's tool calls are executed by an environment (`environment_factory`:
scripted rules, a Python class whose public methods are the tools, or none); the
runner (`toolgrade.runner`) drives the model turn by turn and step by step, and
`judge_conversation` judges what happened: each turn, then the end checks (final
state, unchanged paths, trajectory, forbidden calls, a call budget). `replay_reference`
plays a conversation's reference solution through its environment, which teacher
forcing and `check_conversations` (`toolgrade suite check`) build on. docs/conversations.md
has the whole picture.
"""

from toolgrade.conversation._agent_trajectory import steps_from_messages, trajectory_calls
from toolgrade.conversation._environments import NoToolEnvironment, environment_factory
from toolgrade.conversation._judge import (
    ConversationVerdict,
    conversation_result,
    judge_conversation,
)
from toolgrade.conversation._python_env import PythonToolEnvironment, load_python_class
from toolgrade.conversation._reference import ReferenceReplay, replay_reference
from toolgrade.conversation._scripted import ScriptedToolEnvironment
from toolgrade.conversation._suite_check import (
    ConversationProblem,
    check_conversation,
    check_conversations,
)
from toolgrade.conversation._trajectory import TrajectoryVerdict, compare_trajectory, trajectory_prf
from toolgrade.conversation._types import EnvironmentFactory, ToolEnvironment, TurnRun
from toolgrade.conversation._workspace import Workspace

__all__ = [
    "ConversationProblem",
    "ConversationVerdict",
    "EnvironmentFactory",
    "NoToolEnvironment",
    "PythonToolEnvironment",
    "ReferenceReplay",
    "ScriptedToolEnvironment",
    "ToolEnvironment",
    "TrajectoryVerdict",
    "TurnRun",
    "Workspace",
    "check_conversation",
    "check_conversations",
    "compare_trajectory",
    "conversation_result",
    "environment_factory",
    "judge_conversation",
    "load_python_class",
    "replay_reference",
    "steps_from_messages",
    "trajectory_calls",
    "trajectory_prf",
]
