"""`toolgrade extract`: text or message in, calls as JSON out."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from toolgrade.cli import app

runner = CliRunner()
HERMES = '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'


def _json(output: str) -> dict[str, object]:
    value: dict[str, object] = json.loads(output)
    return value


def test_extract_cli_stdin_text_prints_calls() -> None:
    result = runner.invoke(app, ["extract"], input=HERMES)
    assert result.exit_code == 0, result.output
    assert _json(result.stdout) == {
        "format": "hermes",
        "calls": [{"name": "f", "arguments": {"x": 1}}],
        "errors": [],
    }


def test_extract_cli_file_with_errors_prints_reasons(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text('<tool_call>{"name": "f", "arguments": {</tool_call>', encoding="utf-8")
    result = runner.invoke(app, ["extract", str(path)])
    assert result.exit_code == 0, result.output
    payload = _json(result.stdout)
    assert payload["calls"] == []
    assert [e["reason"] for e in payload["errors"]] == ["parse_error"]  # type: ignore[union-attr]


def test_extract_cli_message_reads_structured_calls() -> None:
    message = {"role": "assistant", "tool_calls": [{"function": {"name": "g", "arguments": "{}"}}]}
    result = runner.invoke(app, ["extract", "--message", "-"], input=json.dumps(message))
    assert result.exit_code == 0, result.output
    assert _json(result.stdout)["format"] == "openai"


def test_extract_cli_message_not_object_exits_2() -> None:
    result = runner.invoke(app, ["extract", "--message"], input="[1, 2]")
    assert result.exit_code == 2
    assert "--message needs a JSON object" in result.stderr


def test_extract_cli_tools_reject_look_alikes() -> None:
    text = 'Example: {"name": "other", "arguments": {}}'
    assert _json(runner.invoke(app, ["extract"], input=text).stdout)["format"] == "json"
    result = runner.invoke(app, ["extract", "--tools", "a, b"], input=text)
    assert _json(result.stdout)["format"] == "none"


def test_extract_cli_forced_format_and_unknown_format() -> None:
    result = runner.invoke(app, ["extract", "--format", "mistral"], input=HERMES)
    assert _json(result.stdout)["format"] == "none"
    bad = runner.invoke(app, ["extract", "--format", "nope"], input=HERMES)
    assert bad.exit_code == 2
    assert "unknown extraction format 'nope'" in bad.stderr


def test_extract_cli_list_formats_names_every_format() -> None:
    result = runner.invoke(app, ["extract", "--list-formats"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["openai", "structured"]
    assert any(line.split()[:2] == ["hermes", "marker"] for line in lines)


def test_extract_cli_missing_file_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["extract", str(tmp_path / "missing.txt")])
    assert result.exit_code == 2
