"""The plug-in tier: what a backend, format, report, profile or matcher author needs.

`toolgrade` is the tier for users; this module is the second public tier, for code that
extends toolgrade: a backend for another model server (`register_backend`), a reader of
the calls a model wrote (`register_format`), a report format (`register_report`), a
matching profile (`register_profile`: a reply judge returning a `Verdict` and,
optionally, a conversation judge; a `Profile`), or a matcher (`register_matcher`). Each
is one module and one registration: a call to the `register_*` function, or, from an
installed package, one entry point in the group `toolgrade.backends`,
`toolgrade.formats`, `toolgrade.reports`, `toolgrade.profiles` or `toolgrade.matchers`
(read on first use; see docs/extending.md, which also describes the
`toolgrade.conversation_profiles` group of conversation judges). Names here follow the
same rules as the top level: sorted, tested, and renamed only behind a deprecation.

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

from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import PairResult, Status, ToolCall
from toolgrade.backends import (
    Backend,
    BackendFactory,
    BackendSettings,
    ChatReply,
    ChatRequest,
    ServerInfo,
    register_backend,
)
from toolgrade.extract import (
    ExtractContext,
    Extraction,
    ExtractionProblem,
    ParseFn,
    PlacedFormat,
    StructuredFormat,
    TextFormat,
    register_format,
)
from toolgrade.judging import ConversationJudgeFn, JudgeFn, Profile, register_profile
from toolgrade.match import MatchContext, Matcher, MatcherSpec, register_matcher
from toolgrade.report import ReportInput, ReportWriter, register_report

__all__ = [
    "Backend",
    "BackendFactory",
    "BackendSettings",
    "ChatReply",
    "ChatRequest",
    "ConversationJudgeFn",
    "ExtractContext",
    "Extraction",
    "ExtractionProblem",
    "JudgeFn",
    "MatchContext",
    "Matcher",
    "MatcherSpec",
    "PairResult",
    "ParseFn",
    "PlacedFormat",
    "Profile",
    "ReportInput",
    "ReportWriter",
    "ServerInfo",
    "Status",
    "StructuredFormat",
    "TextFormat",
    "ToolCall",
    "Verdict",
    "register_backend",
    "register_format",
    "register_matcher",
    "register_profile",
    "register_report",
]
