"""The example in docs/testing-your-agent.md runs and passes, as documented: its tests, and
the `toolgrade run` commands its docstring gives, from the folders they name."""

from __future__ import annotations

import ast
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "agent"


@pytest.mark.slow
def test_example_agent_tests_pass() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE)],
        cwd=EXAMPLE,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 passed" in proc.stdout


def _documented_commands() -> dict[str, list[str]]:
    """The commands `file_agent.py`'s docstring gives, by the folder they are run from."""
    doc = ast.get_docstring(ast.parse((EXAMPLE / "file_agent.py").read_text(encoding="utf-8")))
    assert doc is not None
    lines = doc.splitlines()
    where = {"From the repository root:": ROOT, "From this folder:": EXAMPLE}
    commands = {}
    for i, line in enumerate(lines):
        for lead, folder in where.items():
            if line.strip().endswith(lead):
                commands[str(folder)] = shlex.split(lines[i + 1])
    assert set(commands) == {str(ROOT), str(EXAMPLE)}, doc
    return commands


def _console_script() -> list[str]:
    """The installed `toolgrade` script; else the module without the current folder on
    `sys.path` (`-P`), as the script runs."""
    found = shutil.which("toolgrade", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-P", "-m", "toolgrade"]


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["root", "example"])
def test_example_agent_documented_command_runs_from_its_folder(folder: str, tmp_path: Path) -> None:
    cwd = ROOT if folder == "root" else EXAMPLE
    command = _documented_commands()[str(cwd)]
    assert command[0] == "toolgrade"
    proc = subprocess.run(
        [*_console_script(), *command[1:]],
        cwd=cwd,
        env={**os.environ, "TOOLGRADE_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Summary: 100.0% (6/6)" in proc.stdout
