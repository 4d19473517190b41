"""A result's serving verdict, the accuracy as served, and the real recorded runs."""

from __future__ import annotations

import json

import pytest

from runner.real_recordings import RECORDINGS, modes, recorded, replayed
from toolgrade._core.json_data import JsonValue
from toolgrade.metrics import compute_metrics, run_is_native
from toolgrade.results import CaseResult
from toolgrade.serving import (
    STRUCTURED_FORMATS,
    Answer,
    ServingClass,
    classify_answer,
    delivered,
    parser_hint,
    server_of,
    serving_verdict,
)

READ = {"name": "read_file", "arguments": {"path": "a"}}
HERMES = '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>'
STRUCTURED = {
    "role": "assistant",
    "tool_calls": [
        {
            "id": "1",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "a"}'},
        }
    ],
}


def _case(
    case_id: str, status: str, raw: JsonValue, fmt: str, **fields: object
) -> dict[str, object]:
    calls = [READ] if fmt != "none" else []
    return {
        "case_id": case_id,
        "status": status,
        "raw_response": raw,
        "extraction_format": fmt,
        "actual": calls,
        **fields,
    }


def _step(raw: JsonValue, fmt: str, **fields: object) -> dict[str, object]:
    calls = [READ] if fmt != "none" else []
    return {"raw_response": raw, "extraction_format": fmt, "calls": calls, **fields}


def _conversation(*turns: list[dict[str, object]], status: str = "correct") -> CaseResult:
    record = {
        "turns": [
            {"index": i, "user": f"turn {i + 1}", "steps": steps} for i, steps in enumerate(turns)
        ],
        "total_turns": len(turns),
        "passed": status == "correct",
    }
    return CaseResult.model_validate(
        {"case_id": "conv", "status": status, "score": 1.0, "conversation": record}
    )


def test_a_conversation_is_classed_by_its_first_faulty_step() -> None:
    text = {"role": "assistant", "content": HERMES}
    result = _conversation(
        [_step(STRUCTURED, "openai"), _step({"role": "assistant", "content": "done"}, "none")],
        [_step(text, "hermes"), _step({"role": "assistant", "content": ""}, "none")],
    )
    verdict = serving_verdict(result)
    assert verdict.kind is ServingClass.CALLS_IN_TEXT
    assert verdict.where == "turn 2, step 1"
    assert verdict.to_dict()["where"] == "turn 2, step 1"
    assert not delivered(result)
    assert delivered(result, native=False)


def test_a_clean_conversation_with_any_call_is_structured() -> None:
    result = _conversation(
        [_step({"role": "assistant", "content": "hello"}, "none")], [_step(STRUCTURED, "openai")]
    )
    assert serving_verdict(result).kind is ServingClass.STRUCTURED
    assert delivered(result)


def test_a_failed_step_is_no_answer() -> None:
    result = _conversation(
        [_step(STRUCTURED, "openai"), _step(None, "none", error="HTTP 500")], status="error"
    )
    verdict = serving_verdict(result)
    assert (verdict.kind, verdict.where, verdict.detail) == (
        ServingClass.REQUEST_FAILED,
        "turn 1, step 2",
        "HTTP 500",
    )


def test_a_timeout_without_answer_is_no_answer() -> None:
    result = CaseResult.model_validate(
        {"case_id": "t", "status": "timeout", "score": 0.0, "error": "took over 60 s"}
    )
    assert serving_verdict(result).kind is ServingClass.REQUEST_FAILED


def test_accuracy_as_served_counts_only_calls_that_reached_the_client(make_run) -> None:
    rows = [
        _case("a", "correct", STRUCTURED, "openai"),
        _case("b", "correct", {"role": "assistant", "content": HERMES}, "hermes"),
        _case("c", "correct", {"role": "assistant", "content": "no call needed"}, "none"),
        _case("d", "wrong_args", {"role": "assistant", "content": HERMES}, "hermes"),
        _case("e", "missed_call", {"role": "assistant", "content": ""}, "none"),
        {"case_id": "f", "status": "error", "error": "HTTP 502"},
    ]
    run = make_run(rows, server={"server": "vllm"}, model="openai/qwen")
    metrics = compute_metrics(run)
    serving = metrics.serving
    assert serving is not None
    assert (metrics.accuracy.passed, metrics.accuracy.n) == (3, 5)
    assert (serving.as_served.passed, serving.as_served.n) == (2, 5)
    assert (serving.lost.passed, serving.lost.n) == (1, 5)
    assert serving.differs
    assert serving.counts["calls_in_text"] == 2
    assert serving.counts["empty"] == serving.counts["request_failed"] == 1
    assert serving.faults == 4
    assert serving.examples["calls_in_text"] == ("b", "d")
    assert serving.formats_in_text == {"hermes": 2}
    assert serving.hint == "start vLLM with --enable-auto-tool-choice --tool-call-parser hermes"
    assert serving.shares["calls_in_text"].passed == 2
    assert serving.shares["calls_in_text"].n == 6
    data = json.loads(json.dumps(metrics.to_dict()))
    assert data["serving"]["as_served"]["passed"] == 2


def test_prompt_mode_serves_what_the_model_said(make_run) -> None:
    rows = [_case("a", "correct", {"role": "assistant", "content": HERMES}, "hermes")]
    serving = compute_metrics(make_run(rows, backend={"mode": "prompt"})).serving
    assert serving is not None
    assert not serving.native
    assert not serving.differs
    assert serving.counts["prompted"] == 1


def test_the_mode_a_run_recorded() -> None:
    assert run_is_native({"mode": "native"}) and run_is_native({})
    assert not run_is_native({"mode": "prompt"})


def test_server_and_hints() -> None:
    assert server_of({"server": "sglang"}, "openai/x") == "sglang"
    assert server_of({}, "llamacpp/x") == "llama-server"
    assert parser_hint("hermes", "sglang") == "start SGLang with --tool-call-parser qwen"
    assert parser_hint("hermes", "") == (
        "the server's tool-call parser for this format: vLLM --tool-call-parser hermes;"
        " SGLang --tool-call-parser qwen"
    )
    assert parser_hint("none", "vllm") is None
    for server in ("", "vllm", "llama-cpp-python", "ollama"):
        assert "--mode prompt" in str(parser_hint("fenced_json", server)), server
    assert "llama-server --jinja" in str(parser_hint("hermes", "llama-cpp-python"))
    assert parser_hint("hermes", "llama-server") == "start llama-server with --jinja"
    assert "--no-stream" not in str(parser_hint("call_prefix", "llama-cpp-python"))


@pytest.mark.parametrize("model", sorted(RECORDINGS))
def test_recorded_native_runs_are_classed_from_what_the_server_sent(model: str) -> None:
    """Every native answer whose calls came from text is `calls_in_text`; structured
    answers are never a text class; and as served never beats the model."""
    for mode in modes(model):
        run = replayed(model, mode)
        native = run_is_native(run.backend)
        for result in run.results:
            verdict = serving_verdict(result, native=native)
            fmt = result.extraction_format
            if result.conversation is not None:
                _check_steps(result, native=native)
                continue
            if not native:
                assert verdict.kind not in (
                    ServingClass.CALLS_IN_TEXT,
                    ServingClass.STRUCTURED,
                ), result.case_id
            elif fmt in STRUCTURED_FORMATS:
                assert verdict.kind in (
                    ServingClass.STRUCTURED,
                    ServingClass.MALFORMED_CALL,
                    ServingClass.TRUNCATED,
                ), result.case_id
            elif (fmt not in (None, "none") or result.extraction_errors) and isinstance(
                result.raw_response, dict
            ):
                assert verdict.kind is ServingClass.CALLS_IN_TEXT, result.case_id
        metrics = compute_metrics(run)
        assert metrics.serving is not None
        assert metrics.serving.as_served.passed <= metrics.accuracy.passed
        assert (
            metrics.serving.as_served.passed + metrics.serving.lost.passed
            == metrics.accuracy.passed
        )


def _check_steps(result: CaseResult, *, native: bool) -> None:
    assert result.conversation is not None
    for turn in result.conversation.turns:
        for step in turn.steps:
            found = Answer(
                step.raw_response,
                step.extraction_format,
                step.extraction_errors,
                step.finish_reason,
                step.error,
                len(step.calls),
            )
            kind = classify_answer(found, native=native).kind
            from_text = step.extraction_format not in (None, "none", *STRUCTURED_FORMATS)
            if native and from_text and isinstance(step.raw_response, dict):
                assert kind is ServingClass.CALLS_IN_TEXT, result.case_id
            if not native:
                assert kind is not ServingClass.CALLS_IN_TEXT, result.case_id


def test_the_qwen_recording_as_served() -> None:
    """Qwen2.5-Coder on llama-cpp-python's GGUF template: every call in fenced JSON."""
    assert "GGUF template" in str(recorded("qwen2.5-coder-0.5b")["server"])
    serving = compute_metrics(replayed("qwen2.5-coder-0.5b", "native")).serving
    assert serving is not None
    assert serving.counts["calls_in_text"] == 74
    assert serving.counts["structured"] == 0
    assert serving.formats_in_text == {"fenced_json": 69, "json": 5}
    assert (serving.as_served.passed, serving.lost.passed) == (6, 17)
    assert serving.lost_examples == ("TC-001", "TC-004", "TC-005", "TC-007", "TC-008")


def test_the_chatml_function_calling_recording() -> None:
    """llama-cpp-python's chatml-function-calling handler, tool_choice=auto: a message may
    hold only a function's name (`functions.NAME:`); a call, streamed, ends the stream
    with no answer ("Automatic streaming tool choice is not supported"), and whole comes
    as structured `tool_calls`."""
    model = "qwen2.5-coder-0.5b-chatml"
    streamed = {r.case_id: serving_verdict(r) for r in replayed(model, "native").results}
    whole = {r.case_id: serving_verdict(r) for r in replayed(model, "native-whole").results}
    calls = sorted(c for c, v in whole.items() if v.kind is ServingClass.STRUCTURED)
    assert calls == ["TC-015", "TC-057"]
    assert all(streamed[c].kind is ServingClass.REQUEST_FAILED for c in calls)
    rest = {c: v for c, v in streamed.items() if c not in calls}
    assert {v.kind for v in rest.values()} == {ServingClass.CALLS_IN_TEXT}
    assert {v.fmt for v in rest.values()} == {"call_prefix"}
    assert all(whole[c].kind is ServingClass.CALLS_IN_TEXT for c in rest)
    serving = compute_metrics(replayed(model, "native-whole")).serving
    assert serving is not None
    assert serving.formats_in_text == {"call_prefix": 83}
