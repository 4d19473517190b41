"""The scripted suite of tests/data/runner/scripted.json, ready for the fake server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import toolgrade
from runner.fakeserver import Step

DATA = Path(__file__).resolve().parent.parent / "data" / "runner"
SCRIPTED = DATA / "scripted.json"


def load() -> tuple[toolgrade.Suite, dict[str, list[Step]], dict[str, dict[str, Any]]]:
    """(suite, server script, expected outcome per case id)."""
    data = json.loads(SCRIPTED.read_text(encoding="utf-8"))
    suite = toolgrade.Suite.model_validate(data["suite"])
    script = {prompt: [Step(**step) for step in steps] for prompt, steps in data["script"].items()}
    return suite, script, data["expected"]


def write_suite(path: Path) -> Path:
    """Write the scripted suite alone as a suite file (for the command line)."""
    suite, _, _ = load()
    path.write_text(suite.model_dump_json(exclude_none=True), encoding="utf-8")
    return path
