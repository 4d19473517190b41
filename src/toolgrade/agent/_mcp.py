"""`toolgrade mcp`: serve score_calls, extract_calls and judge over the Model Context Protocol.

Uses the official `mcp` SDK (2.x) over stdio. Each tool's input schema is the one
`tool_definitions()` gives, so MCP clients and OpenAI-style agents see the same tools.
"""

from __future__ import annotations

import json
from typing import Any

from toolgrade._version import __version__
from toolgrade.agent._tools import call_tool, mcp_tools
from toolgrade.errors import ConfigError, ToolgradeError

__all__ = ["build_server", "serve_stdio"]


def build_server() -> Any:
    """Build the MCP server (an `mcp.server.Server`) with toolgrade's three tools.

    Raises:
        ConfigError: the `mcp` package is not installed (`pip install 'toolgrade[mcp]'`).
    """
    try:
        from mcp import types
        from mcp.server import Server
    except ImportError as exc:
        raise ConfigError(
            "the MCP server needs the 'mcp' package: pip install 'toolgrade[mcp]'"
        ) from exc

    definitions = mcp_tools()

    async def list_tools(_ctx: Any, _params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=description, input_schema=schema)
                for name, description, schema in definitions
            ]
        )

    async def call(_ctx: Any, params: Any) -> Any:
        try:
            result = call_tool(params.name, params.arguments or {})
        except ToolgradeError as exc:
            # A bad request is the caller's to fix: an error result, not a crashed server.
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(exc))], is_error=True
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))],
            structured_content=result,
        )

    return Server(
        "toolgrade",
        version=__version__,
        instructions="Score, extract and judge LLM tool calls.",
        on_list_tools=list_tools,
        on_call_tool=call,
    )


def serve_stdio() -> None:
    """Serve the MCP server over standard input and output until the client closes it."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server()

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
