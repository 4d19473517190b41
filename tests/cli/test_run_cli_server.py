"""`toolgrade run` against a server: request options, warm-up, timeouts in the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import toolgrade
from runner.fakeserver import FakeServer, Step
from toolgrade.cli import app
from toolgrade.runner._warmup import WARMUP_PROMPT

N_CASES = 8


def _suite_file(tmp_path: Path) -> Path:
    data = {
        "schema_version": 1,
        "name": "summary",
        "tools": [{"name": "read_file", "parameters": {"type": "object"}}],
        "cases": [
            {
                "id": f"T-{i}",
                "prompt": f"read file {i}",
                "expected": {"name": "read_file", "arguments": {"path": f"{i}.txt"}},
            }
            for i in range(N_CASES)
        ],
    }
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _script(*, slow: int = 0, wrong: int = 0) -> dict[str, list[Step]]:
    """The first `slow` cases answer late, the next `wrong` with a wrong path."""
    script = {}
    for i in range(N_CASES):
        path = "wrong.txt" if slow <= i < slow + wrong else f"{i}.txt"
        call = Step(calls=[{"name": "read_file", "arguments": {"path": path}}])
        script[f"read file {i}"] = [Step(delay=1.0, content="late") if i < slow else call]
    return script


def _run(tmp_path: Path, server: FakeServer, *args: str) -> Any:
    command = [
        "run", "--suite", str(_suite_file(tmp_path)), "--model", "openai/m",
        "--base-url", server.openai_url, *args,
    ]  # fmt: skip
    return CliRunner().invoke(app, command)


def test_cli_run_max_tokens_and_no_stream_reach_the_request(tmp_path: Path) -> None:
    with FakeServer(_script()) as server:
        result = _run(tmp_path, server, "--max-tokens", "64", "--no-stream", "--limit", "1")
        bodies = list(server.requests)
    assert result.exit_code == 0, result.output
    assert bodies and all(b["max_tokens"] == 64 and b["stream"] is False for b in bodies)
    run = toolgrade.resolve_run(toolgrade.list_runs()[0].run_id)
    assert (run.backend["max_tokens"], run.backend["stream"], run.backend["options"]) == (
        64,
        False,
        {},
    )


def test_cli_run_option_max_tokens_wins_over_the_flag(tmp_path: Path) -> None:
    # --option is the raw request: what it says is sent (docs/running.md).
    with FakeServer(_script()) as server:
        result = _run(
            tmp_path, server, "--option", "max_tokens=9", "--max-tokens", "32", "--limit", "1"
        )
        bodies = list(server.requests)
    assert result.exit_code == 0, result.output
    assert {b["max_tokens"] for b in bodies} == {9}


def test_cli_run_warms_up_unless_no_warmup(tmp_path: Path) -> None:
    with FakeServer(_script()) as server:
        warm = _run(tmp_path, server, "--limit", "2")
        prompts = server.prompts()
    assert warm.exit_code == 0, warm.output
    assert prompts[0] == WARMUP_PROMPT and prompts.count(WARMUP_PROMPT) == 1
    assert "note: warm-up answered in" in warm.output
    with FakeServer(_script()) as server:
        cold = _run(tmp_path, server, "--limit", "2", "--no-warmup")
        prompts = server.prompts()
    assert cold.exit_code == 0, cold.output
    assert WARMUP_PROMPT not in prompts and len(prompts) == 2
    assert "warm-up" not in cold.output


def test_cli_run_summary_line_counts_timeouts_and_errors(tmp_path: Path) -> None:
    with FakeServer(_script(slow=4, wrong=1)) as server:
        result = _run(tmp_path, server, "--timeout", "0.3", "--max-retries", "0")
    assert result.exit_code == 0, result.output
    assert "Summary: 75.0% (3/4) - 4 timed out, 0 errors" in result.output
    warnings = [x for x in result.output.splitlines() if x.startswith("warning: 4 of 8 cases")]
    assert len(warnings) == 1  # at the end; the one during the run counted fewer cases
    assert "--timeout 0.3, --concurrency 4" in warnings[0]
    assert "raise --timeout" in warnings[0].lower()


def test_cli_run_quiet_still_warns_about_timeouts(tmp_path: Path) -> None:
    with FakeServer(_script(slow=3)) as server:
        result = _run(tmp_path, server, "--timeout", "0.3", "--max-retries", "0", "--quiet")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("warning: 3 of 8 cases timed out")
    assert "Summary" not in result.output


def test_cli_run_few_timeouts_no_warning(tmp_path: Path) -> None:
    with FakeServer(_script(slow=1)) as server:
        result = _run(tmp_path, server, "--timeout", "0.3", "--max-retries", "0")
    assert result.exit_code == 0, result.output
    assert "Summary: 100.0% (7/7) - 1 timed out, 0 errors" in result.output
    assert "timed out with" not in result.output
