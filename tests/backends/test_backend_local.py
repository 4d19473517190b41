"""Replay and python backends, the registry, names on the wire, retry timing."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from toolgrade.backends import (
    BackendSettings,
    ChatRequest,
    NameMap,
    RetryPolicy,
    create_backend,
    parse_model_spec,
    parse_retry_after,
    register_backend,
    safe_tool_name,
)
from toolgrade.backends._wire import ollama_messages, openai_messages
from toolgrade.errors import BackendError, ConfigError, InputError
from toolgrade.suite import ToolSpec


def _ask(spec: str, case_id: str = "TC-1", repeat: int = 0) -> Any:
    async def go() -> Any:
        backend = create_backend(spec)
        try:
            request = ChatRequest(
                case_id=case_id,
                messages=({"role": "user", "content": "hi"},),
                tools=(ToolSpec(name="read_file"),),
                repeat=repeat,
            )
            return await backend.complete(request)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def _write(path: Path, rows: list[object]) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


def test_replay_output_and_message_lines(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "r.jsonl",
        [
            {"case_id": "TC-1", "output": "<tool_call>{}</tool_call>", "latency_ms": 12.5},
            {"case_id": "TC-2", "message": {"role": "assistant", "content": "no"}, "note": "x"},
        ],
    )
    first = _ask(f"replay/{file}")
    second = _ask(f"replay/{file}", "TC-2")
    assert (first.raw, first.latency_ms) == ("<tool_call>{}</tool_call>", 12.5)
    assert second.raw == {"role": "assistant", "content": "no"}


def test_replay_keeps_finish_reason_and_ttft(tmp_path: Path) -> None:
    line = {"case_id": "TC-1", "output": "<tool", "finish_reason": "length", "ttft_ms": 80.0}
    reply = _ask(f"replay/{_write(tmp_path / 'r.jsonl', [line])}")
    assert (reply.finish_reason, reply.ttft_ms) == ("length", 80.0)


def test_replay_missing_case_is_an_error_reply(tmp_path: Path) -> None:
    file = _write(tmp_path / "r.jsonl", [{"case_id": "TC-1", "output": "x"}])
    assert _ask(f"replay/{file}", "TC-9").error == "no recorded response"


def test_replay_recorded_error_and_repeats(tmp_path: Path) -> None:
    file = _write(
        tmp_path / "r.jsonl",
        [
            {"case_id": "TC-1", "output": "a"},
            {"case_id": "TC-1", "output": "b"},
            {"case_id": "TC-2", "error": "server crashed"},
        ],
    )
    assert _ask(f"replay/{file}", "TC-1", repeat=1).raw == "b"
    assert _ask(f"replay/{file}", "TC-2").error == "server crashed"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"case_id": "TC-1"}', "give 'output', 'message' or 'error'"),
        ('{"case_id": "TC-1", "output": "a", "extra": 1}', "extra"),
        ("not json", "line 2"),
    ],
)
def test_replay_bad_line_names_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"case_id": "TC-0", "output": "x"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2") as info:
        create_backend(f"replay/{path}")
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_replay_missing_file_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        create_backend(f"replay/{tmp_path / 'nope.jsonl'}")


@pytest.fixture
def agent_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "fake_agent_mod.py").write_text(
        "import asyncio\n"
        "def calls(messages, tools):\n"
        "    return [{'name': tools[0]['function']['name'], 'arguments': {'n': len(messages)}}]\n"
        "async def message(messages, tools):\n"
        "    await asyncio.sleep(0)\n"
        "    return {'role': 'assistant', 'content': 'plain answer'}\n"
        "def boom(messages, tools):\n"
        "    raise RuntimeError('agent broke')\n"
        "def weird(messages, tools):\n"
        "    return 42\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "fake_agent_mod"
    sys.modules.pop("fake_agent_mod", None)


def test_python_sync_list_of_calls(agent_module: str) -> None:
    raw = _ask(f"python/{agent_module}:calls").raw
    call = raw["tool_calls"][0]["function"]
    assert (call["name"], json.loads(call["arguments"])) == ("read_file", {"n": 1})


def test_python_async_message(agent_module: str) -> None:
    assert _ask(f"python/{agent_module}:message").raw["content"] == "plain answer"


@pytest.mark.parametrize(("fn", "message"), [("boom", "agent broke"), ("weird", "returned int")])
def test_python_failures_are_backend_errors(agent_module: str, fn: str, message: str) -> None:
    with pytest.raises(BackendError, match=message):
        _ask(f"python/{agent_module}:{fn}")


@pytest.mark.parametrize(
    "spec", ["python/no_such_module_xyz:f", "python/json", "python/json:no_such_attr"]
)
def test_python_bad_target_is_config_error(spec: str) -> None:
    with pytest.raises(ConfigError):
        create_backend(spec)


@pytest.mark.parametrize("spec", ["qwen3", "nope/model", "ollama/", "/x"])
def test_parse_model_spec_rejects_bad_specs(spec: str) -> None:
    with pytest.raises(ConfigError):
        parse_model_spec(spec)


def test_register_backend_adds_a_provider() -> None:
    made: list[str] = []

    def factory(model: str, settings: BackendSettings) -> Any:
        made.append(model)
        return object()

    register_backend("custom-test", factory)
    create_backend("custom-test/abc")
    assert made == ["abc"]
    with pytest.raises(ConfigError):
        register_backend("bad name!", factory)


@pytest.mark.parametrize(
    ("name", "safe"), [("uber.ride", "uber_ride"), ("a b/c", "a_b_c"), ("ok-name_1", "ok-name_1")]
)
def test_safe_tool_name(name: str, safe: str) -> None:
    assert safe_tool_name(name) == safe


def test_name_map_round_trip_and_collisions() -> None:
    names = NameMap.build(["uber.ride", "uber_ride", "read_file"])
    assert names.server_name("read_file") == "read_file"
    assert names.server_name("uber_ride") == "uber_ride"
    sent = names.server_name("uber.ride")
    assert sent not in ("uber.ride", "uber_ride")
    assert names.suite_name(sent) == "uber.ride"
    assert names.suite_name("uber_ride") == "uber_ride"


def test_name_map_disabled_still_maps_safe_aliases_back() -> None:
    names = NameMap.build(["uber.ride"], enabled=False)
    assert names.server_name("uber.ride") == "uber.ride"
    assert names.suite_name("uber_ride") == "uber.ride"


def test_wire_messages_convert_earlier_calls() -> None:
    messages = (
        {"role": "user", "content": "read it"},
        {"role": "assistant", "tool_calls": [{"name": "read_file", "arguments": {"path": "a"}}]},
        {"role": "tool", "content": "text of a", "name": "read_file", "tool_call_id": "c1"},
    )
    oa = openai_messages(messages, tools=(), prompt_mode=False)
    assert oa[1]["tool_calls"][0]["function"] == {"name": "read_file", "arguments": '{"path": "a"}'}
    ol = ollama_messages(messages, tools=(), prompt_mode=False)
    assert ol[1]["tool_calls"][0]["function"]["arguments"] == {"path": "a"}
    assert ol[2]["tool_name"] == "read_file"
    prompt = openai_messages(messages, tools=(ToolSpec(name="read_file"),), prompt_mode=True)
    assert [m["role"] for m in prompt] == ["system", "user", "assistant", "user"]
    assert "<tool_call>" in prompt[2]["content"]
    assert "<tool_response>" in prompt[3]["content"]


def test_retry_policy_backoff_grows_with_jitter() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0)
    rng = random.Random(0)
    delays = [policy.delay(n, rng, retry_after=None) for n in range(5)]
    for n, delay in enumerate(delays):
        cap = min(5.0, 2.0**n)
        assert cap / 2 <= delay <= cap
    assert policy.delay(0, rng, retry_after=60) == 5.0


def test_parse_retry_after_http_date() -> None:
    now = datetime(2026, 1, 1, 0, 0, 0, tzinfo=UTC)
    assert parse_retry_after("Thu, 01 Jan 2026 00:00:03 GMT", now=now) == 3.0
    assert parse_retry_after(None) is None


def _replay_error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        create_backend(f"replay/{path}")
    assert str(path) in str(info.value)
    return str(info.value)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"case_id": "TC-1", "output": "x", "latency_ms": NaN}', "$.latency_ms: NaN is not"),
        ('{"case_id": "TC-1", "message": {"n": 1e999}}', "$.message.n: 1e999 is out of range"),
        ('{"case_id": "TC-1", "message": {"n": ' + "7" * 5000 + "}}", "integer of 5000 digits"),
        ('{"case_id": "TC-1", "output": "x", "output": "y"}', "duplicate key 'output'"),
        ('{"case_id": "TC-1", "output": "x", "repeat": -1}', "repeat: Input should be greater"),
        (b'{"case_id": "TC-1", "output": "\xff"}', "not UTF-8 text (byte 31)"),
    ],
)
def test_replay_strict_line_names_line_and_path(
    tmp_path: Path, line: str | bytes, message: str
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b'{"case_id": "TC-0", "output": "x"}\n'
        + (line if isinstance(line, bytes) else line.encode())
    )
    text = _replay_error(path)
    assert "line 2" in text and message in text


def test_replay_line_separator_inside_a_string_is_not_a_new_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"case_id": "TC-1", "output": "a\u2028b\u0085c"}\n', encoding="utf-8")
    assert _ask(f"replay/{path}").raw == "a\u2028b\u0085c"


def test_replay_line_over_live_answer_bound_is_refused(tmp_path: Path) -> None:
    from toolgrade.backends._stream import MAX_RESPONSE_BYTES

    path = tmp_path / "r.jsonl"
    filler = "x" * (MAX_RESPONSE_BYTES - 20)
    path.write_text(f'{{"case_id": "TC-1", "output": "{filler}"}}\n', encoding="utf-8")
    text = _replay_error(path)
    size = len(f'{{"case_id": "TC-1", "output": "{filler}"}}')
    assert f"line 1: a line of {size} bytes, over {MAX_RESPONSE_BYTES}" in text


def test_replay_file_over_bound_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolgrade.backends import _replay

    monkeypatch.setattr(_replay, "MAX_RESPONSES_FILE_BYTES", 100)
    path = Path(
        _write(tmp_path / "r.jsonl", [{"case_id": f"TC-{i}", "output": "x"} for i in range(9)])
    )
    assert "larger than 100 bytes" in _replay_error(path)


def test_replay_second_answer_to_one_repeat_names_both_lines(tmp_path: Path) -> None:
    rows = [
        {"case_id": "TC-1", "output": "a", "repeat": 0},
        {"case_id": "TC-2", "output": "b", "repeat": 0},
        {"case_id": "TC-1", "output": "c", "repeat": 0},
    ]
    text = _replay_error(Path(_write(tmp_path / "r.jsonl", rows)))
    assert "line 3: a second answer to case 'TC-1' repeat 0 (first at line 1)" in text


def test_replay_repeat_on_some_lines_of_a_case_only_is_refused(tmp_path: Path) -> None:
    rows = [{"case_id": "TC-1", "output": "a"}, {"case_id": "TC-1", "output": "b", "repeat": 1}]
    text = _replay_error(Path(_write(tmp_path / "r.jsonl", rows)))
    assert "line 2: case 'TC-1': give 'repeat' on every line of a case or on none" in text


def test_replay_repeat_counts_from_zero_and_never_falls_back(tmp_path: Path) -> None:
    rows = [
        {"case_id": "TC-1", "output": "second", "repeat": 1},
        {"case_id": "TC-1", "output": "first", "repeat": 0},
    ]
    file = _write(tmp_path / "r.jsonl", rows)
    assert _ask(f"replay/{file}", repeat=0).raw == "first"
    assert _ask(f"replay/{file}", repeat=1).raw == "second"
    reply = _ask(f"replay/{file}", repeat=2)
    assert reply.raw is None
    assert reply.error == "no recorded response for repeat 2 (lines 1, 2 give repeat 1, 0)"


def test_replay_lines_without_repeat_answer_in_order_only(tmp_path: Path) -> None:
    file = _write(tmp_path / "r.jsonl", [{"case_id": "TC-1", "output": "a"}])
    assert _ask(f"replay/{file}", repeat=0).raw == "a"
    reply = _ask(f"replay/{file}", repeat=1)
    assert reply.raw is None and reply.error is not None
    assert "no recorded response for repeat 1" in reply.error and "(lines 1)" in reply.error
