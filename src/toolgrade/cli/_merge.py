"""`toolgrade runs merge RUN...`: one run from the shards of a run (`run --shard I/N`).

Registered by the command group of `runs` (`cli/_runs.py`) as `merge`.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

import toolgrade
from toolgrade._core.json_data import JsonValue
from toolgrade._health import run_summary_line
from toolgrade.cli._options import DbOption, JsonFlag
from toolgrade.errors import ConfigError
from toolgrade.store import merge_problems, merge_runs, resolve_run, save_run

__all__ = ["merge"]


def merge(
    runs: Annotated[
        list[str],
        typer.Argument(
            metavar="RUN...",
            help="The shards 1/N ... N/N: run ids, tags, run folders or exported files"
            " (`toolgrade runs export`), e.g. from the jobs of a CI matrix.",
        ),
    ],
    tag: Annotated[
        list[str] | None,
        typer.Option("--tag", help="Tag the merged run (repeatable), e.g. nightly."),
    ] = None,
    suite: Annotated[
        str | None,
        typer.Option(
            "--suite",
            "-s",
            help="The suite the shards ran (optional): checked against them, and names"
            " the cases an unfinished shard lacks.",
        ),
    ] = None,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Merge the shards of a run into one run, saved to the history like `runs import`.

    The merged run reads as the unsharded run in every report and in `compare`. It is
    refused, with every reason, when the shards differ in suite content, selection,
    model, settings, server or toolgrade version, when a shard is missing, repeated or
    unfinished, or when cases overlap. Exit code 2 when refused.
    """
    found: list[toolgrade.RunResult] = []
    problems: list[str] = []
    for ref in runs:
        try:
            found.append(resolve_run(ref, db=db))
        except toolgrade.ToolgradeError as exc:
            problems.append(f"{ref}: {exc}")
    loaded = toolgrade.load_suite(suite) if suite is not None else None
    if not problems:
        problems += merge_problems(found, suite=loaded)
    if problems:
        _refuse(problems, as_json=as_json)
    merged = merge_runs(found, suite=loaded, tags=tuple(tag or ()))
    save_run(merged, db=db)
    shards = [r.run_id for r in found]
    if as_json:
        summary: dict[str, JsonValue] = {
            "run_id": merged.run_id,
            "shards": [*shards],
            "results": len(merged.results),
            "suite_hash": merged.suite_hash,
            "tags": [*merged.tags],
            "summary": run_summary_line(merged.results),
        }
        typer.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    labels = f" [{', '.join(merged.tags)}]" if merged.tags else ""
    typer.echo(
        f"merged {len(shards)} shards ({', '.join(shards)}) into run {merged.run_id}{labels}"
    )
    typer.echo(f"{len(merged.results)} results: {run_summary_line(merged.results)}")


def _refuse(problems: list[str], *, as_json: bool) -> None:
    """Print every reason and exit 2 (as JSON with `--json`)."""
    if as_json:
        typer.echo(json.dumps({"run_id": None, "problems": problems}, indent=2))
        raise typer.Exit(2)
    raise ConfigError("cannot merge these runs:\n" + "\n".join(f"  - {p}" for p in problems))
