"""In-process agents for sweeps that need no server (`python/sweep.agents:...`)."""

from __future__ import annotations

from typing import Any


def good(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Read the file the last user message names: always right."""
    path = str(messages[-1]["content"]).split()[-1]
    return [{"name": "read_file", "arguments": {"path": path}}]


def broken(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    """An agent whose every call fails: no case can be scored."""
    raise RuntimeError("the agent is down")
