"""examples/ci/toolgrade-matrix.yml: every toolgrade command in it runs, against a fake Ollama.

The same check as tests/cli/test_ci_example.py, for the sharded workflow: the baseline
recipe of the header, each of the four matrix jobs (`${{ matrix.shard }}` set to 1..4,
each job's exported shard moved where the merge job downloads it), then the merge
job. The merged run must read as the baseline did, case by case.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from ci_workflow import run_command, workflow_commands, workflow_env
from runner.fakeserver import FakeServer, Step
from toolgrade.backends._probes import _PROBE_MESSAGES

WORKFLOW = Path(__file__).resolve().parents[2] / "examples" / "ci" / "toolgrade-matrix.yml"
SHARDS = 4


def _parts(text: str) -> tuple[str, str, str]:
    """(header comment, the shard job, the merge job)."""
    head, jobs = text.split("\njobs:\n", 1)
    shard, merge = jobs.split("\n  merge:\n", 1)
    return head, shard, merge


def test_ci_matrix_example_commands_are_found() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    head, shard, merge = _parts(text)
    env = {**workflow_env(text), "matrix": "1"}
    assert [c[1] for c in workflow_commands(head, env) if c[0] == "toolgrade"] == ["run", "runs"]
    assert [c[1] for c in workflow_commands(shard, env) if c[0] == "toolgrade"] == [
        "doctor",
        "run",
        "runs",
    ]
    assert [c[1] for c in workflow_commands(merge, env)] == [
        "runs",
        "report",
        "report",
        "report",
        "compare",
        "runs",
    ]
    assert "--shard" in workflow_commands(shard, env)[1] and "${{ matrix.shard }}/$SHARDS" in shard


def test_ci_matrix_example_every_command_runs_against_a_fake_ollama(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    env = workflow_env(text)
    head, shard, merge = _parts(text)
    probe = str(_PROBE_MESSAGES[-1]["content"])
    script = {probe: [Step(calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])]}
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def run(command: list[str]) -> None:
        if command[1:3] == ["runs", "merge"]:  # the shell's glob
            command = [w for c in command for w in (sorted(map(str, Path().glob(c))) or [c])]
        run_command(runner, command)

    with FakeServer(script, models=(env["MODEL"],)) as server:
        monkeypatch.setenv("OLLAMA_HOST", server.ollama_url)
        for command in workflow_commands(head, env):
            run(command)
        Path("shards").mkdir()
        for i in range(1, SHARDS + 1):
            for command in workflow_commands(shard.replace("${{ matrix.shard }}", str(i)), env):
                run(command)
            Path(f"shard-{i}.json").rename(Path("shards") / f"shard-{i}.json")  # the artifact
        for command in workflow_commands(merge, env):
            run(command)
    merged, baseline = toolgrade.resolve_run("candidate"), toolgrade.resolve_run("baseline")
    assert merged.suite_hash == baseline.suite_hash
    assert [(r.case_id, r.status) for r in merged.results] == [
        (r.case_id, r.status) for r in baseline.results
    ]
    assert "### vs Baseline" in (tmp_path / "toolgrade-report.md").read_text(encoding="utf-8")
    assert (tmp_path / "toolgrade-report.html").is_file()
    assert (tmp_path / "toolgrade-merged.json").is_file()
