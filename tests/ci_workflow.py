"""Reading the commands of an example CI workflow, and running them through the CLI.

No YAML parser is a dependency: the commands are taken from the workflow's text (the
recipe in its header comment, then each `run:` step), with `\\` continuations joined, a
trailing `|| ...` dropped and `$VAR`s expanded from the workflow's `env:`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path

from typer.testing import CliRunner

from toolgrade.cli import app

_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def workflow_env(text: str) -> dict[str, str]:
    """The top-level `env:` block: `  KEY: value` lines."""
    block = text.split("\nenv:\n", 1)[1]
    env = {}
    for line in block.splitlines():
        if not line.startswith("  "):
            break
        key, _, value = line.strip().partition(":")
        env[key] = value.strip()
    return env


def _shell_lines(text: str) -> list[str]:
    """Logical shell lines: comments' leading `#` and `run:` prefixes dropped, `\\` joined."""
    out: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = re.sub(r"^(-\s*)?run:\s*", "", raw.strip().lstrip("#").strip())
        pending = f"{pending} {line}".strip() if pending else line
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        out.append(pending)
        pending = ""
    return out


def workflow_commands(text: str, env: Mapping[str, str]) -> list[list[str]]:
    """Every `toolgrade ...` and `mkdir ...` line, split into words, variables expanded."""
    commands = []
    for line in _shell_lines(text):
        if line.startswith(("toolgrade ", "mkdir ")):
            words = shlex.split(line.split(" || ")[0])
            commands.append([_VAR.sub(lambda m: env[m.group(1) or m.group(2)], w) for w in words])
    return commands


def run_command(runner: CliRunner, command: list[str]) -> None:
    """Run one command as the workflow's shell would (`mkdir` by hand), asserting exit 0."""
    if command[0] == "mkdir":
        for folder in command[1:]:
            if folder != "-p":
                Path(folder).mkdir(parents=True, exist_ok=True)
        return
    result = runner.invoke(app, command[1:])
    assert result.exit_code == 0, (shlex.join(command), result.output)
