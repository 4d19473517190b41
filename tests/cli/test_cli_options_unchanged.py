"""Every command keeps its options: names, help, panel, default, in the same order.

`data/options_before_refactor.json` was recorded from the command line before the
options were declared as groups (`cli/_options.py`); declaring them once must not
change what `--help` lists. An option or command added on purpose is added to the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from toolgrade.cli import app

SNAPSHOT = Path(__file__).parent / "data" / "options_before_refactor.json"
_KEYS = ("opts", "help", "panel", "default", "required", "metavar")


def _commands(cmd: Any, path: tuple[str, ...] = ()) -> dict[str, Any]:
    if hasattr(cmd, "commands"):
        found: dict[str, Any] = {}
        for name, sub in sorted(cmd.commands.items()):
            found.update(_commands(sub, (*path, name)))
        return found
    return {" ".join(path): cmd}


def _describe(cmd: Any) -> list[dict[str, Any]]:
    rows = []
    for param in cmd.params:
        row = {
            "opts": [*param.opts, *getattr(param, "secondary_opts", [])],
            "help": getattr(param, "help", None),
            "panel": getattr(param, "rich_help_panel", None),
            "default": repr(param.default),
            "required": param.required,
            "metavar": getattr(param, "metavar", None),
        }
        rows.append({k: row[k] for k in _KEYS})
    return rows


_BEFORE: dict[str, list[dict[str, Any]]] = json.loads(SNAPSHOT.read_text("utf-8"))
_NOW = _commands(typer.main.get_command(app))


def test_cli_commands_same_set_as_before() -> None:
    assert sorted(_NOW) == sorted(_BEFORE)


@pytest.mark.parametrize("name", sorted(_BEFORE))
def test_cli_command_options_same_names_as_before(name: str) -> None:
    before = {opt for row in _BEFORE[name] for opt in row["opts"]}
    now = {opt for row in _describe(_NOW[name]) for opt in row["opts"]}
    assert now == before


@pytest.mark.parametrize("name", sorted(_BEFORE))
def test_cli_command_options_same_declaration_as_before(name: str) -> None:
    assert _describe(_NOW[name]) == _BEFORE[name]


@pytest.mark.parametrize("name", ["run", "evaluate", "suite show"])
def test_cli_help_lists_every_option(name: str) -> None:
    result = CliRunner().invoke(app, [*name.split(), "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for row in _BEFORE[name]:
        assert row["opts"][0] in result.output
        assert (row["help"] or "")[:30] in result.output
