"""Backends: the model servers a suite runs against, behind one small protocol."""

from toolgrade.backends._doctor import Check, Diagnosis, adiagnose_backend, diagnose_backend
from toolgrade.backends._endpoints import parse_endpoints, read_endpoints
from toolgrade.backends._families import DEFAULT_FAMILY
from toolgrade.backends._http import RetryEvent, RetryLog, RetryPolicy, parse_retry_after, retry_log
from toolgrade.backends._pool import EndpointPool
from toolgrade.backends._registry import (
    BackendFactory,
    create_backend,
    parse_model_spec,
    providers,
    register_backend,
)
from toolgrade.backends._replay import (
    NO_RECORDED_RESPONSE,
    ReplayBackend,
    ReplayRecord,
    replay_records,
    write_replay_file,
)
from toolgrade.backends._types import (
    DEFAULT_MAX_TOKENS,
    Backend,
    BackendSettings,
    ChatReply,
    ChatRequest,
    Mode,
    ServerInfo,
    extractable,
)
from toolgrade.backends._url import check_base_url
from toolgrade.backends._wire import NameMap, safe_tool_name, tools_system_prompt

__all__ = [
    "Backend",
    "BackendFactory",
    "BackendSettings",
    "ChatReply",
    "ChatRequest",
    "Check",
    "DEFAULT_FAMILY",
    "DEFAULT_MAX_TOKENS",
    "Diagnosis",
    "EndpointPool",
    "Mode",
    "NO_RECORDED_RESPONSE",
    "NameMap",
    "ReplayBackend",
    "ReplayRecord",
    "RetryEvent",
    "RetryLog",
    "RetryPolicy",
    "ServerInfo",
    "adiagnose_backend",
    "check_base_url",
    "create_backend",
    "diagnose_backend",
    "extractable",
    "parse_endpoints",
    "parse_model_spec",
    "parse_retry_after",
    "providers",
    "read_endpoints",
    "register_backend",
    "replay_records",
    "retry_log",
    "safe_tool_name",
    "tools_system_prompt",
    "write_replay_file",
]
