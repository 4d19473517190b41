"""The plug-in tier: what a backend, text format or judge profile author needs.

`toolgrade` is the tier for users; this module is the second public tier, for code that
extends toolgrade: a backend for another model server (`register_backend`), a matching
profile (`register_profile`), or a reader of the calls a model wrote. Names here follow
the same rules as the top level: sorted, tested, and renamed only behind a deprecation.

Examples:
    A backend that answers every case with the same text:

    >>> class EchoBackend:
    ...     provider, model, safe_names = "echo", "any", False
    ...     async def server_info(self) -> ServerInfo:
    ...         return ServerInfo()
    ...     async def complete(self, request: ChatRequest) -> ChatReply:
    ...         return ChatReply(raw="no tools today", latency_ms=0.0)
    ...     def settings(self) -> dict[str, object]:
    ...         return {}
    ...     async def aclose(self) -> None:
    ...         pass
    >>> isinstance(EchoBackend(), Backend)
    True

    `register_backend("echo", lambda model, settings: EchoBackend())` would then make
    `echo/<model>` a model specification.
"""

from __future__ import annotations

from toolgrade.backends import (
    Backend,
    BackendFactory,
    BackendSettings,
    ChatReply,
    ChatRequest,
    ServerInfo,
    register_backend,
)
from toolgrade.calls import ToolCall
from toolgrade.extract import (
    ExtractContext,
    Extraction,
    ExtractionProblem,
    StructuredFormat,
    TextFormat,
)
from toolgrade.extract._types import ParseFn
from toolgrade.judge import JudgeFn, register_profile

__all__ = [
    "Backend",
    "BackendFactory",
    "BackendSettings",
    "ChatReply",
    "ChatRequest",
    "ExtractContext",
    "Extraction",
    "ExtractionProblem",
    "JudgeFn",
    "ParseFn",
    "ServerInfo",
    "StructuredFormat",
    "TextFormat",
    "ToolCall",
    "register_backend",
    "register_profile",
]
