"""The backend protocol and the values that cross it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from toolgrade._core.json_data import JsonObject, JsonValue, clean_text, clean_value, has_surrogate
from toolgrade.backends._families import DEFAULT_FAMILY, family_names
from toolgrade.errors import ConfigError
from toolgrade.extract import is_trajectory, trajectory_message
from toolgrade.suite import ToolSpec

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "Backend",
    "BackendSettings",
    "ChatReply",
    "ChatRequest",
    "Mode",
    "ServerInfo",
    "extractable",
]

Mode = Literal["native", "prompt"]
"""`native`: tools go in the request; `prompt`: tools are described in the system prompt."""

DEFAULT_MAX_TOKENS = 1024
"""Default cap on one answer's tokens: a tool call needs far fewer, and a runaway answer
must not hold the server for minutes."""


@dataclass(frozen=True, slots=True)
class BackendSettings:
    """Request settings shared by every backend (all recorded with the run but the key).

    Examples:
        >>> BackendSettings(temperature=0.2, seed=7).to_dict()["seed"]
        7
    """

    base_url: str | None = None
    """Server URL; None uses the provider's default (or its environment variable)."""
    temperature: float = 0.0
    """Sampling temperature (0: as deterministic as the server allows)."""
    seed: int | None = None
    """Seed sent to the server."""
    mode: Mode = "native"
    """How tools reach the model."""
    timeout: float = 60.0
    """Seconds allowed for one request."""
    max_retries: int = 3
    """Retries on connection errors, 429 and 5xx."""
    retry_base_delay: float = 0.5
    """First backoff delay in seconds; it doubles on each retry (with jitter)."""
    connections: int = 8
    """Keep-alive connections to the server (the runner uses its concurrency)."""
    options: Mapping[str, JsonValue] = field(default_factory=dict)
    """Extra request options, e.g. `num_ctx` for Ollama or `top_p` for OpenAI.

    An option wins over the matching setting: `max_tokens` / `max_completion_tokens`
    (OpenAI-compatible) or `num_predict` (Ollama) over `max_tokens`, `stream` over
    `stream`."""
    api_key: str | None = field(default=None, repr=False)
    """API key; None reads the provider's variable. Never recorded."""
    max_tokens: int | None = DEFAULT_MAX_TOKENS
    """Cap on the tokens of one answer (`max_tokens`, Ollama `num_predict`); None sends none."""
    stream: bool = True
    """Stream answers, so that a timeout or Ctrl-C stops the server generating."""
    prompt_format: str = DEFAULT_FAMILY
    """The model family used in `prompt` mode (`hermes`, `llama3`, `mistral`): its tool
    prompt, how earlier calls are written, and how tool results are wrapped."""
    endpoints: tuple[str, ...] = ()
    """Several servers of the same model: with two or more, each request goes to the one
    with the fewest requests in flight (`EndpointPool`), and `base_url` becomes the first.
    One is the same as `base_url`; empty uses `base_url` alone."""
    endpoint_concurrency: int | None = None
    """With several endpoints: requests in flight per endpoint at most; None splits
    `connections` evenly (rounded up), lowered to an endpoint's slots when it says."""

    def __post_init__(self) -> None:
        _normalise_endpoints(self)
        if self.prompt_format not in family_names():
            raise ConfigError(
                f"unknown prompt format {self.prompt_format!r}"
                f" (choose from {', '.join(family_names())})"
            )
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1, got {self.max_tokens}")
        if not isinstance(self.options.get("stream", False), bool):
            raise ConfigError(
                f"option stream must be true or false, got {self.options['stream']!r}"
            )

    def streams(self) -> bool:
        """Whether answers are streamed: the `stream` option when given, else `stream`.

        Examples:
            >>> BackendSettings(options={"stream": False}).streams()
            False
        """
        value = self.options.get("stream", self.stream)
        return value if isinstance(value, bool) else self.stream

    def to_dict(self) -> JsonObject:
        """The settings to record with a run (without the API key).

        `prompt_format` is recorded only when it is not the default, so that the
        settings of runs from before it existed read the same.
        """
        recorded: JsonObject = {
            "base_url": self.base_url,
            "temperature": self.temperature,
            "seed": self.seed,
            "mode": self.mode,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "max_tokens": self.max_tokens,
            "stream": self.streams(),
            "options": dict(self.options),
        }
        if self.prompt_format != DEFAULT_FAMILY:
            recorded["prompt_format"] = self.prompt_format
        if self.endpoints:
            recorded["endpoints"] = list(self.endpoints)
        if self.endpoint_concurrency is not None:
            recorded["endpoint_concurrency"] = self.endpoint_concurrency
        return recorded


def _normalise_endpoints(settings: BackendSettings) -> None:
    """Endpoints as a tuple of distinct URLs; one endpoint is just `base_url`.

    Recorded settings give a JSON list, and one endpoint must record exactly as a plain
    `base_url` does (so that a run with one server reads as before endpoints existed).
    """
    put = object.__setattr__  # frozen: only here, while the value is being built
    # Kept as given (the backend checks and tidies each URL, and names it as given when
    # it is malformed); told apart without their trailing slash.
    urls = tuple(str(u).strip() for u in settings.endpoints)
    seen: set[str] = set()
    for url in urls:
        if url.rstrip("/") in seen:
            raise ConfigError(f"endpoint {url} is listed twice")
        seen.add(url.rstrip("/"))
    if len(urls) == 1:
        put(settings, "base_url", urls[0])
        urls = ()
    elif urls:
        put(settings, "base_url", urls[0])
    put(settings, "endpoints", urls)
    limit = settings.endpoint_concurrency
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"endpoint concurrency must be at least 1, got {limit!r}")


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One case sent to a model (or one step of a conversation)."""

    case_id: str
    """The case's id."""
    messages: tuple[JsonObject, ...]
    """Chat messages in toolgrade's neutral shape (`Case.messages()`), tool names as sent."""
    tools: tuple[ToolSpec, ...] = ()
    """The tools offered, named as the server should see them."""
    repeat: int = 0
    """Repetition index."""
    turn: int = 0
    """Conversations: the user turn (from 0) this request is part of."""
    step: int = 0
    """Conversations: the model reply within that turn (from 0)."""


@dataclass(frozen=True, slots=True)
class ChatReply:
    """What a backend got back for one request."""

    raw: JsonValue
    """The raw output kept with the result: an assistant message, or text."""
    latency_ms: float | None = None
    """Time the model took; None lets the runner use its own clock."""
    identity: JsonObject = field(default_factory=dict)
    """What the response says about the server (`system_fingerprint`, `model`)."""
    error: str | None = None
    """A recorded failure (replay): the case is reported as `error` with this message."""
    ttft_ms: float | None = None
    """Time to the first streamed token; None when the reply was not streamed."""
    finish_reason: str | None = None
    """Why the server stopped (`stop`, `tool_calls`, `length`, ...); None when not told."""
    endpoint: str | None = None
    """The server that answered, set by an `EndpointPool` (None with one server)."""

    def __post_init__(self) -> None:
        """Replace lone UTF-16 surrogates in what the model or server sent by U+FFFD.

        Every backend's reply passes here, so nothing downstream (result files, the
        history, hashes, RE2) meets text that cannot be encoded; a reply without one is
        kept as it is (nothing is copied).
        """
        put = object.__setattr__  # frozen: only here, while the value is being built
        raw = clean_value(self.raw)
        if raw is not self.raw:
            put(self, "raw", raw)
        identity = clean_value(self.identity)
        if identity is not self.identity:
            put(self, "identity", identity)
        for name in ("error", "finish_reason"):
            text = getattr(self, name)
            if isinstance(text, str) and has_surrogate(text):
                put(self, name, clean_text(text))


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What the server says about itself before a run."""

    url: str | None = None
    """The URL checked (None for in-process backends)."""
    models: tuple[str, ...] | None = None
    """Models the server lists; None when it does not say."""
    identity: JsonObject = field(default_factory=dict)
    """Recorded with the run: server version, model digest, file hash, ..."""
    parallel: int | None = None
    """Requests the server answers at once (its slots), when it says; 1 = one at a time."""

    def __post_init__(self) -> None:
        """Replace lone UTF-16 surrogates in what the server says by U+FFFD (see `ChatReply`)."""
        put = object.__setattr__  # frozen: only here, while the value is being built
        identity = clean_value(self.identity)
        if identity is not self.identity:
            put(self, "identity", identity)
        models = self.models
        if models is not None and any(isinstance(m, str) and has_surrogate(m) for m in models):
            put(self, "models", tuple(clean_text(m) if isinstance(m, str) else m for m in models))


def extractable(raw: JsonValue) -> str | JsonObject:
    """The raw output in a shape extraction accepts: text or a message (else its JSON).

    An agent's trajectory (a message list) becomes one assistant message holding every
    call it made, so that a single case judges all of them and never a tool's result.
    """
    if isinstance(raw, str | dict):
        return raw
    if is_trajectory(raw):
        return trajectory_message(raw)
    return "" if raw is None else json.dumps(raw, ensure_ascii=False)


@runtime_checkable
class Backend(Protocol):
    """A model behind some API; one instance serves a whole run.

    `complete` raises `BackendError` subclasses for transport failures (the runner
    reports the case as `error` or `timeout` and goes on); what the model says is data.
    """

    provider: str
    """The provider part of the model specification, e.g. `ollama`."""
    model: str
    """The model part, e.g. `qwen3:8b`."""
    safe_names: bool
    """True when tool names must match `^[A-Za-z0-9_-]{1,64}$` (OpenAI function names)."""

    async def server_info(self) -> ServerInfo:
        """Check the server and describe it.

        Raises:
            BackendUnreachable: nothing answers.
        """
        ...

    async def complete(self, request: ChatRequest) -> ChatReply:
        """Send one case and return the model's answer."""
        ...

    def settings(self) -> JsonObject:
        """The settings to record with the run."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
