"""The HTTP backends against a real scripted server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import pytest

from runner.fakeserver import FakeServer, Step
from toolgrade.backends import BackendSettings, ChatRequest, create_backend
from toolgrade.errors import BackendError, BackendHTTPError, BackendTimeout, BackendUnreachable
from toolgrade.suite import ToolSpec

READ = ToolSpec(
    name="read_file",
    description="Read a file",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)
CALL = {"name": "read_file", "arguments": {"path": "README.md"}}
FAST = {"retry_base_delay": 0.01}


def _request(prompt: str, *, tools: tuple[ToolSpec, ...] = (READ,)) -> ChatRequest:
    return ChatRequest(
        case_id="TC-1",
        messages=({"role": "system", "content": "Be brief."}, {"role": "user", "content": prompt}),
        tools=tools,
    )


def _complete(spec: str, settings: BackendSettings, request: ChatRequest) -> Any:
    async def go() -> Any:
        backend = create_backend(spec, settings)
        try:
            return await backend.complete(request)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_openai_structured_call_returns_assistant_message() -> None:
    with FakeServer({"read": [Step(calls=[CALL])]}) as server:
        reply = _complete(
            "openai/test-model",
            BackendSettings(base_url=server.openai_url, seed=7),
            _request("read"),
        )
        body = server.requests[0]
    assert reply.raw["tool_calls"][0]["function"]["name"] == "read_file"
    assert reply.identity == {"system_fingerprint": "fp_test_1", "model": "test-model"}
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.0
    assert body["seed"] == 7
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert reply.latency_ms is not None and reply.latency_ms >= 0


def test_openai_prompt_mode_sends_tools_in_system_prompt() -> None:
    with FakeServer() as server:
        settings = BackendSettings(base_url=server.openai_url, mode="prompt")
        _complete("vllm/test-model", settings, _request("hello"))
        body = server.requests[0]
    assert "tools" not in body
    system = body["messages"][0]
    assert system["role"] == "system"
    assert "<tools>" in system["content"] and '"read_file"' in system["content"]
    assert system["content"].endswith("Be brief.")


def test_openai_500_then_success_retries() -> None:
    with FakeServer({"x": [Step(status=500), Step(status=503), Step(content="ok")]}) as server:
        reply = _complete(
            "openai/m", BackendSettings(base_url=server.openai_url, **FAST), _request("x")
        )
        assert server.hits["x"] == 3
    assert reply.raw["content"] == "ok"


def test_openai_500_forever_raises_http_error_after_retries() -> None:
    with FakeServer({"x": [Step(status=500)]}) as server:
        settings = BackendSettings(base_url=server.openai_url, max_retries=2, **FAST)
        with pytest.raises(BackendHTTPError) as info:
            _complete("openai/m", settings, _request("x"))
        assert server.hits["x"] == 3
    assert info.value.status_code == 500


@pytest.mark.slow
def test_openai_429_honours_retry_after() -> None:
    with FakeServer({"x": [Step(status=429, retry_after="1"), Step(content="ok")]}) as server:
        started = time.monotonic()
        reply = _complete(
            "openai/m", BackendSettings(base_url=server.openai_url, **FAST), _request("x")
        )
        elapsed = time.monotonic() - started
    assert reply.raw["content"] == "ok"
    assert elapsed >= 0.9


def test_openai_400_is_not_retried() -> None:
    with FakeServer({"x": [Step(status=400)]}) as server:
        with pytest.raises(BackendHTTPError, match="HTTP 400"):
            _complete(
                "openai/m", BackendSettings(base_url=server.openai_url, **FAST), _request("x")
            )
        assert server.hits["x"] == 1


def test_openai_malformed_json_raises_backend_error() -> None:
    with (
        FakeServer({"x": [Step(malformed=True)]}) as server,
        pytest.raises(BackendError, match="malformed JSON"),
    ):
        _complete("openai/m", BackendSettings(base_url=server.openai_url), _request("x"))


def test_openai_dropped_connection_once_is_retried() -> None:
    with FakeServer({"x": [Step(drop=True), Step(content="ok")]}) as server:
        reply = _complete(
            "openai/m", BackendSettings(base_url=server.openai_url, **FAST), _request("x")
        )
    assert reply.raw["content"] == "ok"


def test_openai_dropped_connection_always_raises() -> None:
    with FakeServer({"x": [Step(drop=True)]}) as server:
        settings = BackendSettings(base_url=server.openai_url, max_retries=1, **FAST)
        with pytest.raises(BackendError, match="dropped"):
            _complete("openai/m", settings, _request("x"))


def test_openai_slow_answer_raises_timeout() -> None:
    with FakeServer({"x": [Step(delay=1.0, content="late")]}) as server:
        settings = BackendSettings(base_url=server.openai_url, timeout=0.2)
        with pytest.raises(BackendTimeout):
            _complete("openai/m", settings, _request("x"))


def test_openai_refused_port_raises_unreachable() -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"

    async def go() -> None:
        backend = create_backend("openai/m", BackendSettings(base_url=url, max_retries=0))
        try:
            await backend.server_info()
        finally:
            await backend.aclose()

    with pytest.raises(BackendUnreachable, match="cannot connect") as info:
        asyncio.run(go())
    assert info.value.exit_code == 3


@pytest.mark.parametrize("connections", [1, 2])
def test_requests_beyond_the_connections_wait_for_a_free_one(connections: int) -> None:
    """More requests than connections: never more in flight than that, none refused."""
    with FakeServer({"x": [Step(delay=0.1, content="ok")]}) as server:
        settings = BackendSettings(base_url=server.openai_url, connections=connections)

        async def go() -> list[Any]:
            backend = create_backend("openai/m", settings)
            try:
                return await asyncio.gather(*(backend.complete(_request("x")) for _ in range(6)))
            finally:
                await backend.aclose()

        replies = asyncio.run(go())
        assert [r.raw["content"] for r in replies] == ["ok"] * 6
        assert server.max_in_flight == connections


def test_openai_server_info_lists_models() -> None:
    async def go(url: str) -> Any:
        backend = create_backend("llamacpp/test-model", BackendSettings(base_url=url))
        try:
            return await backend.server_info()
        finally:
            await backend.aclose()

    with FakeServer() as server:
        info = asyncio.run(go(server.openai_url))
    assert info.models == ("test-model",)
    assert info.identity["model_listed"] is True


def test_ollama_native_call_and_options() -> None:
    with FakeServer({"read": [Step(calls=[CALL])]}) as server:
        settings = BackendSettings(
            base_url=server.ollama_url, seed=3, temperature=0.5, options={"num_ctx": 8192}
        )
        reply = _complete("ollama/qwen3:8b", settings, _request("read"))
        body = server.requests[0]
    assert reply.raw["tool_calls"][0]["function"]["arguments"] == {"path": "README.md"}
    assert body["options"] == {"temperature": 0.5, "seed": 3, "num_predict": 1024, "num_ctx": 8192}
    assert body["stream"] is True  # the scripted server answers with one JSON document anyway
    assert body["tools"][0]["function"]["name"] == "read_file"


def test_ollama_server_info_records_digest_and_version() -> None:
    async def go(url: str) -> Any:
        backend = create_backend("ollama/test-model", BackendSettings(base_url=url))
        try:
            return await backend.server_info()
        finally:
            await backend.aclose()

    with FakeServer() as server:
        info = asyncio.run(go(server.ollama_url))
    assert info.identity["model_digest"] == "sha256:0123abcd"
    assert info.identity["ollama_version"] == "0.9.9-test"


def test_ollama_host_variable_without_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    backend = create_backend("ollama/x")
    assert backend.settings()["base_url"] == "http://127.0.0.1:9"


@pytest.mark.parametrize(
    ("spec", "url"),
    [
        ("vllm/m", "http://localhost:8000/v1"),
        ("llamacpp/m", "http://localhost:8080/v1"),
        ("lmstudio/m", "http://localhost:1234/v1"),
        ("sglang/m", "http://localhost:30000/v1"),
    ],
)
def test_openai_alias_default_urls(spec: str, url: str) -> None:
    assert create_backend(spec).settings()["base_url"] == url


def test_openai_base_url_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    assert create_backend("openai/m").settings()["base_url"] == "http://127.0.0.1:9/v1"


def test_openai_api_key_sent_but_never_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    with FakeServer() as server:
        backend = create_backend("openai/m", BackendSettings(base_url=server.openai_url))
        assert "sk-secret" not in str(backend.settings())
