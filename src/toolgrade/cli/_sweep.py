"""`toolgrade sweep SWEEP.toml`: several models on several suites, then the leaderboard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from toolgrade.cli._options import DbOption
from toolgrade.errors import ConfigError
from toolgrade.sweep import (
    SweepEvent,
    history_leaderboard,
    load_sweep,
    render_leaderboard_text,
    run_sweep,
    sweep_leaderboard,
    write_leaderboard_html,
)

__all__ = ["sweep"]


def sweep(
    config: Annotated[
        Path, typer.Argument(metavar="SWEEP.toml", help="The sweep file: models, suites, settings.")
    ],
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Run every combination again, ignoring earlier runs.")
    ] = False,
    report_only: Annotated[
        bool,
        typer.Option(
            "--report-only", help="Run nothing: build the leaderboard from the run history."
        ),
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", metavar="FILE", help="Write the leaderboard as an HTML page."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the leaderboard as JSON instead of text.")
    ] = False,
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="Cases in flight per run, for every model (overrides the file)."),
    ] = None,
    alpha: Annotated[
        float, typer.Option(min=0, max=1, help="Significance level of McNemar's test.")
    ] = 0.05,
    threshold: Annotated[
        float,
        typer.Option(
            min=0,
            help="The gap to the best, in points, that matters: a regression goes beyond"
            " it, an equivalent model stays inside it.",
        ),
    ] = 2.0,
    db: DbOption = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print the leaderboard and errors only.")
    ] = False,
) -> None:
    """Run every model of a sweep file on every suite, then print the leaderboard.

    Each (model, suite) combination is one run, saved to the history and tagged
    sweep:NAME/MODEL/SUITE. Running the same file again reuses finished runs with the
    same settings, resumes interrupted ones and runs the rest; Ctrl-C stops cleanly.
    Exit codes: 0 ok, 2 bad sweep file, 3 a combination failed (its server unreachable,
    or no case scored), 130 interrupted.
    """
    if fresh and report_only:
        raise ConfigError("--fresh and --report-only exclude each other")
    sweep_config = load_sweep(config)
    code = 0
    if report_only:
        board = history_leaderboard(sweep_config, db=db, alpha=alpha, threshold=threshold)
    else:
        result = run_sweep(
            sweep_config,
            db=db,
            fresh=fresh,
            concurrency=concurrency,
            progress="none" if quiet else "auto",
            on_event=None if quiet else _print_event,
        )
        board = sweep_leaderboard(result, alpha=alpha, threshold=threshold)
        code = result.exit_code
        for outcome in result.failed:
            typer.echo(f"error: {outcome.model} x {outcome.suite}: {outcome.error}", err=True)
        if result.interrupted:
            typer.echo(f"interrupted: run `toolgrade sweep {config}` again to continue", err=True)
    if as_json:
        typer.echo(json.dumps(board.to_dict(), indent=2, ensure_ascii=False))
    else:
        typer.echo(render_leaderboard_text(board), nl=False)
    if html is not None:
        path = write_leaderboard_html(board, html)
        if not quiet:
            typer.echo(f"wrote the HTML leaderboard to {path}", err=True)
    raise typer.Exit(code)


def _print_event(event: SweepEvent) -> None:
    typer.echo(event.describe(), err=True)
