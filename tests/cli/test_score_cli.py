"""`toolgrade score` and the root command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from toolgrade.cli import app

runner = CliRunner()
EXAMPLE = Path(__file__).parents[2] / "examples" / "score-example.json"


def test_cli_version_prints_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"toolgrade {toolgrade.__version__}"


def test_cli_score_single_file_prints_summary() -> None:
    result = runner.invoke(app, ["score", str(EXAMPLE)])
    assert result.exit_code == 0
    assert result.output.strip() == (
        "Accuracy Score: 40.0% | Correct: 1/2 | Incorrect: 1 | Missed: 0 | Extra: 1"
    )


def test_cli_score_two_files_json_prints_full_result(tmp_path: Path) -> None:
    data = json.loads(EXAMPLE.read_text("utf-8"))
    (tmp_path / "e.json").write_text(json.dumps(data["expected"]), "utf-8")
    (tmp_path / "a.json").write_text(json.dumps(data["actual"]), "utf-8")
    result = runner.invoke(
        app, ["score", str(tmp_path / "e.json"), str(tmp_path / "a.json"), "--json"]
    )
    assert result.exit_code == 0
    out = json.loads(result.output)
    assert out["score"] == 0.4 and out["totalActual"] == 3


def test_cli_score_stdin_dash_reads_stdin(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("[]", "utf-8")
    result = runner.invoke(app, ["score", "-", str(tmp_path / "a.json")], input='[{"name": "x"}]')
    assert result.exit_code == 0
    assert "Missed: 1" in result.output


def test_cli_score_strict_order_option(tmp_path: Path) -> None:
    path = tmp_path / "both.json"
    path.write_text(
        json.dumps(
            {"expected": [{"name": "a"}, {"name": "b"}], "actual": [{"name": "b"}, {"name": "a"}]}
        ),
        "utf-8",
    )
    assert "100.0%" in runner.invoke(app, ["score", str(path)]).output
    assert "50.0%" in runner.invoke(app, ["score", str(path), "--order", "strict"]).output


def test_cli_score_invalid_json_exits_two_with_location(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"expected": [', "utf-8")
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {path}:line 1 column 15: invalid JSON")
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("NaN", "$.expected[0].arguments.n: NaN is not a JSON number"),
        ("Infinity", "$.expected[0].arguments.n: Infinity is not a JSON number"),
        ("1e999", "$.expected[0].arguments.n: 1e999 is out of range (not a finite number)"),
        ("9" * 5000, "$.expected[0].arguments.n: an integer of 5000 digits (at most 4300"),
        ('1, "n": 2', "$.expected[0].arguments.n: duplicate key 'n' (first at line 2)"),
    ],
)
def test_cli_score_value_json_cannot_hold_exits_two_with_line_and_path(
    tmp_path: Path, value: str, message: str
) -> None:
    path = tmp_path / "both.json"
    path.write_text(
        '{"expected": [\n{"name": "a", "arguments": {"n": ' + value + '}}],\n"actual": []}', "utf-8"
    )
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {path}:line 2: {message}")
    assert "Traceback" not in result.output


def test_cli_score_stdin_over_bound_exits_two(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolgrade.cli import _io

    monkeypatch.setattr(_io, "MAX_INPUT_BYTES", 10)
    result = runner.invoke(app, ["score", "-"], input="[" + " " * 20 + "]")
    assert result.exit_code == 2
    assert result.output.strip() == "error: <stdin>: larger than 10 bytes"


def test_cli_score_missing_file_exits_two(tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(tmp_path / "nope.json")])
    assert result.exit_code == 2
    assert "cannot read file" in result.output


def test_cli_score_single_file_without_keys_exits_two(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[]", "utf-8")
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 2
    assert 'must hold {"expected"' in result.output


def test_cli_score_bad_call_names_file_side_and_index(tmp_path: Path) -> None:
    (tmp_path / "e.json").write_text("[]", "utf-8")
    (tmp_path / "a.json").write_text('[{"name": "a"}, {"args": {}}]', "utf-8")
    result = runner.invoke(app, ["score", str(tmp_path / "e.json"), str(tmp_path / "a.json")])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {tmp_path / 'a.json'}: actual[1]: call has no name (give 'name' or 'tool')"
    )


def test_cli_score_bad_order_is_usage_error() -> None:
    result = runner.invoke(app, ["score", str(EXAMPLE), "--order", "sideways"])
    assert result.exit_code == 2


def test_python_dash_m_runs_cli() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolgrade", "score", str(EXAMPLE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith("Accuracy Score: 40.0%")
