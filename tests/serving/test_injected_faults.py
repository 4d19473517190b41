"""Each serving fault injected by a fake server on 127.0.0.1, streamed and whole.

One suite, one case per class; the fake server answers each case's prompt with the
fault (`FAULTS`), and a real `run_suite` runs it twice: asking for streamed answers
(the server sends server-sent events, cut as `stream_deltas` or as the step's own
`chunks`) and for whole ones. Every result must get its class from `serving_verdict`,
and the clean cases a clean class.

Truncated arguments (`finish_reason: length`, the JSON of the arguments cut short) are
`malformed_call`, not `truncated`: what the client receives is a structured call whose
arguments do not parse, which it cannot use any more than any other malformed call;
`truncated` is kept for answers cut at the limit whose calls (if any) still parse. The
detail names the parse error; the finish reason (kept with the result) says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

import toolgrade
from runner.fakeserver import FakeServer, Step
from toolgrade.serving import ServingClass, serving_verdict

_READ = {"name": "read_file", "arguments": {"path": "README.md"}}
_HERMES = '<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>'


def _call(index: int, **fields: Any) -> dict[str, Any]:
    return {"tool_calls": [{"index": index, **fields}]}


def _args(index: int, piece: str) -> dict[str, Any]:
    return _call(index, function={"arguments": piece})


# Two calls interleaved by index, arguments cut at odd places (inside a key, a string,
# an escape), several tokens per delta and pieces of both calls in one delta (as
# speculative decoding sends them), the second call's first delta carrying id, name and
# arguments at once, the id and name repeated in a later delta.
_CHUNKED = [
    {"role": "assistant", "content": None},
    _call(0, id="call_a", type="function", function={"name": "read_file", "arguments": ""}),
    _args(0, '{"pa'),
    _call(1, id="call_b", type="function", function={"name": "search", "arguments": '{"pat'}),
    {
        "tool_calls": [
            {"index": 0, "function": {"arguments": 'th": "README'}},
            {"index": 1, "function": {"arguments": 'tern": "a\\'}},
        ]
    },
    _call(1, id="call_b", function={"name": "search", "arguments": '"b'}),
    _args(0, '.md"}'),
    {"tool_calls": [{"index": 1, "function": {"arguments": '"}'}}]},
]

SUITE = toolgrade.Suite.model_validate(
    {
        "name": "injected",
        "version": "1",
        "tools": [
            {
                "name": "read_file",
                "description": "Read a file",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            },
            {
                "name": "search",
                "description": "Search the code",
                "parameters": {
                    "type": "object",
                    "properties": {"pattern": {"type": "string"}},
                    "required": ["pattern"],
                },
            },
        ],
        "cases": [
            {"id": "structured", "prompt": "read the readme", "expected": _READ},
            {"id": "text", "prompt": "say hello", "expected": None},
            {
                "id": "chunked",
                "prompt": "read and search",
                "expected": [
                    _READ,
                    {"name": "search", "arguments": {"pattern": 'a"b'}},
                ],
            },
            {"id": "swallowed", "prompt": "swallow it", "expected": _READ},
            {"id": "in-text", "prompt": "hermes in content", "expected": _READ},
            {"id": "in-reasoning", "prompt": "think it", "expected": _READ},
            {"id": "not-json", "prompt": "bad arguments", "expected": _READ},
            {"id": "shared-id", "prompt": "one id twice", "expected": [_READ, _READ]},
            {"id": "cut-args", "prompt": "cut arguments", "expected": _READ},
            {"id": "cut-text", "prompt": "cut text", "expected": None},
            {"id": "status-500", "prompt": "fail with 500", "expected": _READ},
            {"id": "dropped", "prompt": "drop the line", "expected": _READ},
        ],
    }
)

SCRIPT: Mapping[str, list[Step]] = {
    "read the readme": [Step(calls=[_READ])],
    "say hello": [Step(content="Hello! How can I help?")],
    "read and search": [
        Step(
            calls=[_READ, {"name": "search", "arguments": {"pattern": 'a"b'}}],
            chunks=_CHUNKED,
            finish_reason="tool_calls",
        )
    ],
    "swallow it": [Step(calls=[], content=None, finish_reason="tool_calls")],
    "hermes in content": [Step(content=_HERMES)],
    "think it": [Step(content="", reasoning=f"I should read it.\n{_HERMES}")],
    "bad arguments": [Step(calls=[{"name": "read_file", "arguments": "path=README.md"}])],
    "one id twice": [Step(calls=[{**_READ, "id": "call_x"}, {**_READ, "id": "call_x"}])],
    "cut arguments": [
        Step(calls=[{"name": "read_file", "arguments": '{"path": "READ'}], finish_reason="length")
    ],
    "cut text": [Step(content="Let me think about which file to rea", finish_reason="length")],
    "fail with 500": [Step(status=500)],
    # Whole: the connection closes before any answer; streamed: after two events.
    "drop the line": [Step(calls=[_READ], drop=True, streamed=Step(calls=[_READ], drop_after=2))],
}

EXPECTED: Mapping[str, ServingClass] = {
    "structured": ServingClass.STRUCTURED,
    "text": ServingClass.TEXT_ONLY,
    "chunked": ServingClass.STRUCTURED,
    "swallowed": ServingClass.EMPTY,
    "in-text": ServingClass.CALLS_IN_TEXT,
    "in-reasoning": ServingClass.CALLS_IN_REASONING,
    "not-json": ServingClass.MALFORMED_CALL,
    "shared-id": ServingClass.MALFORMED_CALL,
    "cut-args": ServingClass.MALFORMED_CALL,
    "cut-text": ServingClass.TRUNCATED,
    "status-500": ServingClass.REQUEST_FAILED,
    "dropped": ServingClass.REQUEST_FAILED,
}


@pytest.fixture(scope="module")
def runs() -> dict[bool, tuple[toolgrade.RunResult, list[dict[str, Any]]]]:
    """The suite run streamed and whole against the faulty server (one run each)."""
    out = {}
    for stream in (True, False):
        with FakeServer(SCRIPT, streams=True) as server:
            options = toolgrade.RunOptions(
                timeout=5.0,
                concurrency=4,
                max_retries=0,
                persist=False,
                warmup=False,
                stream=stream,
                base_url=server.openai_url,
            )
            run = toolgrade.run_suite(
                SUITE, "openai/test-model", options=options, handle_signals=False
            )
            out[stream] = (run, list(server.requests))
    return out


def _result(run: toolgrade.RunResult, case_id: str) -> toolgrade.CaseResult:
    return next(r for r in run.results if r.case_id == case_id)


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("case_id", list(EXPECTED))
def test_each_injected_class_is_detected(runs: dict, case_id: str, stream: bool) -> None:
    run, requests = runs[stream]
    assert {r.get("stream", False) for r in requests} == {stream}
    result = _result(run, case_id)
    verdict = serving_verdict(result)
    assert verdict.kind is EXPECTED[case_id], (verdict, result.raw_response, result.error)
    if verdict.kind.clean:
        assert result.status is toolgrade.Status.CORRECT, result


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_fault_details_name_what_was_found(runs: dict, stream: bool) -> None:
    run, _ = runs[stream]
    detail = {r.case_id: serving_verdict(r) for r in run.results}
    assert detail["in-text"].fmt == "hermes"
    assert detail["in-reasoning"].fmt == "hermes"
    assert "call_x" in detail["shared-id"].detail
    assert "not valid JSON" in detail["cut-args"].detail
    assert _result(run, "cut-args").finish_reason == "length"
    assert detail["swallowed"].detail == "no call and no text came back"


def test_chunked_multi_call_deltas_assemble_as_the_whole_answer(runs: dict) -> None:
    streamed, _ = runs[True]
    whole, _ = runs[False]
    one, other = _result(streamed, "chunked"), _result(whole, "chunked")
    assert one.actual == other.actual
    assert [c.arguments for c in one.actual] == [{"path": "README.md"}, {"pattern": 'a"b'}]
    calls = one.raw_response["tool_calls"]  # type: ignore[index]
    assert [c["id"] for c in calls] == ["call_a", "call_b"]
    assert one.ttft_ms is not None and other.ttft_ms is None
