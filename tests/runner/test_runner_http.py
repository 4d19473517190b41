"""The runner against a real scripted server: every behaviour, both APIs, the run record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolgrade
from runner import scripted
from runner.fakeserver import FakeServer, Step

STRUCTURED = {"openai": "openai", "ollama": "ollama"}


def _options(**changes: object) -> toolgrade.RunOptions:
    base: dict[str, object] = {
        "timeout": 2.0,
        "concurrency": 8,
        "retry_base_delay": 0.01,
        "seed": 11,
        "suite_source": None,
    }
    base.update(changes)
    return toolgrade.RunOptions(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def runs() -> dict[str, tuple[toolgrade.RunResult, list[dict[str, object]]]]:
    """One run per API over the scripted suite (module scope: the slow case waits once)."""
    suite, script, _ = scripted.load()
    out = {}
    for provider in ("openai", "ollama"):
        with FakeServer(script, models=("test-model",)) as server:
            url = server.openai_url if provider == "openai" else server.ollama_url
            run = toolgrade.run_suite(
                suite,
                f"{provider}/test-model",
                options=_options(base_url=url, persist=False),
                handle_signals=False,
            )
            out[provider] = (run, list(server.requests))
    return out


@pytest.mark.parametrize("provider", ["openai", "ollama"])
@pytest.mark.parametrize("case_id", sorted(scripted.load()[2]))
def test_runner_scripted_case_gets_expected_status(runs: dict, provider: str, case_id: str) -> None:
    run, _ = runs[provider]
    expected = scripted.load()[2][case_id]
    result = next(r for r in run.results if r.case_id == case_id)
    assert result.status == expected["status"], result
    fmt = expected.get("format")
    if fmt is not None:
        assert result.extraction_format == STRUCTURED[provider] if fmt == "structured" else fmt
    if "error" in expected:
        assert expected["error"] in (result.error or "")
    if result.status.scored:
        assert result.raw_response is not None
        assert result.latency_ms is not None


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_runner_records_settings_and_server_identity(runs: dict, provider: str) -> None:
    run, _requests = runs[provider]
    suite, _, _ = scripted.load()
    assert run.status == "complete"
    assert run.suite_hash == suite.content_hash
    assert run.backend["temperature"] == 0.0
    assert run.backend["seed"] == 11
    assert run.backend["mode"] == "native"
    assert run.toolgrade_version == toolgrade.__version__
    if provider == "openai":
        assert run.server["system_fingerprints"] == ["fp_test_1"]
        assert run.server["model_listed"] is True
    else:
        assert run.server["model_digest"] == "sha256:0123abcd"
    assert [r.case_id for r in run.results] == [c.id for c in suite.cases]


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_runner_sends_safe_tool_names(runs: dict, provider: str) -> None:
    _, requests = runs[provider]
    names = {t["function"]["name"] for body in requests for t in body.get("tools", [])}
    assert "uber_ride" in names
    assert "uber.ride" not in names


def test_runner_repeat_runs_each_case_k_times() -> None:
    suite, script, _ = scripted.load()
    suite = suite.model_copy(update={"cases": suite.cases[:2]})
    with FakeServer(script) as server:
        run = toolgrade.run_suite(
            suite,
            "openai/test-model",
            options=_options(base_url=server.openai_url, repeat=3, persist=False),
            handle_signals=False,
        )
    assert [(r.case_id, r.repeat) for r in run.results] == [
        ("R-structured", 0),
        ("R-structured", 1),
        ("R-structured", 2),
        ("R-hermes", 0),
        ("R-hermes", 1),
        ("R-hermes", 2),
    ]
    assert run.repeat == 3


def test_runner_prompt_mode_extracts_text_calls() -> None:
    suite, _, _ = scripted.load()
    suite = suite.model_copy(update={"cases": suite.cases[:1]})
    hermes = '<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>'
    with FakeServer({"read README.md": [Step(content=hermes)]}) as server:
        run = toolgrade.run_suite(
            suite,
            "llamacpp/test-model",
            options=_options(base_url=server.openai_url, mode="prompt", persist=False),
            handle_signals=False,
        )
        body = server.requests[-1]  # the case, after the warm-up
    assert body["messages"][-1]["content"] == "read README.md"
    assert "tools" not in body
    assert "<tools>" in body["messages"][0]["content"]
    assert run.results[0].status == "correct"
    assert run.results[0].extraction_format == "hermes"


def test_runner_writes_run_folder_and_logs(toolgrade_home: Path) -> None:
    suite, script, _ = scripted.load()
    suite = suite.model_copy(update={"cases": suite.cases[:7]})
    with FakeServer(script) as server:
        run = toolgrade.run_suite(
            suite,
            "openai/test-model",
            options=_options(base_url=server.openai_url),
            handle_signals=False,
        )
    folder = toolgrade_home / "runs" / run.run_id
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 7
    assert all(json.loads(line)["raw_response"] is not None for line in lines)
    manifest = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert manifest["run"]["status"] == "complete"
    assert manifest["case_ids"] == [c.id for c in suite.cases]
    logs = [json.loads(x) for x in (folder / "log.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {x["trace_id"] for x in logs} == {run.run_id}
    events = [x["event"] for x in logs]
    assert events[0] == "run_start" and events[-1] == "run_summary"
    assert events.count("case_start") == 7
    levels = {x["event"]: x["level"] for x in logs}
    assert levels["case_start"] == "debug"
    assert levels["case_result"] == "info"
    loaded = toolgrade.load_run_folder(run.run_id)
    assert loaded == run


def test_runner_refused_port_raises_unreachable_before_creating_a_folder(
    toolgrade_home: Path,
) -> None:
    suite, _, _ = scripted.load()
    with pytest.raises(toolgrade.BackendUnreachable, match="is it running"):
        toolgrade.run_suite(
            suite,
            "openai/m",
            options=_options(base_url="http://127.0.0.1:9/v1", max_retries=0),
            handle_signals=False,
        )
    assert not (toolgrade_home / "runs").exists()


def test_runner_unknown_profile_fails_up_front() -> None:
    suite, _, _ = scripted.load()
    with pytest.raises(toolgrade.ConfigError, match="profile"):
        toolgrade.run_suite(suite, "openai/m", options=_options(profile="nope"))


def test_runner_concurrency_bounds_requests_in_flight() -> None:
    suite = toolgrade.Suite.model_validate(
        {
            "name": "c",
            "tools": [{"name": "read_file"}],
            "cases": [{"id": f"C-{i}", "prompt": f"p{i}", "expected": None} for i in range(9)],
        }
    )
    script = {f"p{i}": [Step(delay=0.15, content="ok")] for i in range(9)}
    with FakeServer(script) as server:
        run = toolgrade.run_suite(
            suite,
            "openai/m",
            options=_options(base_url=server.openai_url, concurrency=3, persist=False),
            handle_signals=False,
        )
        assert server.max_in_flight == 3
    assert all(r.status == "correct" for r in run.results)


def test_runner_python_callable_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "runner_agent_mod.py").write_text(
        "def agent(messages, tools):\n"
        "    text = messages[-1]['content']\n"
        "    if text == 'read README.md':\n"
        "        return [{'name': 'read_file', 'arguments': {'path': 'README.md'}}]\n"
        "    if text == 'ride to the airport':\n"
        "        return [{'name': 'uber.ride', 'arguments': {'loc': 'airport'}}]\n"
        "    return 'no idea'\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    suite, _, _ = scripted.load()
    run = toolgrade.run_suite(
        suite, "python/runner_agent_mod:agent", options=_options(persist=False)
    )
    status = {r.case_id: r.status for r in run.results}
    assert status["R-structured"] == "correct"
    assert status["R-dotted"] == "correct"  # dotted names reach a python agent unchanged
    assert status["R-plain-nocall"] == "correct"
    assert status["R-hermes"] == "missed_call"
