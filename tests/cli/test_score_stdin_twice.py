"""`toolgrade score - -`: standard input can be read once, and the error says so."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from toolgrade.cli import app


def test_cli_score_both_sides_stdin_is_refused_in_one_line() -> None:
    result = CliRunner().invoke(app, ["score", "-", "-"], input='[{"name": "x"}]')
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert "invalid JSON" not in lines[0]
    assert "standard input" in lines[0] and "once" in lines[0]


def test_cli_score_both_sides_stdin_in_a_real_process_exits_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolgrade", "score", "-", "-"],
        input=b"[]",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    err = done.stderr.decode().strip()
    assert err.startswith("error: ") and "\n" not in err
    assert "standard input" in err and "Traceback" not in err
