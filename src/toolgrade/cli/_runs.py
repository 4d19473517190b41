"""`toolgrade runs list|show|tag|delete|export|import|merge`: the run history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

import toolgrade
from toolgrade._core.files import atomic_write_text
from toolgrade._core.json_data import JsonValue
from toolgrade.backends import write_replay_file
from toolgrade.cli._merge import merge
from toolgrade.cli._options import DbOption, JsonFlag
from toolgrade.errors import FileSystemError
from toolgrade.store import (
    RunSummary,
    delete_run,
    export_run,
    import_run,
    list_runs,
    resolve_run,
    resume_command,
    tag_run,
    untag,
)

__all__ = ["app"]

app = typer.Typer(
    name="runs",
    help="List, show, tag, delete, export, import and merge stored runs.",
    no_args_is_help=True,
)

_RefArgument = Annotated[
    str, typer.Argument(help="Run id (or unique prefix), tag, run folder, or exported JSON file.")
]


def _echo_json(value: JsonValue) -> None:
    typer.echo(json.dumps(value, indent=2, ensure_ascii=False))


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


@app.command("list")
def list_command(
    limit: Annotated[
        int, typer.Option("-n", "--limit", min=0, help="Show at most N runs (0: all).")
    ] = 20,
    model: Annotated[str | None, typer.Option(help="Only runs of this model.")] = None,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """List stored runs, newest first."""
    runs = list_runs(db=db, limit=limit or None, model=model)
    if as_json:
        _echo_json([r.to_dict() for r in runs])
        return
    if not runs:
        typer.echo("no stored runs")
        return
    typer.echo(_table([_LIST_HEADER, *(_list_row(r) for r in runs)]))
    unfinished = [r for r in runs if r.resume is not None]
    if unfinished:
        typer.echo(f"\nresume an interrupted run with: {resume_command(unfinished[0].run_id)}")
    unsaved = [r.save for r in runs if r.save is not None]
    if unsaved:
        typer.echo(f"\nsave a finished run that is not in the history with: {unsaved[0]}")


_LIST_HEADER = ("RUN", "STARTED", "MODEL", "MODE", "SUITE", "CASES", "ACCURACY", "STATUS", "TAGS")


def _list_row(r: RunSummary) -> tuple[str, ...]:
    cases = f"{r.total}/{r.planned}" if r.planned is not None else str(r.total)
    return (
        r.run_id,
        r.started_at[:19],
        r.model,
        r.mode or "-",
        f"{r.suite_name}@{r.suite_version}",
        cases,
        f"{_percent(r.accuracy)} ({r.passed}/{r.scored})",
        r.status if r.saved else f"{r.status} (not saved)",
        ", ".join(r.tags),
    )


def _table(rows: list[tuple[str, ...]]) -> str:
    """Columns padded to their widest cell (the last one is not padded)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = (
        "  ".join([*(c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)), row[-1]])
        for row in rows
    )
    return "\n".join(line.rstrip() for line in lines)


@app.command("show")
def show(ref: _RefArgument, as_json: JsonFlag = False, db: DbOption = None) -> None:
    """Show one run's settings and metrics."""
    run = toolgrade.resolve_run(ref, db=db)
    metrics = toolgrade.compute_metrics(run, seed=run.seed or 0)
    mode = run.backend.get("mode")
    mode = mode if isinstance(mode, str) else None
    cut_off = sum(r.finish_reason == "length" for r in run.results)
    # A run killed outright never wrote its final status: it still says `running`.
    status = "complete" if run.status == "complete" else "interrupted"
    resume = None if status == "complete" else resume_command(run.run_id)
    if as_json:
        header = run.model_dump(mode="json", exclude={"results"})
        extra: dict[str, JsonValue] = {"mode": mode, "cut_off": cut_off, "resume": resume}
        _echo_json({"run": header, "metrics": metrics.to_dict(), **extra})
        return
    acc = metrics.accuracy
    lines = [
        f"Run:       {run.run_id}" + (f"  [{', '.join(run.tags)}]" if run.tags else ""),
        f"Model:     {run.model}",
        f"Mode:      {mode or '-'}",
        f"Suite:     {run.suite_name} {run.suite_version} ({run.suite_hash})",
        f"Started:   {run.started_at.isoformat()}  ({status})",
        f"Rubric:    {run.rubric}, profile {run.profile}, repeat {run.repeat}",
        f"Cases:     {metrics.total} ({metrics.scored} scored, {metrics.timeouts} timeouts,"
        f" {metrics.errors} errors)",
        f"Accuracy:  {acc.rate:.1%} ({acc.passed}/{acc.n}; 95% CI"
        f" {acc.interval.low:.1%} - {acc.interval.high:.1%})",
        f"Score:     {metrics.mean_score:.3f} (F1 {metrics.f1:.3f})",
        "Statuses:  " + ", ".join(f"{k} {v}" for k, v in metrics.status_counts.items() if v),
    ]
    from toolgrade.report import as_served_line  # deferred: reports load on first use

    served = as_served_line(metrics)
    if served is not None:
        lines.append("Served:    " + served.removeprefix("As served: "))
    if metrics.repeats > 1:
        k = metrics.repeats
        consistency = "n/a" if metrics.consistency is None else f"{metrics.consistency:.1%}"
        pass_k = "n/a" if metrics.pass_hat_k is None else f"{metrics.pass_hat_k:.1%}"
        lines.append(f"Repeats:   {k} tries per case; consistency {consistency}, pass^{k} {pass_k}")
    if cut_off:
        lines.append(f"Cut off:   {cut_off} answers stopped at the token limit")
    if resume is not None:
        lines.append(f"Resume:    {resume}")
    typer.echo("\n".join(lines))


@app.command("tag")
def tag(
    ref: _RefArgument,
    tags: Annotated[list[str], typer.Argument(help="One or more tags, e.g. v1.2 baseline.")],
    remove: Annotated[bool, typer.Option("--remove", help="Remove the tags instead.")] = False,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Tag a stored run (a tag names one run: tagging another run moves it)."""
    if remove:
        removed = untag(tags, ref=ref, db=db)
        if as_json:
            _echo_json({"removed": list(removed)})
        else:
            typer.echo(f"removed: {', '.join(removed)}" if removed else "no such tag on that run")
        return
    run_id = tag_run(ref, tags, db=db)
    if as_json:
        _echo_json({"run_id": run_id, "tags": list(tags)})
    else:
        typer.echo(f"tagged {run_id}: {', '.join(tags)}")


@app.command("delete")
def delete(ref: _RefArgument, as_json: JsonFlag = False, db: DbOption = None) -> None:
    """Delete a run from the history (its run folder, if any, stays on disk)."""
    run_id = delete_run(ref, db=db)
    if as_json:
        _echo_json({"deleted": run_id})
    else:
        typer.echo(f"deleted {run_id}")


@app.command("export")
def export(
    ref: _RefArgument,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to FILE instead of printing.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Accepted; export is JSON.")] = True,
    responses: Annotated[
        Path | None,
        typer.Option(
            "--responses",
            help="Also write the run's raw outputs as a responses file (one line per case,"
            " or per step of a conversation), which `toolgrade evaluate` judges again.",
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Export a run (settings and every result) as JSON; `compare` and `report` read it back."""
    if responses is not None:
        run = resolve_run(ref, db=db)
        try:
            lines = write_replay_file(responses, run.results)
        except OSError as exc:
            raise FileSystemError.from_os_error(
                exc, action="cannot write the responses", path=str(responses)
            ) from exc
        typer.echo(f"wrote {lines} responses to {responses}", err=True)
        if output is None:
            return
    text = export_run(ref, db=db)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        # Atomic: a full disk leaves the old file (or none), never a truncated one.
        atomic_write_text(output, text)
    except OSError as exc:
        raise FileSystemError.from_os_error(
            exc, action="cannot write the export", path=str(output)
        ) from exc
    typer.echo(f"exported to {output}", err=True)


@app.command("import")
def import_folders(
    folders: Annotated[
        list[str],
        typer.Argument(metavar="FOLDER", help="Run folders (or run ids) of finished runs."),
    ],
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Save finished run folders to the history; again is harmless, labels are kept.

    A finished run that could not be saved (a locked, read-only or damaged database,
    a full disk) keeps everything in its run folder: this saves it later. Exit code 2
    when a folder could not be imported (the others are).
    """
    imported: list[JsonValue] = []
    failed: list[JsonValue] = []
    for ref in folders:
        try:
            run = import_run(ref, db=db)
        except toolgrade.ToolgradeError as exc:
            failed.append({"folder": ref, "error": str(exc)})
            if not as_json:
                typer.echo(f"error: {exc}", err=True)
            continue
        imported.append({"run_id": run.run_id, "results": len(run.results), "tags": [*run.tags]})
        if not as_json:
            labels = f" [{', '.join(run.tags)}]" if run.tags else ""
            typer.echo(f"imported {run.run_id} ({len(run.results)} results){labels}")
    if as_json:
        _echo_json({"imported": imported, "failed": failed})
    if failed:
        raise typer.Exit(2)


app.command("merge")(merge)
