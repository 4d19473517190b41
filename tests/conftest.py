"""Shared fixtures: every test gets its own TOOLSCORE_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def toolscore_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point TOOLSCORE_HOME at a fresh temporary folder."""
    home = tmp_path / "toolscore-home"
    monkeypatch.setenv("TOOLSCORE_HOME", str(home))
    return home
