"""The end of `toolgrade run`: the accuracy as served, printed when it differs."""

from __future__ import annotations

from typing import Any

from typer.testing import CliRunner

from runner.real_recordings import REAL
from toolgrade.cli import app


def _run(mode: str, *extra: str) -> Any:
    return CliRunner().invoke(
        app,
        [
            "run", "--suite", str(REAL / "suite.json"), "--model",
            f"replay/{REAL / f'{mode}.jsonl'}", "--mode", mode, "--no-warmup", *extra,
        ],
    )  # fmt: skip


def test_run_prints_the_accuracy_as_served_when_it_differs() -> None:
    result = _run("native")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    summary = next(i for i, line in enumerate(lines) if line.startswith("Summary: "))
    assert lines[summary + 1] == ("As served: 7.1% (6/85) vs model 27.1% (23/85): calls_in_text 74")


def test_run_prints_nothing_more_when_nothing_was_lost() -> None:
    result = _run("prompt")
    assert result.exit_code == 0, result.output
    assert "Summary: " in result.output
    assert "As served" not in result.output


def test_runs_show_gives_the_accuracy_as_served() -> None:
    result = _run("native")
    shown = result.output.split("see it with: toolgrade runs show ", 1)[1].split()[0]
    show = CliRunner().invoke(app, ["runs", "show", shown])
    assert show.exit_code == 0, show.output
    assert "Served:    7.1% (6/85) vs model 27.1% (23/85): calls_in_text 74\n" in show.output


def test_run_gates_on_the_accuracy_as_served_against_a_baseline() -> None:
    """The same model in prompt mode (28/85 either way) then native (23/85, 6/85 as
    served): the model's drop is not a regression; as served, it is."""
    base = _run("prompt")
    assert base.exit_code == 0, base.output
    base_id = base.output.split("see it with: toolgrade runs show ", 1)[1].split()[0]
    gate = ["--baseline", base_id, "--fail-on-regression"]
    assert _run("native", *gate).exit_code == 0
    assert _run("native", *gate, "--as-served").exit_code == 1
