"""`toolgrade import bfcl|bfcl-results|when2call`: bring other benchmarks' data into toolgrade."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer

import toolgrade
from toolgrade._core.json_data import JsonValue
from toolgrade.errors import InputError

__all__ = ["app"]

app = typer.Typer(
    name="import",
    help="Import other benchmarks' data and results (BFCL, When2Call).",
    no_args_is_help=True,
)


@app.command("bfcl")
def bfcl(
    category: Annotated[
        list[str] | None,
        typer.Option(
            "--category",
            "-c",
            help="A BFCL category, single-turn or multi-turn (repeatable). None: list them.",
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="The suite file to write.")
    ] = None,
    data_dir: Annotated[
        str | None,
        typer.Option(
            "--data-dir",
            help="A folder or bfcl_eval wheel holding BFCL's data "
            "(default: the installed bfcl_eval package).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="List categories as JSON.")] = False,
) -> None:
    """Convert BFCL v4 categories into a toolgrade suite.

    Single-turn categories give cases; multi-turn categories (multi_turn_base,
    multi_turn_miss_func, multi_turn_miss_param, multi_turn_long_context) give
    conversations run on BFCL's own API classes (they need bfcl-eval installed). One
    suite holds one kind. Without --category, list the categories with their number of
    entries.
    """
    if not category:
        rows = toolgrade.bfcl_categories(data_dir)
        if as_json:
            listing: list[JsonValue] = [{"category": c, "entries": n} for c, n in rows]
            typer.echo(json.dumps(listing, indent=2))
            return
        width = max(len(c) for c, _ in rows)
        for name, size in rows:
            typer.echo(f"{name:<{width}}  {'missing' if size is None else size}")
        return
    if out is None:
        raise InputError("give --out SUITE.json for the imported suite")
    suite = toolgrade.import_bfcl(category, data_dir=data_dir)
    if suite.conversations:
        _write(out, json.dumps(suite.to_dict(), indent=1, ensure_ascii=False) + "\n")
        turns = sum(len(c.turns) for c in suite.conversations)
        typer.echo(
            f"{out}: suite {suite.name!r}, {len(suite.conversations)} conversations, "
            f"{turns} turns, {len(suite.tools)} tools"
        )
        return
    _write(out, suite.model_dump_json(exclude_none=True, indent=1))
    docs = sum(len(c.tool_definitions) for c in suite.cases)
    typer.echo(f"{out}: suite {suite.name!r}, {len(suite.cases)} cases, {docs} function docs")


@app.command("bfcl-results")
def bfcl_results(
    result: Annotated[Path, typer.Argument(help="A BFCL result file (JSON Lines).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The responses file to write.")],
    style: Annotated[
        Literal["auto", "fc", "prompting"],
        typer.Option(
            help="Multi-turn: how the model answered, function calls or text "
            "(auto: fc when any step holds calls)."
        ),
    ] = "auto",
) -> None:
    """Turn a BFCL result file into a toolgrade responses file (for `evaluate`).

    Single-turn files give one response per entry; multi-turn files one per step, with
    its turn and step. Prints the command that judges them again with BFCL's rules.
    """
    from toolgrade.bfcl import read_bfcl_results

    converted = read_bfcl_results(result, style=None if style == "auto" else style)
    text = "".join(line.model_dump_json(exclude_none=True) + "\n" for line in converted.lines)
    _write(out, text)
    if converted.multi_turn:
        entries = len({line.case_id for line in converted.lines})
        typer.echo(f"{out}: {len(converted.lines)} steps of {entries} multi-turn entries")
    else:
        typer.echo(f"{out}: {len(converted.lines)} responses")
    if converted.early_ends:
        typer.echo(
            f"note: {converted.early_ends} step(s) hold calls only BFCL's decoder reads: the "
            "replay ends those turns there (see docs/bfcl.md)"
        )
    typer.echo(f"judge again: {converted.evaluate_command(out)}")


@app.command("when2call")
def when2call(
    source: Annotated[Path, typer.Argument(help="A When2Call file (JSON Lines).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The suite file to write.")],
    name: Annotated[
        str | None, typer.Option("--name", help="The suite name (default: when2call).")
    ] = None,
) -> None:
    """Convert NVIDIA When2Call's JSONL (test or same-format file) into a toolgrade suite.

    One case a line, expecting what When2Call's correct_answer says: tool_call -> call
    (answers.tool_call as the expected call), request_for_info -> clarify (the
    held-out parameter as missing), cannot_answer -> refuse, direct -> answer.
    """
    suite = toolgrade.import_when2call(source, name=name)
    _write(out, json.dumps(suite.to_dict(), indent=1, ensure_ascii=False) + "\n")
    counts = dict.fromkeys(suite.categories or (), 0)
    for case in suite.cases:
        counts[case.category] += 1
    shown = ", ".join(f"{n} {c}" for c, n in counts.items() if n)
    typer.echo(f"{out}: suite {suite.name!r}, {len(suite.cases)} cases ({shown})")


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", path=str(path)) from None
