"""Every report format, byte for byte, against its golden file."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import toolgrade

EXTENSIONS = {
    "text": "txt",
    "json": "json",
    "markdown": "md",
    "html": "html",
    "junit": "xml",
    "prometheus": "prom",
}


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_report_run_alone_matches_golden(
    fmt: str, run: toolgrade.RunResult, golden: Callable[[str, str], None]
) -> None:
    golden(f"run.{EXTENSIONS[fmt]}", toolgrade.render_report(run, fmt))  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_report_run_with_baseline_matches_golden(
    fmt: str,
    run: toolgrade.RunResult,
    comparison: toolgrade.Comparison,
    golden: Callable[[str, str], None],
) -> None:
    text = toolgrade.render_report(run, fmt, comparison=comparison)  # type: ignore[arg-type]
    golden(f"run-vs-baseline.{EXTENSIONS[fmt]}", text)


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_report_repeated_run_matches_golden(
    fmt: str, repeated_run: toolgrade.RunResult, golden: Callable[[str, str], None]
) -> None:
    """Three tries at temperature 0: the noise floor, the cases that flipped, the warning."""
    text = toolgrade.render_report(repeated_run, fmt)  # type: ignore[arg-type]
    golden(f"repeated-run.{EXTENSIONS[fmt]}", text)


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_report_same_input_twice_is_identical(fmt: str, run: toolgrade.RunResult) -> None:
    first = toolgrade.render_report(run, fmt)  # type: ignore[arg-type]
    assert first == toolgrade.render_report(run, fmt)  # type: ignore[arg-type]
