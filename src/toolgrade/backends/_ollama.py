"""Ollama's native API: `/api/chat`, with the model digest from `/api/tags`."""

from __future__ import annotations

import os
import time

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._assemble import OllamaStream
from toolgrade.backends._http import JsonHttp, RetryPolicy
from toolgrade.backends._types import BackendSettings, ChatReply, ChatRequest, ServerInfo
from toolgrade.backends._url import check_base_url
from toolgrade.backends._wire import ollama_messages
from toolgrade.errors import BackendError, BackendTimeout, BackendUnreachable

__all__ = ["DEFAULT_OLLAMA_URL", "OllamaBackend", "ollama_url"]

DEFAULT_OLLAMA_URL = "http://localhost:11434"


def ollama_url(base_url: str | None) -> str:
    """The server URL: the option, else `OLLAMA_HOST` (scheme optional), else the default.

    Examples:
        >>> ollama_url("127.0.0.1:11500")
        'http://127.0.0.1:11500'
    """
    url = base_url or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_URL
    if "://" not in url:
        url = "http://" + url
    return url.rstrip("/")


class OllamaBackend:
    """A model served by Ollama; `options` go to Ollama's `options` (num_ctx, ...).

    Ollama's API does not say how many requests it serves at once
    (`OLLAMA_NUM_PARALLEL`), so `ServerInfo.parallel` stays None.
    """

    provider = "ollama"
    safe_names = True

    def __init__(self, model: str, settings: BackendSettings) -> None:
        self.model = model
        self._settings = settings
        source = "--base-url" if settings.base_url else "OLLAMA_HOST"
        self.base_url = check_base_url(ollama_url(settings.base_url), source=source)
        self._http = JsonHttp(
            self.base_url,
            timeout=settings.timeout,
            retry=RetryPolicy(
                max_retries=settings.max_retries, base_delay=settings.retry_base_delay
            ),
            seed=settings.seed,
            lanes=settings.connections,
        )

    def settings(self) -> JsonObject:
        """Request settings, with the resolved URL."""
        return {**self._settings.to_dict(), "base_url": self.base_url, "provider": self.provider}

    async def server_info(self) -> ServerInfo:
        """List local models (`/api/tags`) and record this model's digest and the version."""
        try:
            listing = await self._http.get("api/tags", retries=False)
        except (BackendUnreachable, BackendTimeout):
            raise
        except BackendError:
            listing = None
        names: list[str] = []
        identity: JsonObject = {"base_url": self.base_url}
        entries = listing.get("models") if isinstance(listing, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            name = str(entry.get("name") or entry.get("model") or "")
            names.append(name)
            if name in (self.model, f"{self.model}:latest") and entry.get("digest"):
                identity["model_digest"] = entry["digest"]
        try:
            version = await self._http.get("api/version", retries=False)
        except BackendError:
            version = None
        if isinstance(version, dict) and isinstance(version.get("version"), str):
            identity["ollama_version"] = version["version"]
        models = tuple(names) if listing is not None else None
        return ServerInfo(url=self._http.url("api/tags"), models=models, identity=identity)

    def request_body(self, request: ChatRequest) -> JsonObject:
        """The JSON body sent for a request (`stream` goes at the top, not in `options`)."""
        prompt_mode = self._settings.mode == "prompt"
        options: JsonObject = {"temperature": self._settings.temperature}
        if self._settings.seed is not None:
            options["seed"] = self._settings.seed
        if self._settings.max_tokens is not None:
            options["num_predict"] = self._settings.max_tokens
        options.update((k, v) for k, v in self._settings.options.items() if k != "stream")
        body: JsonObject = {
            "model": self.model,
            "messages": list(
                ollama_messages(
                    request.messages,
                    tools=request.tools,
                    prompt_mode=prompt_mode,
                    family=self._settings.prompt_format,
                )
            ),
            "stream": self._settings.streams(),
            "options": options,
        }
        if request.tools and not prompt_mode:
            body["tools"] = [t.to_openai() for t in request.tools]
        return body

    async def complete(self, request: ChatRequest) -> ChatReply:
        """POST `/api/chat` (streamed by default); return the assistant message."""
        started = time.perf_counter()
        body = self.request_body(request)
        url = self._http.url("api/chat")
        if body["stream"] is True:
            sink = OllamaStream(url)
            answer = await self._http.post_stream("api/chat", body, sink)
            if answer.streamed:
                return sink.reply(started)
            data = answer.value  # one JSON document: the server did not stream
        else:
            data = await self._http.post("api/chat", body)
        latency = (time.perf_counter() - started) * 1000.0
        message: JsonValue = data.get("message") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(message, dict):
            raise BackendError("response has no message", url=url)
        identity: JsonObject = {}
        if isinstance(data.get("model"), str):
            identity["model"] = data["model"]
        reason = data.get("done_reason")
        return ChatReply(
            raw=message,
            latency_ms=latency,
            identity=identity,
            finish_reason=reason if isinstance(reason, str) and reason else None,
        )

    async def aclose(self) -> None:
        """Close connections."""
        await self._http.aclose()
