"""Testing an agent's tool calls: the assertions and the MCP server.

`assert_tool_calls` judges one reply as a suite judges a case; `assert_trajectory` the
calls of a whole run of an agent that executes its own tools (its message list), as a
suite judges a conversation of one turn. Both read what a test has at hand
(`_inputs.py`), judge through `toolgrade.judging` (`_judging.py`) and fail with one
message layout (`_failure.py`).

The pytest plugin that offers the assertions as fixtures lives beside the command line,
whose option groups its markers share (`toolgrade.cli._pytest_plugin`, registered through
the `pytest11` entry point). The MCP server (`serve_stdio`, `toolgrade mcp`) serves
`tool_definitions` and `call_tool`.
"""

from toolgrade.agent._assert import assert_tool_calls, assert_trajectory
from toolgrade.agent._inputs import fraction_bound
from toolgrade.agent._mcp import serve_stdio
from toolgrade.agent._tools import call_tool, tool_definitions

__all__ = [
    "assert_tool_calls",
    "assert_trajectory",
    "call_tool",
    "fraction_bound",
    "serve_stdio",
    "tool_definitions",
]
