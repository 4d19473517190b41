"""Testing an agent's tool calls: `assert_tool_calls`, the pytest plugin, the MCP server.

The plugin (`toolgrade.agent._plugin`, registered through the `pytest11` entry point)
and the MCP server (`toolgrade.agent._mcp`, `toolgrade mcp`) are loaded by pytest and
the CLI; the tools they serve are `tool_definitions` and `call_tool`.
"""

from toolgrade.agent._check import assert_tool_calls
from toolgrade.agent._tools import call_tool, tool_definitions

__all__ = ["assert_tool_calls", "call_tool", "tool_definitions"]
