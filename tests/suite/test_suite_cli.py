"""`toolgrade suite list|show|validate|schema` through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import toolgrade
from toolgrade.cli._app import app

DATA = Path(__file__).parents[1] / "data" / "suite"
runner = CliRunner()


def test_cli_suite_list_shows_builtin() -> None:
    result = runner.invoke(app, ["suite", "list"])
    assert result.exit_code == 0
    assert result.output.startswith("coding-agent  v1.2  ")
    rows = json.loads(runner.invoke(app, ["suite", "list", "--json"]).output)
    assert rows[0]["name"] == "coding-agent" and rows[0]["cases"] >= 60


def test_cli_suite_show_counts_by_every_breakdown() -> None:
    result = runner.invoke(app, ["suite", "show", "coding-agent"])
    assert result.exit_code == 0
    for heading in ("by category:", "by difficulty:", "by tool:", "by tag:", "content hash:"):
        assert heading in result.output


def test_cli_suite_show_json_with_cases_and_selection() -> None:
    args = ["suite", "show", "coding-agent", "--json", "--cases", "--category", "edge"]
    result = runner.invoke(app, [*args, "--sample", "5", "--seed", "3"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["cases"] == 5 and data["by_category"] == {"edge": 5}
    again = json.loads(runner.invoke(app, [*args, "--sample", "5", "--seed", "3"]).output)
    assert [c["id"] for c in data["case_list"]] == [c["id"] for c in again["case_list"]]
    suite = toolgrade.load_suite("coding-agent")
    picked = toolgrade.select_cases(
        suite, toolgrade.Selection(categories=("edge",), sample=5, seed=3)
    )
    assert [c["id"] for c in data["case_list"]] == [c.id for c in picked.cases]


def test_cli_suite_show_text_lists_cases() -> None:
    result = runner.invoke(app, ["suite", "show", "coding-agent", "--cases", "--id", "TC-00[12]"])
    assert result.exit_code == 0
    assert "TC-001  simple/easy  read_file  Read the contents of README.md" in result.output
    assert "TC-003" not in result.output


def test_cli_suite_show_all_tags_and_difficulty_options() -> None:
    args = ["suite", "show", "coding-agent", "--json", "--tag", "git", "--tag", "parallel"]
    data = json.loads(runner.invoke(app, [*args, "--all-tags", "--difficulty", "MEDIUM"]).output)
    assert data["by_difficulty"] == {"medium": data["cases"]}
    assert data["by_tag"]["git"] == data["by_tag"]["parallel"] == data["cases"]


def test_cli_suite_show_bad_difficulty_exits_2() -> None:
    result = runner.invoke(app, ["suite", "show", "coding-agent", "--difficulty", "extreme"])
    assert result.exit_code == 2
    assert "unknown difficulty 'extreme'" in result.output


def test_cli_suite_show_limit_below_one_is_usage_error() -> None:
    result = runner.invoke(app, ["suite", "show", "coding-agent", "--limit", "0"])
    assert result.exit_code == 2


def test_cli_suite_show_unknown_source_exits_2() -> None:
    result = runner.invoke(app, ["suite", "show", "nope"])
    assert result.exit_code == 2
    assert result.output.startswith("error: nope: no such suite file")


def test_cli_suite_validate_good_files_exit_0() -> None:
    result = runner.invoke(
        app, ["suite", "validate", str(DATA / "valid" / "full.json"), str(DATA / "merge_ok")]
    )
    assert result.exit_code == 0
    assert result.output.count("ok: ") == 2


def test_cli_suite_validate_reports_all_problems_and_exits_2(tmp_path: Path) -> None:
    entries = json.loads((DATA / "invalid_suites.json").read_text(encoding="utf-8"))
    entry = next(e for e in entries if e["name"] == "many-problems-at-once")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(entry["suite"], indent=2), encoding="utf-8")
    result = runner.invoke(app, ["suite", "validate", str(DATA / "valid" / "full.json"), str(bad)])
    assert result.exit_code == 2
    assert f"invalid: {bad} ({len(entry['problems'])} problems)" in result.output
    for problem in entry["problems"]:
        assert f"  - {bad}:{problem}" in result.output


def test_cli_suite_validate_json_output(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text("{", encoding="utf-8")
    result = runner.invoke(app, ["suite", "validate", "--json", "coding-agent", str(bad)])
    assert result.exit_code == 2
    report = json.loads(result.output)
    assert report[0] == {"source": "coding-agent", "valid": True, "problems": []}
    assert report[1]["valid"] is False
    assert report[1]["problems"][0].startswith(f"{bad}:line 1 column 2: invalid JSON")


def test_cli_suite_schema_prints_the_schema() -> None:
    result = runner.invoke(app, ["suite", "schema"])
    assert result.exit_code == 0
    assert json.loads(result.output) == toolgrade.suite_schema()


def test_cli_suite_show_counts_tools_cases_define_themselves(tmp_path: Path) -> None:
    doc = {"name": "calc.area", "parameters": {"type": "object", "properties": {}}}
    suite = {
        "schema_version": 1,
        "name": "own-tools",
        "cases": [
            {"id": "a", "prompt": "p", "tools": [], "tool_definitions": [doc], "expected": None},
            {"id": "b", "prompt": "q", "tools": [], "tool_definitions": [doc], "expected": None},
        ],
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(suite), "utf-8")
    result = runner.invoke(app, ["suite", "show", str(path)])
    assert result.exit_code == 0, result.output
    # The suite gives no version (the CLI shows it as missing, not as "v1.0").
    assert "own-tools (no version): 2 cases, 1 tools" in result.output
