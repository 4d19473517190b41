"""OpenAI-compatible servers (`/v1/chat/completions`): vLLM, llama.cpp, LM Studio, SGLang, ...

We talk to them with httpx rather than the `openai` client: one dependency less, the
same code path for every local server (some answer in ways the client's strict models
reject), and full control over retries, timeouts and the raw body we keep.
"""

from __future__ import annotations

import os
import time

from toolgrade._json import JsonObject, JsonValue
from toolgrade.backends._http import JsonHttp, RetryPolicy
from toolgrade.backends._types import BackendSettings, ChatReply, ChatRequest, ServerInfo
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


class OpenAIBackend:
    """A chat-completions server; the assistant message is the raw output kept."""

    safe_names = True

    def __init__(self, model: str, settings: BackendSettings, *, provider: str = "openai") -> None:
        self.provider = provider
        self.model = model
        self._settings = settings
        base = settings.base_url
        if base is None and provider == "openai":
            base = os.environ.get("OPENAI_BASE_URL") or None
        self.base_url = (base or DEFAULT_URLS[provider]).rstrip("/")
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
        """List the served models (`GET /models`); a server without that route still passes."""
        models: tuple[str, ...] | None = None
        try:
            listing = await self._http.get("models", retries=False)
        except (BackendUnreachable, BackendTimeout):
            raise
        except BackendError:
            listing = None  # not every server lists its models; that says nothing bad
        entries = listing.get("data") if isinstance(listing, dict) else None
        if isinstance(entries, list):
            models = tuple(str(m["id"]) for m in entries if isinstance(m, dict) and "id" in m)
        identity: JsonObject = {"base_url": self.base_url}
        if models is not None:
            identity["model_listed"] = self.model in models
        return ServerInfo(url=self._http.url("models"), models=models, identity=identity)

    def request_body(self, request: ChatRequest) -> JsonObject:
        """The JSON body sent for a request (public for tests and `doctor`)."""
        prompt_mode = self._settings.mode == "prompt"
        body: JsonObject = {
            "model": self.model,
            "messages": list(
                openai_messages(request.messages, tools=request.tools, prompt_mode=prompt_mode)
            ),
            "temperature": self._settings.temperature,
            "stream": False,
        }
        if self._settings.seed is not None:
            body["seed"] = self._settings.seed
        if request.tools and not prompt_mode:
            body["tools"] = [t.to_openai() for t in request.tools]
        body.update(self._settings.options)
        return body

    async def complete(self, request: ChatRequest) -> ChatReply:
        """POST `/chat/completions`; return the first choice's message."""
        started = time.perf_counter()
        data = await self._http.post("chat/completions", self.request_body(request))
        latency = (time.perf_counter() - started) * 1000.0
        message = _first_message(data)
        if message is None:
            raise BackendError(
                "response has no choices[0].message", url=self._http.url("chat/completions")
            )
        identity: JsonObject = {}
        if isinstance(data, dict):
            for key in ("system_fingerprint", "model"):
                value = data.get(key)
                if isinstance(value, str) and value:
                    identity[key] = value
        return ChatReply(raw=message, latency_ms=latency, identity=identity)

    async def aclose(self) -> None:
        """Close connections."""
        await self._http.aclose()


def _first_message(data: JsonValue) -> JsonObject | None:
    if not isinstance(data, dict):
        return None
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    return message if isinstance(message, dict) else None
