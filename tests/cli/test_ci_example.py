"""examples/ci/toolgrade.yml: every toolgrade command in it runs, against a fake Ollama.

The commands are read from the workflow's text (`tests/ci_workflow.py`). Each runs through the CLI in
the test's TOOLGRADE_HOME, with OLLAMA_HOST pointing at a scripted server, so a wrong
flag or a missing step fails here instead of in a user's pipeline.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ci_workflow import run_command, workflow_commands, workflow_env
from runner.fakeserver import FakeServer, Step
from toolgrade.backends._probes import _PROBE_MESSAGES

WORKFLOW = Path(__file__).resolve().parents[2] / "examples" / "ci" / "toolgrade.yml"


def test_ci_example_commands_are_found() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    commands = workflow_commands(text, workflow_env(text))
    toolgrade = [c[1] for c in commands if c[0] == "toolgrade"]
    assert toolgrade == ["run", "runs", "doctor", "run"], commands
    assert all("$" not in word for command in commands for word in command)


def test_ci_example_every_command_runs_against_a_fake_ollama(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    env = workflow_env(text)
    probe = str(_PROBE_MESSAGES[-1]["content"])
    # doctor's probe gets its tool call; every suite case gets the same text answer, so
    # the run matches its baseline (no regression) and exits 0 as the workflow expects.
    script = {probe: [Step(calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])]}
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    with FakeServer(script, models=(env["MODEL"],)) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.ollama_url)
        for command in workflow_commands(text, env):
            run_command(runner, command)
    report = (tmp_path / "toolgrade-report.md").read_text(encoding="utf-8")
    assert "### vs Baseline" in report
    assert (tmp_path / "toolgrade-junit.xml").read_text(encoding="utf-8").startswith("<?xml")
    assert (tmp_path / "baselines" / "coding-agent.json").is_file()
