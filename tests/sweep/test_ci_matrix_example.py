"""examples/ci/toolgrade-matrix.yml: every toolgrade command in it runs, against a fake Ollama.

The same check as tests/cli/test_ci_example.py, for the sharded workflow: the baseline
recipe of the header, each of the four matrix jobs (`${{ matrix.shard }}` set to 1..4,
each job's exported shard moved where the merge job downloads it), then the merge
job. The merged run must read as the baseline did, case by case.

CLI test: needs `toolgrade run --shard` and `toolgrade runs merge` (task E, registered
by the lead); it is skipped, saying so, while either is missing.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from runner.fakeserver import FakeServer, Step
from toolgrade.backends._probes import _PROBE_MESSAGES
from toolgrade.cli import app

WORKFLOW = Path(__file__).resolve().parents[2] / "examples" / "ci" / "toolgrade-matrix.yml"
_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
SHARDS = 4


def _env(text: str) -> dict[str, str]:
    block = text.split("\nenv:\n", 1)[1]
    env = {}
    for line in block.splitlines():
        if not line.startswith("  "):
            break
        key, _, value = line.strip().partition(":")
        env[key] = value.strip()
    return env


def _commands(text: str, env: dict[str, str]) -> list[list[str]]:
    """Every `toolgrade ...`/`mkdir ...` shell line (comments, `run:` and `\\` handled)."""
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = re.sub(r"^(-\s*)?run:\s*", "", raw.strip().lstrip("#").strip())
        pending = f"{pending} {line}".strip() if pending else line
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        lines.append(pending)
        pending = ""
    out = []
    for line in lines:
        if line.startswith(("toolgrade ", "mkdir ")):
            line = line.split(" || ")[0]
            words = shlex.split(line)
            out.append([_VAR.sub(lambda m: env[m.group(1) or m.group(2)], w) for w in words])
    return out


def _parts(text: str) -> tuple[str, str, str]:
    """(header comment, the shard job, the merge job)."""
    head, jobs = text.split("\njobs:\n", 1)
    shard, merge = jobs.split("\n  merge:\n", 1)
    return head, shard, merge


def _missing_commands() -> str | None:
    runner = CliRunner()
    if "--shard" not in runner.invoke(app, ["run", "--help"]).output:
        return "toolgrade run --shard is not registered yet"
    if runner.invoke(app, ["runs", "merge", "--help"]).exit_code != 0:
        return "toolgrade runs merge is not registered yet"
    return None


def test_ci_matrix_example_commands_are_found() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    head, shard, merge = _parts(text)
    env = {**_env(text), "matrix": "1"}
    assert [c[1] for c in _commands(head, env) if c[0] == "toolgrade"] == ["run", "runs"]
    assert [c[1] for c in _commands(shard, env) if c[0] == "toolgrade"] == ["doctor", "run", "runs"]
    assert [c[1] for c in _commands(merge, env)] == [
        "runs",
        "report",
        "report",
        "report",
        "compare",
        "runs",
    ]
    assert "--shard" in _commands(shard, env)[1] and "${{ matrix.shard }}/$SHARDS" in shard


def test_ci_matrix_example_every_command_runs_against_a_fake_ollama(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = _missing_commands()
    if missing is not None:
        pytest.skip(missing)
    text = WORKFLOW.read_text(encoding="utf-8")
    env = _env(text)
    head, shard, merge = _parts(text)
    probe = str(_PROBE_MESSAGES[-1]["content"])
    script = {probe: [Step(calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])]}
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def run(command: list[str]) -> None:
        if command[0] == "mkdir":
            for folder in command[1:]:
                if folder != "-p":
                    Path(folder).mkdir(parents=True, exist_ok=True)
            return
        if command[1:3] == ["runs", "merge"]:  # the shell's glob
            command = [w for c in command for w in (sorted(map(str, Path().glob(c))) or [c])]
        result = runner.invoke(app, command[1:])
        assert result.exit_code == 0, (shlex.join(command), result.output)

    with FakeServer(script, models=(env["MODEL"],)) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.ollama_url)
        for command in _commands(head, env):
            run(command)
        Path("shards").mkdir()
        for i in range(1, SHARDS + 1):
            for command in _commands(shard.replace("${{ matrix.shard }}", str(i)), env):
                run(command)
            Path(f"shard-{i}.json").rename(Path("shards") / f"shard-{i}.json")  # the artifact
        for command in _commands(merge, env):
            run(command)
    merged, baseline = toolgrade.resolve_run("candidate"), toolgrade.resolve_run("baseline")
    assert merged.suite_hash == baseline.suite_hash
    assert [(r.case_id, r.status) for r in merged.results] == [
        (r.case_id, r.status) for r in baseline.results
    ]
    assert "### vs Baseline" in (tmp_path / "toolgrade-report.md").read_text(encoding="utf-8")
    assert (tmp_path / "toolgrade-report.html").is_file()
    assert (tmp_path / "toolgrade-merged.json").is_file()
