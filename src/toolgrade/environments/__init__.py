"""Where a conversation's tool calls are executed: environments and the state they keep.

`environment_factory` builds one per conversation run from the suite: scripted rules
(`ScriptedToolEnvironment`), a Python class whose public methods are the tools
(`PythonToolEnvironment`, the built-in `Workspace`), or none (`NoToolEnvironment`).
JSON pointers (`get_pointer`, `pointer_to_path`) address the state they leave.
docs/conversations.md has the whole picture.
"""

from toolgrade.environments._factory import (
    NO_ENVIRONMENT_RESULT,
    NoToolEnvironment,
    environment_factory,
)
from toolgrade.environments._pointer import get_pointer, path_step, pointer_problem, pointer_to_path
from toolgrade.environments._python import PythonToolEnvironment, load_python_class
from toolgrade.environments._scripted import ScriptedToolEnvironment, describe_call
from toolgrade.environments._types import EnvironmentFactory, ToolEnvironment, TurnRun
from toolgrade.environments._workspace import Workspace

__all__ = [
    "EnvironmentFactory",
    "NO_ENVIRONMENT_RESULT",
    "NoToolEnvironment",
    "PythonToolEnvironment",
    "ScriptedToolEnvironment",
    "ToolEnvironment",
    "TurnRun",
    "Workspace",
    "describe_call",
    "environment_factory",
    "get_pointer",
    "load_python_class",
    "path_step",
    "pointer_problem",
    "pointer_to_path",
]
