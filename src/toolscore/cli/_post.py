"""What `toolscore run` and `toolscore evaluate` do once a run has finished."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import typer

from toolscore.results import RunResult, Status

__all__ = ["PostRunOptions", "after_run"]


@dataclass(frozen=True, slots=True)
class PostRunOptions:
    """Options of `run`/`evaluate` that act on the finished run."""

    baseline: str | None = None
    """Run id, tag or exported file to compare with."""
    fail_on_regression: bool = False
    """Exit 1 when the comparison finds a regression."""
    threshold: float = 2.0
    """Accuracy drop, in points, that counts as a regression (with significance)."""
    alpha: float = 0.05
    """Significance level of McNemar's test."""
    reports: dict[str, Path] = field(default_factory=dict)
    """Report format -> output file, e.g. {"junit": Path("out.xml")}."""
    quiet: bool = False
    """Print nothing but errors."""


def after_run(result: RunResult, options: PostRunOptions) -> int:
    """Summarise a finished run; return the process exit code."""
    if not options.quiet:
        scored = [r for r in result.results if r.status.scored]
        passed = sum(r.status is Status.CORRECT for r in scored)
        rate = passed / len(scored) if scored else 0.0
        typer.echo(f"{result.run_id}: {passed}/{len(scored)} correct ({rate:.1%})")
    return 0
