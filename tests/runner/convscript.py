"""A scripted in-process backend for conversations, and a small conversation suite.

`ScriptedModel(script)` answers request (case id, turn, step) with `script[...]`: a raw
output (text or an assistant message), `HANG` (never answers: the request times out),
or `Gate` (waits for the test to open it). Every request is kept in `requests`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolgrade.backends import ChatReply, ChatRequest, ServerInfo
from toolgrade.suite import Suite

HANG = object()
"""A step that never answers."""

Key = tuple[str, int, int]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A native assistant message with one call."""
    fn = {"name": name, "arguments": arguments}
    return {"role": "assistant", "content": None, "tool_calls": [{"function": fn}]}


def text(content: str) -> dict[str, Any]:
    """A native assistant message without calls."""
    return {"role": "assistant", "content": content}


@dataclass
class ScriptedModel:
    """A `Backend` answering each (case, turn, step) from a script."""

    script: Mapping[Key, Any]
    provider: str = "scripted"
    model: str = "m"
    safe_names: bool = True
    requests: list[ChatRequest] = field(default_factory=list)
    reached: asyncio.Event | None = None
    """Set when a `HANG` step is reached (a test stops the run then)."""

    async def server_info(self) -> ServerInfo:
        return ServerInfo()

    async def complete(self, request: ChatRequest) -> ChatReply:
        self.requests.append(request)
        answer = self.script.get((request.case_id, request.turn, request.step))
        if answer is HANG:
            if self.reached is not None:
                self.reached.set()
            await asyncio.Event().wait()
        if answer is None:
            return ChatReply(raw=None, error="no script")
        return ChatReply(raw=answer, latency_ms=10.0)

    def settings(self) -> dict[str, Any]:
        return {"provider": self.provider}

    async def aclose(self) -> None:
        return None

    def at(self, case_id: str, turn: int, step: int) -> ChatRequest:
        """The request sent at this step."""
        return next(
            r for r in self.requests if (r.case_id, r.turn, r.step) == (case_id, turn, step)
        )


TOOLS = [
    {
        "name": "read_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
            "required": ["path", "text"],
        },
    },
]

ENV = {
    "kind": "scripted",
    "rules": [
        {"when": {"tool": "read_file", "arguments": {"path": "a.txt"}}, "result": {"text": "A"}},
        {
            "when": {"tool": "write_file", "arguments": {"path": "b.txt"}},
            "result": {"ok": True},
            "update": {"files": {"b.txt": "written"}},
        },
    ],
}

REFERENCE = [
    {"calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}], "reply": "It says A."},
    {
        "calls": [{"name": "write_file", "arguments": {"path": "b.txt", "text": "A"}}],
        "reply": "Copied.",
    },
]


def conversation(id: str = "c1", **extra: Any) -> dict[str, Any]:
    """Read a.txt, then copy it to b.txt; checks the state at the end."""
    data: dict[str, Any] = {
        "id": id,
        "turns": [
            {"user": f"{id}: read a.txt", "expected": [REFERENCE[0]["calls"][0]]},
            {"user": f"{id}: copy it to b.txt", "expected": [REFERENCE[1]["calls"][0]]},
        ],
        "environment": "files",
        "initial_state": {"files": {"a.txt": "A"}},
        "checks": {"final_state": {"state": {"files": {"b.txt": "written"}}}},
        "reference": REFERENCE,
    }
    data.update(extra)
    return data


def suite(*conversations: dict[str, Any]) -> Suite:
    """A schema 2 suite of these conversations (default: one `conversation()`)."""
    return Suite.model_validate(
        {
            "schema_version": 2,
            "name": "conv",
            "tools": TOOLS,
            "environments": {"files": ENV},
            "cases": list(conversations) or [conversation()],
        }
    )


def good_script(id: str = "c1") -> dict[Key, Any]:
    """A model that follows the reference."""
    return {
        (id, 0, 0): call("read_file", path="a.txt"),
        (id, 0, 1): text("It says A."),
        (id, 1, 0): call("write_file", path="b.txt", text="A"),
        (id, 1, 1): text("Copied."),
    }
