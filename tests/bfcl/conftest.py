"""Print the BFCL agreement figures at the end of the test session."""

from __future__ import annotations

from typing import Any

import pytest

REPORT: list[str] = []
"""Lines the BFCL agreement tests want shown after the run (even when output is captured)."""


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if REPORT:
        terminalreporter.section("BFCL agreement")
        for line in REPORT:
            terminalreporter.write_line(line)


@pytest.fixture
def report() -> list[str]:
    return REPORT
