"""The options `toolgrade run` and `toolgrade evaluate` share, and their checking."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer

import toolgrade
from toolgrade._json import JsonValue
from toolgrade.cli._post import PostRunOptions

__all__ = [
    "AlphaOpt",
    "BaselineOpt",
    "ConcurrencyOpt",
    "DbOpt",
    "FailOpt",
    "JunitOpt",
    "LabelOpt",
    "MarkdownOpt",
    "ProfileOpt",
    "QuietOpt",
    "RepeatOpt",
    "ReportOpt",
    "RubricOpt",
    "SuiteOpt",
    "ThresholdOpt",
    "TimeoutOpt",
    "key_values",
    "post_options",
    "suite_source",
]

RUN_PANEL = "Running"
OUT_PANEL = "Baseline and reports"

SuiteOpt = Annotated[
    str | None,
    typer.Option("--suite", "-s", help="Suite file, folder or built-in name (coding-agent)."),
]
TimeoutOpt = Annotated[
    float, typer.Option(min=0.001, help="Seconds allowed per case.", rich_help_panel=RUN_PANEL)
]
ConcurrencyOpt = Annotated[
    int, typer.Option(min=1, help="Cases in flight at once.", rich_help_panel=RUN_PANEL)
]
RepeatOpt = Annotated[
    int,
    typer.Option(
        min=1, help="Run each case K times (consistency, pass^k).", rich_help_panel=RUN_PANEL
    ),
]
RubricOpt = Annotated[
    Literal["binary", "partial", "f1"] | None,
    typer.Option(help="Scoring rubric (default: the suite's).", rich_help_panel=RUN_PANEL),
]
ProfileOpt = Annotated[
    str, typer.Option(help="Matching profile: default or bfcl.", rich_help_panel=RUN_PANEL)
]
BaselineOpt = Annotated[
    str | None,
    typer.Option(
        help="Compare with this run (id, tag or exported file).", rich_help_panel=OUT_PANEL
    ),
]
FailOpt = Annotated[
    bool,
    typer.Option(
        "--fail-on-regression",
        help="Exit 1 on a regression vs --baseline.",
        rich_help_panel=OUT_PANEL,
    ),
]
ThresholdOpt = Annotated[
    float,
    typer.Option(
        min=0, help="Accuracy drop, in points, that is a regression.", rich_help_panel=OUT_PANEL
    ),
]
AlphaOpt = Annotated[
    float,
    typer.Option(
        min=0, max=1, help="Significance level of McNemar's test.", rich_help_panel=OUT_PANEL
    ),
]
ReportOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--report",
        metavar="FORMAT=PATH",
        help="Write a report (repeatable).",
        rich_help_panel=OUT_PANEL,
    ),
]
JunitOpt = Annotated[
    Path | None, typer.Option(help="Write a JUnit XML report.", rich_help_panel=OUT_PANEL)
]
MarkdownOpt = Annotated[
    Path | None, typer.Option(help="Write a Markdown report.", rich_help_panel=OUT_PANEL)
]
LabelOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--label", help="Label the run, e.g. baseline (repeatable).", rich_help_panel=OUT_PANEL
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]
DbOpt = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="History database (default TOOLGRADE_HOME/toolgrade.db).",
        rich_help_panel=OUT_PANEL,
    ),
]


def suite_source(suite: str) -> str:
    """Where to reload the suite from on resume: an absolute path, or the built-in name."""
    path = Path(suite)
    return str(path.resolve()) if path.exists() else suite


def key_values(items: list[str]) -> dict[str, JsonValue]:
    """`--option KEY=VALUE` items as a dict; VALUE is JSON, or a bare string.

    Raises:
        ConfigError: an item without `=` or without a key.
    """
    out: dict[str, JsonValue] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise toolgrade.ConfigError(f"--option needs KEY=VALUE, got {item!r}")
        try:
            out[key.strip()] = json.loads(text)
        except ValueError:
            out[key.strip()] = text  # a bare word is a string
    return out


def post_options(
    *,
    baseline: str | None,
    fail_on_regression: bool,
    threshold: float,
    alpha: float,
    reports: list[str] | None,
    junit: Path | None,
    markdown: Path | None,
    quiet: bool,
    db: Path | None = None,
) -> PostRunOptions:
    """The options that act on the finished run, checked.

    Raises:
        ConfigError: a `--report` that is not FORMAT=PATH.
    """
    files: dict[str, Path] = {}
    for item in reports or []:
        fmt, sep, path = item.partition("=")
        if not sep or not fmt.strip() or not path.strip():
            raise toolgrade.ConfigError(f"--report needs FORMAT=PATH, got {item!r}")
        files[fmt.strip().lower()] = Path(path.strip())
    if junit is not None:
        files["junit"] = junit
    if markdown is not None:
        files["markdown"] = markdown
    return PostRunOptions(
        baseline=baseline,
        fail_on_regression=fail_on_regression,
        threshold=threshold,
        alpha=alpha,
        reports=files,
        quiet=quiet,
        db=db,
    )
