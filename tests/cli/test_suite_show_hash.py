"""`toolgrade suite show` with a selection: the suite's hash, and the selection's labelled."""

from __future__ import annotations

import json

from typer.testing import CliRunner

import toolgrade
from toolgrade.cli import app

runner = CliRunner()


def _hashes() -> tuple[str, str, int]:
    suite = toolgrade.load_suite("coding-agent")
    edge = toolgrade.select_cases(suite, toolgrade.Selection(categories=("edge",)))
    assert edge.content_hash != suite.content_hash
    return suite.content_hash, edge.content_hash, len(suite.cases)


def test_suite_show_category_text_prints_the_suites_hash_and_labels_the_selections() -> None:
    whole, selected, total = _hashes()
    result = runner.invoke(app, ["suite", "show", "coding-agent", "--category", "edge"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert f"content hash: {whole}" in lines
    assert f"selection hash: {selected} (a run of this selection records it)" in lines
    assert f"cases (selected from {total})," in lines[0]


def test_suite_show_category_json_content_hash_is_the_suites() -> None:
    whole, selected, total = _hashes()
    result = runner.invoke(app, ["suite", "show", "coding-agent", "--category", "edge", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["content_hash"] == whole
    assert data["selection_hash"] == selected
    assert data["suite_cases"] == total


def test_suite_show_without_selection_has_no_selection_hash() -> None:
    whole, _, _ = _hashes()
    text = runner.invoke(app, ["suite", "show", "coding-agent"]).output
    assert f"content hash: {whole}" in text.splitlines()
    assert "selection hash" not in text
    data = json.loads(runner.invoke(app, ["suite", "show", "coding-agent", "--json"]).output)
    assert data["content_hash"] == whole
    assert "selection_hash" not in data
