"""Testing an agent's tool calls: the assertions, the pytest plugin, the MCP server.

`assert_tool_calls` judges one reply; `assert_trajectory` the calls of a whole run of
an agent that executes its own tools (its message list).

The plugin (`toolgrade.agent._plugin`, registered through the `pytest11` entry point)
and the MCP server (`toolgrade.agent._mcp`, `toolgrade mcp`) are loaded by pytest and
the CLI; the tools they serve are `tool_definitions` and `call_tool`.
"""

from toolgrade.agent._check import assert_tool_calls
from toolgrade.agent._tools import call_tool, tool_definitions
from toolgrade.agent._trajectory import assert_trajectory

__all__ = ["assert_tool_calls", "assert_trajectory", "call_tool", "tool_definitions"]
