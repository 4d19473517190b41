"""Streamed answers (SSE and Ollama NDJSON) against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from backends.streamserver import (
    DONE,
    JSON,
    NDJSON,
    Reply,
    StreamServer,
    chunk,
    completion,
    document,
    sse,
)
from toolgrade.backends import BackendSettings, ChatReply, ChatRequest, create_backend
from toolgrade.errors import BackendError, BackendTimeout
from toolgrade.extract import extract_calls
from toolgrade.suite import ToolSpec

CHAT = "POST /v1/chat/completions"
OLLAMA = "POST /api/chat"
READ = ToolSpec(name="read_file", parameters={"type": "object"})
REQUEST = ChatRequest(
    case_id="TC-1", messages=({"role": "user", "content": "read a.md and b.md"},), tools=(READ,)
)
FAST = {"retry_base_delay": 0.01}
TWO_CALLS = [
    chunk({"role": "assistant", "content": None}),
    chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": ""},
                }
            ]
        }
    ),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": '}}]}),
    chunk(
        {
            "tool_calls": [
                {
                    "index": 1,
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path"'},
                }
            ]
        }
    ),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"a.md"}'}}]}),
    chunk({"tool_calls": [{"index": 1, "function": {"arguments": ': "b.md"}'}}]}),
    chunk({}, finish="tool_calls"),
    DONE,
]
TWO_CALLS_MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "a.md"}'},
        },
        {
            "id": "call_b",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "b.md"}'},
        },
    ],
}


def _ask(spec: str, server: StreamServer, **settings: Any) -> ChatReply:
    url = server.url if spec.startswith("ollama/") else server.openai_url

    async def go() -> ChatReply:
        backend = create_backend(spec, BackendSettings(base_url=url, **settings))
        try:
            return await backend.complete(REQUEST)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def _text_stream(*pieces: str, finish: str = "stop") -> list[bytes]:
    return [
        chunk({"role": "assistant", "content": ""}),
        *(chunk({"content": p}) for p in pieces),
        chunk({}, finish=finish),
        DONE,
    ]


def test_stream_content_assembled_with_identity_and_finish_reason() -> None:
    with StreamServer({CHAT: [Reply(chunks=_text_stream("Hel", "lo", " world"))]}) as server:
        reply = _ask("openai/test-model", server)
        body = server.bodies("/v1/chat/completions")[0]
    assert reply.raw == {"role": "assistant", "content": "Hello world"}
    assert reply.finish_reason == "stop"
    assert reply.identity == {"system_fingerprint": "fp_stream", "model": "test-model"}
    assert body["stream"] is True
    assert body["max_tokens"] == 1024


def test_stream_tool_calls_split_across_deltas_match_whole_answer() -> None:
    routes = {CHAT: [Reply(chunks=TWO_CALLS), completion(TWO_CALLS_MESSAGE, "tool_calls")]}
    with StreamServer(routes) as server:
        streamed = _ask("openai/m", server)
        whole = _ask("openai/m", server, stream=False)
    assert streamed.raw == TWO_CALLS_MESSAGE == whole.raw
    assert streamed.finish_reason == whole.finish_reason == "tool_calls"
    found = extract_calls(streamed.raw, tools=[READ])
    assert [c.arguments for c in found.calls] == [{"path": "a.md"}, {"path": "b.md"}]


def test_stream_tool_call_without_index_and_repeated_name() -> None:
    pieces = [
        chunk({"tool_calls": [{"id": "c1", "function": {"name": "read_file", "arguments": "{"}}]}),
        chunk({"tool_calls": [{"id": "c1", "function": {"name": "read_file", "arguments": "}"}}]}),
        chunk({"tool_calls": [{"id": "c2", "function": {"name": "read_file", "arguments": "{}"}}]}),
        chunk({}, finish="tool_calls"),
        DONE,
    ]
    with StreamServer({CHAT: [Reply(chunks=pieces)]}) as server:
        reply = _ask("openai/m", server)
    calls = reply.raw["tool_calls"]
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls] == [
        ("c1", "read_file", "{}"),
        ("c2", "read_file", "{}"),
    ]


def test_stream_reasoning_content_concatenated() -> None:
    pieces = [
        chunk({"role": "assistant", "reasoning_content": "Think"}),
        chunk({"reasoning_content": "ing..."}),
        chunk({"content": "Done."}),
        chunk({}, finish="stop"),
        DONE,
    ]
    with StreamServer({CHAT: [Reply(chunks=pieces)]}) as server:
        reply = _ask("openai/m", server)
    assert reply.raw == {
        "role": "assistant",
        "content": "Done.",
        "reasoning_content": "Thinking...",
    }


def test_stream_finish_reason_length_kept() -> None:
    with StreamServer({CHAT: [Reply(chunks=_text_stream("aaaa", finish="length"))]}) as server:
        reply = _ask("openai/m", server, max_tokens=4)
        assert server.bodies("/v1/chat/completions")[0]["max_tokens"] == 4
    assert reply.finish_reason == "length"


def test_stream_ttft_counts_first_token_not_role_chunk() -> None:
    with StreamServer({CHAT: [Reply(chunks=_text_stream("hi"), gap=0.05)]}) as server:
        reply = _ask("openai/m", server)
    assert reply.ttft_ms is not None and reply.latency_ms is not None
    assert 90.0 <= reply.ttft_ms <= reply.latency_ms


def test_stream_crlf_comments_and_split_bytes() -> None:
    raw = b"".join(_text_stream("a", "b")).replace(b"\n", b"\r\n")
    raw = b": ping - 2026-01-01\r\n\r\n" + raw
    pieces = [raw[i : i + 7] for i in range(0, len(raw), 7)]
    with StreamServer({CHAT: [Reply(chunks=pieces)]}) as server:
        reply = _ask("openai/m", server)
    assert reply.raw["content"] == "ab"


def test_stream_under_json_content_type_is_still_read() -> None:
    with StreamServer({CHAT: [Reply(chunks=_text_stream("x"), content_type=JSON)]}) as server:
        reply = _ask("openai/m", server)
    assert (reply.raw["content"], reply.finish_reason) == ("x", "stop")


def test_stream_requested_but_whole_answer_sent() -> None:
    with StreamServer({CHAT: [completion({"role": "assistant", "content": "ok"})]}) as server:
        reply = _ask("openai/m", server)
    assert reply.raw == {"role": "assistant", "content": "ok"}
    assert (reply.finish_reason, reply.ttft_ms) == ("stop", None)


def test_stream_without_finish_reason_is_reported_as_cut_off() -> None:
    pieces = [chunk({"role": "assistant", "content": "half"}), DONE]
    with (
        StreamServer({CHAT: [Reply(chunks=pieces)]}) as server,
        pytest.raises(BackendError, match=r"without a finish_reason.*--concurrency 1"),
    ):
        _ask("openai/m", server)


@pytest.mark.parametrize(
    "event",
    [
        sse({"error": {"message": "out of memory"}}),
        b'error: {"code": 500, "message": "out of memory"}\n\n',
        b'event: error\ndata: {"message": "out of memory"}\n\n',
    ],
    ids=["data-error", "llama-server-error-field", "error-event"],
)
def test_stream_error_event_reported(event: bytes) -> None:
    pieces = [chunk({"role": "assistant", "content": "a"}), event]
    with (
        StreamServer({CHAT: [Reply(chunks=pieces)]}) as server,
        pytest.raises(BackendError, match=r"error mid-stream.*out of memory"),
    ):
        _ask("openai/m", server)


def test_stream_malformed_event_reported() -> None:
    pieces = [b"data: {not json\n\n"]
    with (
        StreamServer({CHAT: [Reply(chunks=pieces)]}) as server,
        pytest.raises(BackendError, match="malformed stream event"),
    ):
        _ask("openai/m", server)


def test_stream_retries_5xx_and_429_before_first_byte() -> None:
    busy = document({"error": "busy"}, status=503)
    limited = Reply(status=429, body=b"{}", content_type=JSON, headers={"Retry-After": "0"})
    routes = {CHAT: [busy, limited, Reply(chunks=_text_stream("ok"))]}
    with StreamServer(routes) as server:
        reply = _ask("openai/m", server, **FAST)
        assert server.hits[CHAT] == 3
    assert reply.raw["content"] == "ok"


def test_stream_broken_midway_is_reported_not_retried() -> None:
    pieces = [chunk({"role": "assistant", "content": "par"})]
    routes = {CHAT: [Reply(chunks=pieces, drop_after=True), Reply(chunks=_text_stream("x"))]}
    with StreamServer(routes) as server:
        with pytest.raises(BackendError, match=r"stream broke after \d+ bytes"):
            _ask("openai/m", server, **FAST)
        assert server.hits[CHAT] == 1


def _endless() -> Reply:
    return Reply(
        chunks=[chunk({"role": "assistant", "content": "a"})], endless=chunk({"content": "a"})
    )


def test_stream_cancelled_task_closes_the_connection() -> None:
    with StreamServer({CHAT: [_endless()]}) as server:

        async def go() -> None:
            backend = create_backend("openai/m", BackendSettings(base_url=server.openai_url))
            task = asyncio.create_task(backend.complete(REQUEST))
            assert await asyncio.to_thread(server.started.wait, 5)
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await backend.aclose()

        asyncio.run(go())
        assert server.disconnected.wait(5), "the server kept streaming to nobody"


def test_stream_outer_timeout_closes_the_connection() -> None:
    with StreamServer({CHAT: [_endless()]}) as server:

        async def go() -> None:
            backend = create_backend("openai/m", BackendSettings(base_url=server.openai_url))
            try:
                with pytest.raises(TimeoutError):
                    async with asyncio.timeout(0.3):  # what the runner does per case
                        await backend.complete(REQUEST)
            finally:
                await backend.aclose()

        asyncio.run(go())
        assert server.disconnected.wait(5)


def test_stream_longer_than_timeout_is_cut_off() -> None:
    with StreamServer({CHAT: [_endless()]}) as server:
        with pytest.raises(BackendTimeout, match=r"took longer than 0\.3 s; stream closed"):
            _ask("openai/m", server, timeout=0.3)
        assert server.disconnected.wait(5)


def test_stream_larger_than_cap_is_cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("toolgrade.backends._stream.MAX_RESPONSE_BYTES", 4096)
    with StreamServer({CHAT: [_endless()]}) as server:
        with pytest.raises(BackendError, match="streamed answer larger than 4096 bytes"):
            _ask("openai/m", server)
        assert server.disconnected.wait(5)


def test_whole_body_larger_than_cap_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("toolgrade.backends._stream.MAX_RESPONSE_BYTES", 4096)
    big = completion({"role": "assistant", "content": "x" * 10_000})
    with (
        StreamServer({CHAT: [big]}) as server,
        pytest.raises(BackendError, match="response larger than 4096 bytes"),
    ):
        _ask("openai/m", server, stream=False)


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({}, {"max_tokens": 1024}),
        ({"options": {"max_tokens": 64}}, {"max_tokens": 64}),
        (
            {"max_tokens": 200, "options": {"max_completion_tokens": 64}},
            {"max_completion_tokens": 64},
        ),
        ({"max_tokens": None}, {}),
    ],
    ids=["default", "option-wins", "completion-tokens-option", "none"],
)
def test_openai_max_tokens_default_and_override(settings: dict, expected: dict) -> None:
    with StreamServer({CHAT: [Reply(chunks=_text_stream("x"))]}) as server:
        _ask("openai/m", server, **settings)
        body = server.bodies("/v1/chat/completions")[0]
    caps = {k: v for k, v in body.items() if k in ("max_tokens", "max_completion_tokens")}
    assert caps == expected


@pytest.mark.parametrize(
    "settings", [{"stream": False}, {"options": {"stream": False}}], ids=["setting", "option"]
)
def test_openai_streaming_can_be_turned_off(settings: dict) -> None:
    whole = completion({"role": "assistant", "content": "ok"}, finish="length")
    with StreamServer({CHAT: [whole]}) as server:
        reply = _ask("openai/m", server, **settings)
        body = server.bodies("/v1/chat/completions")[0]
    assert body["stream"] is False
    assert (reply.raw["content"], reply.finish_reason, reply.ttft_ms) == ("ok", "length", None)


def test_settings_validate_and_record_max_tokens_and_stream() -> None:
    from toolgrade.errors import ConfigError

    with pytest.raises(ConfigError, match="max_tokens"):
        BackendSettings(max_tokens=0)
    with pytest.raises(ConfigError, match="option stream"):
        BackendSettings(options={"stream": "no"})
    recorded = BackendSettings(options={"stream": False}).to_dict()
    assert (recorded["max_tokens"], recorded["stream"]) == (1024, False)


def _ndjson(*lines: dict[str, Any]) -> list[bytes]:
    return [json.dumps(line).encode() + b"\n" for line in lines]


def _ollama(content: str = "", **message: Any) -> dict[str, Any]:
    return {"model": "qwen3:8b", "message": {"role": "assistant", "content": content, **message}}


def test_ollama_stream_assembled_with_done_reason() -> None:
    call = {"function": {"name": "read_file", "arguments": {"path": "a.md"}}}
    lines = _ndjson(
        _ollama(thinking="Let me "),
        _ollama(thinking="see."),
        _ollama("I will "),
        _ollama("read it."),
        _ollama(tool_calls=[call]),
        {**_ollama(), "done": True, "done_reason": "length", "eval_count": 9},
    )
    with StreamServer({OLLAMA: [Reply(chunks=lines, content_type=NDJSON)]}) as server:
        reply = _ask("ollama/qwen3:8b", server)
        body = server.bodies("/api/chat")[0]
    assert reply.raw == {
        "role": "assistant",
        "content": "I will read it.",
        "thinking": "Let me see.",
        "tool_calls": [call],
    }
    assert (reply.finish_reason, reply.identity) == ("length", {"model": "qwen3:8b"})
    assert reply.ttft_ms is not None
    assert body["stream"] is True
    assert body["options"]["num_predict"] == 1024


def test_ollama_num_predict_option_wins_and_stream_option_stays_out() -> None:
    whole = document(
        {"model": "m", "message": {"role": "assistant", "content": "ok"}, "done": True}
    )
    with StreamServer({OLLAMA: [whole]}) as server:
        reply = _ask("ollama/m", server, options={"num_predict": 50, "stream": False})
        body = server.bodies("/api/chat")[0]
    assert body["stream"] is False
    assert body["options"] == {"temperature": 0.0, "num_predict": 50}
    assert reply.raw["content"] == "ok"


def test_ollama_stream_error_line_reported() -> None:
    lines = _ndjson(_ollama("a"), {"error": "model runner has unexpectedly stopped"})
    with (
        StreamServer({OLLAMA: [Reply(chunks=lines, content_type=NDJSON)]}) as server,
        pytest.raises(BackendError, match=r"error mid-stream.*unexpectedly stopped"),
    ):
        _ask("ollama/m", server)


def test_ollama_stream_without_done_reported() -> None:
    lines = _ndjson(_ollama("a"))
    with (
        StreamServer({OLLAMA: [Reply(chunks=lines, content_type=NDJSON)]}) as server,
        pytest.raises(BackendError, match="no `done`"),
    ):
        _ask("ollama/m", server)
