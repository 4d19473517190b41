"""`toolgrade sweep` through the command line (CLI tests: registered by the lead).

The command is `toolgrade.cli._sweep:sweep`, registered as `toolgrade sweep`. Until it
is in the command table, the `cli` fixture adds it there for the test's duration.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sweep.helpers import SweepServer, free_port, write_suite, write_sweep

pytestmark = pytest.mark.usefixtures("cli")


@pytest.fixture
def cli() -> typer.Typer:
    from toolgrade.cli import app

    return app


def _invoke(cli: typer.Typer, *args: str) -> object:
    return CliRunner().invoke(cli, ["sweep", *args])


@pytest.fixture
def sweep_file(tmp_path: Path) -> Path:
    write_suite(tmp_path / "alpha.json", "alpha", 3)
    models = [
        {"label": "good", "model": "python/sweep.agents:good"},
        {"label": "<script>x</script>", "model": "python/sweep.agents:broken"},
    ]
    return write_sweep(
        tmp_path / "s.toml", name="cli", models=models, suites=[{"suite": "alpha.json"}]
    )


def test_cli_sweep_runs_reports_and_exits_3_on_a_failed_model(
    cli: typer.Typer, sweep_file: Path, tmp_path: Path
) -> None:
    page = tmp_path / "board.html"
    result = _invoke(cli, str(sweep_file), "--html", str(page))
    assert result.exit_code == 3, result.output
    assert "Leaderboard: cli" in result.stdout
    assert "start: good x alpha" in result.stderr
    assert "error: <script>x</script> x alpha: no case could be scored" in result.stderr
    assert "&lt;script&gt;x&lt;/script&gt;" in page.read_text(encoding="utf-8")
    again = _invoke(cli, str(sweep_file), "--json")
    assert again.exit_code == 3
    board = json.loads(again.stdout)
    assert board["suites"][0]["best"] == "good"
    assert "reuse: good x alpha" in again.stderr
    wide = _invoke(cli, str(sweep_file), "--report-only", "--json", "--threshold", "7.5")
    assert json.loads(wide.stdout)["threshold"] == 7.5


def test_cli_sweep_report_only_runs_nothing(cli: typer.Typer, sweep_file: Path) -> None:
    result = _invoke(cli, str(sweep_file), "--report-only")
    assert result.exit_code == 0, result.output
    assert "no finished run with these settings" in result.stdout
    assert result.stderr == ""


def test_cli_sweep_bad_file_exits_2_with_file_and_line(cli: typer.Typer, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    model = '[[models]]\nlabel = "a"\nmodel = "openai/m"\ntemperature = "hot"\n'
    path.write_text(f'name = "x"\n{model}[[suites]]\nsuite = "coding-agent"\n')
    result = _invoke(cli, str(path))
    assert result.exit_code == 2
    assert f"error: {path}:line 5: models[0].temperature: must be a number" in result.stderr


def test_cli_sweep_fresh_and_report_only_exclude_each_other(
    cli: typer.Typer, sweep_file: Path
) -> None:
    result = _invoke(cli, str(sweep_file), "--fresh", "--report-only")
    assert result.exit_code == 2 and "exclude each other" in result.stderr


def test_cli_sweep_server_down_exits_3_and_others_complete(
    cli: typer.Typer, tmp_path: Path
) -> None:
    write_suite(tmp_path / "alpha.json", "alpha", 2)
    with SweepServer(models=("m-a",)) as server:
        models = [
            {"label": "up", "model": "openai/m-a", "base_url": server.openai_url},
            {
                "label": "down",
                "model": "openai/m-b",
                "base_url": f"http://127.0.0.1:{free_port()}/v1",
            },
        ]
        path = write_sweep(
            tmp_path / "s.toml",
            models=models,
            suites=[{"suite": "alpha.json"}],
            max_retries=0,
            warmup=False,
        )
        result = _invoke(cli, str(path), "--quiet", "--concurrency", "1")
    assert result.exit_code == 3, result.output
    assert "done:" not in result.stderr  # --quiet: errors only
    assert "error: down x alpha:" in result.stderr
    assert "100.0% (2/2)" in result.stdout and "down: failed:" in result.stdout
