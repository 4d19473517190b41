"""examples/ci/toolgrade.yml: every toolgrade command in it runs, against a fake Ollama.

The commands are taken from the workflow's text (no YAML parser is a dependency): the
baseline recipe in the header comment, then each `run:` step, with `\\` continuations
joined and `$VAR`s expanded from the workflow's `env:`. Each runs through the CLI in
the test's TOOLGRADE_HOME, with OLLAMA_HOST pointing at a scripted server, so a wrong
flag or a missing step fails here instead of in a user's pipeline.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runner.fakeserver import FakeServer, Step
from toolgrade.backends._probes import _PROBE_MESSAGES
from toolgrade.cli import app

WORKFLOW = Path(__file__).resolve().parents[2] / "examples" / "ci" / "toolgrade.yml"
_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def _workflow_env(text: str) -> dict[str, str]:
    """The top-level `env:` block: `  KEY: value` lines."""
    block = text.split("\nenv:\n", 1)[1]
    env = {}
    for line in block.splitlines():
        if not line.startswith("  "):
            break
        key, _, value = line.strip().partition(":")
        env[key] = value.strip()
    return env


def _shell_lines(text: str) -> list[str]:
    """Logical shell lines: comments' leading `#` and `run:` prefixes dropped, `\\` joined."""
    out: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = re.sub(r"^(-\s*)?run:\s*", "", raw.strip().lstrip("#").strip())
        pending = f"{pending} {line}".strip() if pending else line
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        out.append(pending)
        pending = ""
    return out


def workflow_commands(text: str) -> list[list[str]]:
    """Every `toolgrade ...` and `mkdir ...` line, split into words, variables expanded."""
    env = _workflow_env(text)
    commands = []
    for line in _shell_lines(text):
        if line.startswith(("toolgrade ", "mkdir ")):
            words = shlex.split(line)
            commands.append([_VAR.sub(lambda m: env[m.group(1) or m.group(2)], w) for w in words])
    return commands


def test_ci_example_commands_are_found() -> None:
    commands = workflow_commands(WORKFLOW.read_text(encoding="utf-8"))
    toolgrade = [c[1] for c in commands if c[0] == "toolgrade"]
    assert toolgrade == ["run", "runs", "doctor", "run"], commands
    assert all("$" not in word for command in commands for word in command)


def test_ci_example_every_command_runs_against_a_fake_ollama(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    model = _workflow_env(text)["MODEL"]
    probe = str(_PROBE_MESSAGES[-1]["content"])
    # doctor's probe gets its tool call; every suite case gets the same text answer, so
    # the run matches its baseline (no regression) and exits 0 as the workflow expects.
    script = {probe: [Step(calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])]}
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    with FakeServer(script, models=(model,)) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.ollama_url)
        for command in workflow_commands(text):
            if command[0] == "mkdir":
                for folder in command[1:]:
                    if folder != "-p":
                        Path(folder).mkdir(parents=True, exist_ok=True)
                continue
            result = runner.invoke(app, command[1:])
            assert result.exit_code == 0, (shlex.join(command), result.output)
    report = (tmp_path / "toolgrade-report.md").read_text(encoding="utf-8")
    assert "### vs Baseline" in report
    assert (tmp_path / "toolgrade-junit.xml").read_text(encoding="utf-8").startswith("<?xml")
    assert (tmp_path / "baselines" / "coding-agent.json").is_file()
