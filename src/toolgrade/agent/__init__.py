"""Testing an agent's tool calls: the assertions and the MCP server.

`assert_tool_calls` judges one reply; `assert_trajectory` the calls of a whole run of
an agent that executes its own tools (its message list).

The pytest plugin that offers the assertions as fixtures lives beside the command line,
whose option groups its markers share (`toolgrade.cli._pytest_plugin`, registered through
the `pytest11` entry point). The MCP server (`serve_stdio`, `toolgrade mcp`) serves
`tool_definitions` and `call_tool`.
"""

from toolgrade.agent._check import assert_tool_calls, fraction_bound
from toolgrade.agent._mcp import serve_stdio
from toolgrade.agent._tools import call_tool, tool_definitions
from toolgrade.agent._trajectory import assert_trajectory

__all__ = [
    "assert_tool_calls",
    "assert_trajectory",
    "call_tool",
    "fraction_bound",
    "serve_stdio",
    "tool_definitions",
]
