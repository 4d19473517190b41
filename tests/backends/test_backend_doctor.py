"""`doctor` and server detection against scripted llama-server, llama-cpp-python, vLLM."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import pytest
from typer.testing import CliRunner

from backends.streamserver import (
    DONE,
    Reply,
    StreamServer,
    chunk,
    completion,
    document,
    models,
)
from toolgrade.backends import BackendSettings, Diagnosis, ServerInfo, create_backend
from toolgrade.backends import adiagnose_backend as diagnose
from toolgrade.cli import app

CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
    ],
}
PROSE = {"role": "assistant", "content": "It is sunny in Paris."}
HERMES = {
    "role": "assistant",
    "content": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
}


def _answer(message: Mapping[str, Any], stream: bool) -> Reply:
    if not stream:
        return completion(message)
    calls = [{"index": i, **c} for i, c in enumerate(message.get("tool_calls", []))]
    pieces = [chunk({"role": "assistant", "content": message.get("content")})]
    if calls:
        pieces.append(chunk({"tool_calls": calls}))
    return Reply(chunks=[*pieces, chunk({}, finish="tool_calls" if calls else "stop"), DONE])


def _server(
    *,
    owned_by: str | None = None,
    listed: tuple[str, ...] = ("m",),
    native: Mapping[str, Any] = CALL,
    streamed: Mapping[str, Any] | None = None,
    prompt: Mapping[str, Any] = HERMES,
    headers: Mapping[str, str] | None = None,
    extra: Mapping[str, list[Reply]] | None = None,
) -> StreamServer:
    def chat(body: dict[str, Any]) -> Reply:
        if "tools" not in body:
            return _answer(prompt, body["stream"])
        if body["stream"] and streamed is not None:
            return _answer(streamed, True)
        return _answer(native, body["stream"])

    routes: dict[str, Any] = {
        "GET /v1/models": [models(*listed, owned_by=owned_by, **(headers or {}))],
        "POST /v1/chat/completions": chat,
        **(extra or {}),
    }
    return StreamServer(routes)


def _diagnose(spec: str, server: StreamServer, **settings: Any) -> Diagnosis:
    modes = settings.pop("modes", None)
    base = BackendSettings(base_url=server.openai_url, timeout=10, max_retries=0, **settings)
    return asyncio.run(diagnose(spec, settings=base, modes=modes))


def _check(diagnosis: Diagnosis, name: str) -> tuple[str, str]:
    found = [(c.outcome, c.detail) for c in diagnosis.checks if c.name == name]
    assert found, [c.name for c in diagnosis.checks]
    return found[0]


def _info(spec: str, server: StreamServer) -> ServerInfo:
    async def go() -> ServerInfo:
        backend = create_backend(spec, BackendSettings(base_url=server.openai_url))
        try:
            return await backend.server_info()
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_server_info_llama_server_props_slots_and_build() -> None:
    props = document({"total_slots": 4, "build_info": "b6000-abc123"})
    with _server(headers={"Server": "llama.cpp"}, extra={"GET /props": [props]}) as server:
        info = _info("llamacpp/m", server)
    assert info.parallel == 4
    assert info.identity["server"] == "llama-server"
    assert info.identity["server_version"] == "b6000-abc123"


def test_server_info_llama_server_slots_endpoint_when_no_props() -> None:
    slots = document([{"id": 0}, {"id": 1}])
    with _server(owned_by="llamacpp", extra={"GET /slots": [slots]}) as server:
        info = _info("openai/m", server)
    assert (info.identity["server"], info.parallel) == ("llama-server", 2)


def test_server_info_llama_cpp_python_is_one_at_a_time() -> None:
    with _server(owned_by="me") as server:
        info = _info("llamacpp/m", server)
        assert "GET /props" not in server.hits
    assert (info.identity["server"], info.parallel) == ("llama-cpp-python", 1)


@pytest.mark.parametrize(
    ("owned_by", "kind"), [("vllm", "vllm"), ("sglang", "sglang"), ("someone", None)]
)
def test_server_info_other_servers_do_not_say_parallel(owned_by: str, kind: str | None) -> None:
    with _server(owned_by=owned_by) as server:
        info = _info("openai/m", server)
    assert info.parallel is None
    assert info.identity.get("server") == kind


def test_doctor_llama_cpp_python_unlisted_name_is_a_warning_not_fail() -> None:
    with _server(owned_by="me", listed=("/models/qwen3-8b.gguf",)) as server:
        diagnosis = _diagnose("llamacpp/qwen3", server)
    outcome, detail = _check(diagnosis, "model listed")
    assert outcome == "warn"
    assert "--model_alias qwen3" in detail and "answers any name" in detail
    outcome, detail = _check(diagnosis, "server slots")
    assert outcome == "warn" and "--concurrency 1" in detail
    assert _check(diagnosis, "native tool-call probe")[0] == "ok"
    assert _check(diagnosis, "streaming agrees")[0] == "ok"
    assert all(c.outcome != "fail" for c in diagnosis.checks)
    assert (diagnosis.exit_code, diagnosis.verdict) == (0, "ready to run")


def test_doctor_llama_server_with_slots_recommends_concurrency() -> None:
    props = document({"total_slots": 2})
    with _server(owned_by="llamacpp", extra={"GET /props": [props]}) as server:
        diagnosis = _diagnose("llamacpp/m", server)
    assert _check(diagnosis, "server slots") == (
        "ok",
        "2 requests at once: use --concurrency 2 or less",
    )


def test_doctor_model_missing_fails_and_never_says_ready() -> None:
    with _server(owned_by="vllm", listed=("other",)) as server:
        diagnosis = _diagnose("vllm/m", server)
    assert _check(diagnosis, "model listed")[0] == "fail"
    assert "ready" not in diagnosis.verdict
    assert "FAIL" in diagnosis.verdict


@pytest.mark.parametrize(
    ("owned_by", "headers", "hint", "not_hint"),
    [
        ("llamacpp", None, "start llama-server with --jinja", "chatml-function-calling"),
        (None, {"Server": "llama.cpp"}, "start llama-server with --jinja", "chat_format"),
        ("me", None, "--chat_format chatml-function-calling", "--tool-call-parser"),
        ("vllm", None, "--tool-call-parser", "--jinja"),
    ],
    ids=["llama-server", "llama-server-header", "llama-cpp-python", "vllm"],
)
def test_doctor_text_call_hint_fits_the_server(
    owned_by: str | None, headers: dict[str, str] | None, hint: str, not_hint: str
) -> None:
    with _server(owned_by=owned_by, headers=headers, native=HERMES) as server:
        diagnosis = _diagnose("openai/m", server)
    outcome, detail = _check(diagnosis, "native tool-call probe")
    assert outcome == "warn"
    assert hint in detail and not_hint not in detail


def test_doctor_prose_from_llama_cpp_python_hints_tool_choice_auto() -> None:
    with _server(owned_by="me", native=PROSE) as server:
        diagnosis = _diagnose("llamacpp/m", server)
    outcome, detail = _check(diagnosis, "native tool-call probe")
    assert outcome == "fail"
    assert "ignores the tools unless tool_choice=auto" in detail
    assert "--option tool_choice=auto" in detail
    assert _check(diagnosis, "prompt tool-call probe")[0] == "ok"
    assert diagnosis.exit_code == 0
    assert "ready" not in diagnosis.verdict and "--mode prompt" in diagnosis.verdict


def test_doctor_options_reach_the_probes() -> None:
    with _server(owned_by="me", native=PROSE) as server:
        diagnosis = _diagnose("llamacpp/m", server, options={"tool_choice": "auto", "top_k": 1})
        bodies = server.bodies("/v1/chat/completions")
    assert all(b["tool_choice"] == "auto" and b["top_k"] == 1 for b in bodies)
    detail = _check(diagnosis, "native tool-call probe")[1]
    assert "try --option tool_choice=auto" not in detail
    assert "chatml-function-calling" in detail


def test_doctor_streamed_answer_losing_the_call_fails_with_both_answers() -> None:
    with _server(owned_by="llamacpp", streamed=PROSE) as server:
        diagnosis = _diagnose("llamacpp/m", server)
        streams = [b["stream"] for b in server.bodies("/v1/chat/completions")]
    assert streams[:2] == [True, False]
    outcome, detail = _check(diagnosis, "streaming agrees")
    assert outcome == "fail"
    assert "server bug worth reporting" in detail
    assert "streamed: no call, text 'It is sunny in Paris.'" in detail
    assert "not streamed: get_weather({'city': 'Paris'})" in detail
    assert "--option stream=false" in detail
    assert "ready" not in diagnosis.verdict


def test_doctor_streaming_disagreement_is_a_warning_when_not_streaming() -> None:
    with _server(owned_by="llamacpp", streamed=PROSE) as server:
        diagnosis = _diagnose("llamacpp/m", server, stream=False)
    outcome, detail = _check(diagnosis, "streaming agrees")
    assert outcome == "warn" and "not streamed: get_weather" in detail


def test_doctor_mode_restricts_the_probes() -> None:
    with _server(owned_by="llamacpp") as server:
        diagnosis = _diagnose("llamacpp/m", server, modes=("prompt",))
        bodies = server.bodies("/v1/chat/completions")
    names = [c.name for c in diagnosis.checks]
    assert "native tool-call probe" not in names
    assert names[-2:] == ["prompt tool-call probe", "streaming agrees"]
    assert all("tools" not in b for b in bodies)


def test_cli_doctor_passes_run_options() -> None:
    with _server(owned_by="llamacpp") as server:
        result = CliRunner().invoke(
            app,
            [
                "doctor",
                "--model",
                "llamacpp/m",
                "--base-url",
                server.openai_url,
                "--mode",
                "native",
                "--option",
                "tool_choice=auto",
                "--option",
                'stop=["</s>"]',
                "--max-tokens",
                "77",
                "--no-stream",
            ],
        )
        first = server.bodies("/v1/chat/completions")[0]
    assert result.exit_code == 0, result.output
    assert (first["tool_choice"], first["stop"], first["max_tokens"]) == ("auto", ["</s>"], 77)
    assert first["stream"] is False
    assert "prompt tool-call probe" not in result.output
    assert result.output.strip().endswith("llamacpp/m: ready to run"), result.output


def test_cli_doctor_fail_line_is_never_followed_by_ready() -> None:
    with _server(owned_by="vllm", listed=("other",)) as server:
        result = CliRunner().invoke(
            app, ["doctor", "--model", "vllm/m", "--base-url", server.openai_url]
        )
    assert "[FAIL] model listed" in result.output
    assert "ready" not in result.output.strip().splitlines()[-1]


def test_cli_doctor_bad_option_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["doctor", "--model", "openai/m", "--option", "novalue"])
    assert result.exit_code == 2
    assert json.dumps("novalue") in result.output or "KEY=VALUE" in result.output
