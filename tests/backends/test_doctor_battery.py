"""`doctor --battery` against the fake server: a clean server, calls left in content,
swallowed calls, a divergent stream; each probe asked streamed and whole."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from typer.testing import CliRunner

from runner.fakeserver import FakeServer, Step
from toolgrade.backends import BackendSettings, Diagnosis, adiagnose_backend
from toolgrade.backends._battery import BATTERY
from toolgrade.cli import app

_USERS = {probe.name: probe.user for probe in BATTERY}
_PARIS = {"name": "get_weather", "arguments": {"city": "Paris"}}
_TOKYO = {"name": "get_weather", "arguments": {"city": "Tokyo"}}
_MESSAGE = {
    "name": "send_message",
    "arguments": {
        "to": {"name": "José", "city": "Zürich"},
        "text": "Grüße aus Köln, 東京で会いましょう",
        "tags": ["urgent", "café"],
    },
}
_CALLS = {
    "one call": [_PARIS],
    "two parallel calls": [_PARIS, _TOKYO],
    "call after reasoning": [_PARIS],
    "nested, non-ASCII arguments": [_MESSAGE],
}
_HELLO = Step(content="Hello there!")


def _hermes(calls: list[dict[str, Any]]) -> str:
    import json

    return "\n".join(
        f"<tool_call>\n{json.dumps(c, ensure_ascii=False)}\n</tool_call>" for c in calls
    )


def _script(make: Any) -> dict[str, list[Step]]:
    script = {_USERS[name]: [make(name, calls)] for name, calls in _CALLS.items()}
    script[_USERS["no call"]] = [_HELLO]
    return script


CLEAN = _script(
    lambda name, calls: Step(
        calls=calls,
        reasoning="The capital of France is Paris." if name == "call after reasoning" else None,
        finish_reason="tool_calls",
    )
)
IN_CONTENT = _script(lambda name, calls: Step(content=_hermes(calls)))
SWALLOWED = _script(lambda name, calls: Step(calls=[], finish_reason="tool_calls"))
DIVERGENT = _script(
    lambda name, calls: Step(
        calls=calls,
        streamed=Step(calls=[{"name": c["name"], "arguments": {}} for c in calls]),
    )
)


def _diagnose(script: Mapping[str, list[Step]], spec: str = "openai/test-model") -> Diagnosis:
    with FakeServer(script, streams=True) as server:
        settings = BackendSettings(base_url=server.openai_url, timeout=10, max_retries=0)
        diagnosis = asyncio.run(
            adiagnose_backend(spec, settings=settings, modes=("native",), battery=True)
        )
        streams = [body.get("stream") for body in server.requests]
    assert streams.count(True) >= len(BATTERY) and streams.count(False) >= len(BATTERY)
    return diagnosis


def _lines(diagnosis: Diagnosis) -> dict[str, tuple[str, str]]:
    return {c.name: (c.outcome, c.detail) for c in diagnosis.checks}


def test_battery_on_a_clean_server_is_all_ok() -> None:
    diagnosis = _diagnose(CLEAN)
    lines = _lines(diagnosis)
    for probe in BATTERY:
        outcome, detail = lines[f"battery: {probe.name}"]
        assert outcome == "ok", detail
        assert detail.endswith(("; agree; calls right", "; agree; no call, as asked"))
    assert (
        lines["battery: one call"][1] == "streamed structured, whole structured; agree; calls right"
    )
    assert (
        lines["battery: no call"][1]
        == "streamed text_only, whole text_only; agree; no call, as asked"
    )
    assert lines["parser battery"] == ("ok", "5 of 5 probes served clean")
    assert diagnosis.exit_code == 0 and diagnosis.verdict == "ready to run"


def test_battery_names_the_parser_flag_for_calls_left_in_content() -> None:
    diagnosis = _diagnose(IN_CONTENT, spec="vllm/test-model")
    lines = _lines(diagnosis)
    fix = "start vLLM with --enable-auto-tool-choice --tool-call-parser hermes"
    for name in _CALLS:
        outcome, detail = lines[f"battery: {name}"]
        assert outcome == "fail"
        assert detail.startswith("streamed calls_in_text (hermes), whole calls_in_text (hermes)")
        assert detail.endswith(f"try: {fix}")
    assert lines["battery: no call"][0] == "ok"
    assert lines["parser battery"] == ("fail", f"1 of 5 probes served clean; try: {fix}")
    # The native probe still got its call (from the text): the exit code is unchanged,
    # but the verdict is not "ready".
    assert diagnosis.exit_code == 0
    assert "ready" not in diagnosis.verdict


def test_battery_on_a_server_swallowing_calls() -> None:
    diagnosis = _diagnose(SWALLOWED)
    lines = _lines(diagnosis)
    outcome, detail = lines["battery: one call"]
    assert outcome == "fail"
    assert detail.startswith("streamed empty, whole empty; agree; wrong: no call")
    assert "report the swallowed call" in detail
    assert lines["parser battery"][0] == "fail"
    assert diagnosis.exit_code == 1  # no probe got a call: as without the battery


def test_battery_on_a_divergent_stream() -> None:
    diagnosis = _diagnose(DIVERGENT)
    lines = _lines(diagnosis)
    outcome, detail = lines["battery: one call"]
    assert outcome == "fail"
    assert "diverge: streamed lost the argument `city`" in detail
    assert "; calls right; try: run with --no-stream" in detail
    assert lines["battery: no call"][0] == "ok"
    assert "run with --no-stream" in lines["parser battery"][1]


def test_battery_is_off_by_default() -> None:
    with FakeServer(CLEAN, streams=True) as server:
        settings = BackendSettings(base_url=server.openai_url, timeout=10, max_retries=0)
        diagnosis = asyncio.run(
            adiagnose_backend("openai/test-model", settings=settings, modes=("native",))
        )
        asked = len(server.requests)
    assert not any("battery" in c.name for c in diagnosis.checks)
    assert asked == 2  # the probe, and the probe with streaming switched


@pytest.mark.parametrize(("script", "code"), [(CLEAN, 0), (IN_CONTENT, 0), (SWALLOWED, 1)])
def test_cli_doctor_battery_prints_a_line_per_probe(
    script: Mapping[str, list[Step]], code: int
) -> None:
    with FakeServer(script, streams=True) as server:
        command = [
            "doctor", "--model", "vllm/test-model", "--base-url", server.openai_url,
            "--mode", "native", "--battery",
        ]  # fmt: skip
        result = CliRunner().invoke(app, command)
    assert result.exit_code == code, result.output
    lines = result.output.splitlines()
    battery = [line for line in lines if "battery" in line]
    assert len(battery) == len(BATTERY) + 1
    assert battery[-1].startswith(("[ok  ] parser battery: ", "[FAIL] parser battery: "))
