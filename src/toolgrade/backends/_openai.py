"""OpenAI-compatible servers (`/v1/chat/completions`): vLLM, llama.cpp, LM Studio, SGLang, ...

We talk to them with httpx rather than the `openai` client: one dependency less, the
same code path for every local server (some answer in ways the client's strict models
reject), and full control over retries, timeouts and the raw body we keep.
"""

from __future__ import annotations

import os
import time

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._assemble import OpenAIStream
from toolgrade.backends._http import JsonHttp, RetryPolicy
from toolgrade.backends._servers import detect_server, server_slots
from toolgrade.backends._types import BackendSettings, ChatReply, ChatRequest, ServerInfo
from toolgrade.backends._url import check_base_url
from toolgrade.backends._wire import openai_messages
from toolgrade.errors import BackendError, BackendTimeout, BackendUnreachable

__all__ = ["DEFAULT_URLS", "OpenAIBackend"]

DEFAULT_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "vllm": "http://localhost:8000/v1",
    "llamacpp": "http://localhost:8080/v1",
    "lmstudio": "http://localhost:1234/v1",
    "sglang": "http://localhost:30000/v1",
}
"""Each provider's usual URL; `openai/` prefers `OPENAI_BASE_URL` when it is set."""
_TOKEN_CAPS = frozenset({"max_tokens", "max_completion_tokens"})


class OpenAIBackend:
    """A chat-completions server; the assistant message is the raw output kept."""

    safe_names = True

    def __init__(self, model: str, settings: BackendSettings, *, provider: str = "openai") -> None:
        self.provider = provider
        self.model = model
        self._settings = settings
        base, source = settings.base_url, "--base-url"
        if base is None and provider == "openai":
            base, source = os.environ.get("OPENAI_BASE_URL") or None, "OPENAI_BASE_URL"
        self.base_url = check_base_url(base or DEFAULT_URLS[provider], source=source)
        key = settings.api_key or os.environ.get("OPENAI_API_KEY") or ""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = JsonHttp(
            self.base_url,
            timeout=settings.timeout,
            retry=RetryPolicy(
                max_retries=settings.max_retries, base_delay=settings.retry_base_delay
            ),
            headers=headers,
            seed=settings.seed,
            lanes=settings.connections,
        )

    def settings(self) -> JsonObject:
        """Request settings, with the resolved base URL."""
        return {**self._settings.to_dict(), "base_url": self.base_url, "provider": self.provider}

    async def server_info(self) -> ServerInfo:
        """List the served models (`GET /models`) and say which server this is.

        A server without that route still passes. llama-server and llama-cpp-python
        are recognised (`identity["server"]`), and how many requests they answer at
        once is read from llama-server's `/props` (`ServerInfo.parallel`).
        """
        models: tuple[str, ...] | None = None
        try:
            answer = await self._http.get_answer("models", retries=False)
        except (BackendUnreachable, BackendTimeout):
            raise
        except BackendError:
            answer = None  # not every server lists its models; that says nothing bad
        listing = answer.value if answer is not None else None
        entries = listing.get("data") if isinstance(listing, dict) else None
        if isinstance(entries, list):
            models = tuple(str(m["id"]) for m in entries if isinstance(m, dict) and "id" in m)
        identity: JsonObject = {"base_url": self.base_url}
        if models is not None:
            identity["model_listed"] = self.model in models
        kind = detect_server(listing, answer.headers if answer is not None else {})
        parallel: int | None = None
        if kind is not None:
            identity["server"] = kind
            parallel = await server_slots(self._http, kind, identity)
        return ServerInfo(
            url=self._http.url("models"), models=models, identity=identity, parallel=parallel
        )

    def request_body(self, request: ChatRequest) -> JsonObject:
        """The JSON body sent for a request (public for tests and `doctor`)."""
        prompt_mode = self._settings.mode == "prompt"
        body: JsonObject = {
            "model": self.model,
            "messages": list(
                openai_messages(
                    request.messages,
                    tools=request.tools,
                    prompt_mode=prompt_mode,
                    family=self._settings.prompt_format,
                )
            ),
            "temperature": self._settings.temperature,
            "stream": self._settings.streams(),
        }
        if self._settings.seed is not None:
            body["seed"] = self._settings.seed
        options = self._settings.options
        if self._settings.max_tokens is not None and not _TOKEN_CAPS & options.keys():
            body["max_tokens"] = self._settings.max_tokens
        if request.tools and not prompt_mode:
            body["tools"] = [t.to_openai() for t in request.tools]
        body.update(options)
        return body

    async def complete(self, request: ChatRequest) -> ChatReply:
        """POST `/chat/completions` (streamed by default); return the first choice's message."""
        started = time.perf_counter()
        body = self.request_body(request)
        url = self._http.url("chat/completions")
        if body["stream"] is True:
            sink = OpenAIStream(url)
            answer = await self._http.post_stream("chat/completions", body, sink)
            if answer.streamed:
                return sink.reply(started)
            data = answer.value  # the server ignored `stream: true`
        else:
            data = await self._http.post("chat/completions", body)
        latency = (time.perf_counter() - started) * 1000.0
        choice = _first_choice(data)
        message = choice.get("message") if choice is not None else None
        if not isinstance(message, dict):
            raise BackendError("response has no choices[0].message", url=url)
        identity: JsonObject = {}
        if isinstance(data, dict):
            for key in ("system_fingerprint", "model"):
                value = data.get(key)
                if isinstance(value, str) and value:
                    identity[key] = value
        reason = choice.get("finish_reason") if choice is not None else None
        return ChatReply(
            raw=message,
            latency_ms=latency,
            identity=identity,
            finish_reason=reason if isinstance(reason, str) and reason else None,
        )

    async def aclose(self) -> None:
        """Close connections."""
        await self._http.aclose()


def _first_choice(data: JsonValue) -> JsonObject | None:
    if not isinstance(data, dict):
        return None
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    return choices[0]
