"""`toolgrade mcp`: serve toolgrade's tools over the Model Context Protocol (stdio)."""

from __future__ import annotations

__all__ = ["mcp"]


def mcp() -> None:
    """Serve score_calls, extract_calls and judge over MCP on stdin/stdout."""
    from toolgrade.agent import serve_stdio

    serve_stdio()
