"""`toolgrade extract`: show the tool calls found in one model output (debug extraction)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated

import typer

import toolgrade
from toolgrade.cli._io import read_json, read_text
from toolgrade.extract import list_formats

__all__ = ["extract"]


def _print_formats() -> None:
    formats = list_formats()
    width = max(len(fmt.name) for fmt in formats)
    for fmt in formats:
        typer.echo(f"{fmt.name:<{width}}  {fmt.stage:<10}  {fmt.description}")


def extract(
    source: Annotated[
        str, typer.Argument(help="File holding the model output; - = standard input.")
    ] = "-",
    format: Annotated[
        str, typer.Option("--format", help="Force one format (see --list-formats); auto detects.")
    ] = "auto",
    tools: Annotated[
        str | None,
        typer.Option("--tools", help="Comma-separated tool names offered (rejects look-alikes)."),
    ] = None,
    message: Annotated[
        bool,
        typer.Option("--message", help="The input is a JSON assistant message or response."),
    ] = False,
    list_only: Annotated[
        bool, typer.Option("--list-formats", help="List the known formats and exit.")
    ] = False,
) -> None:
    """Extract the tool calls from a model output and print them as JSON."""
    if list_only:
        _print_formats()
        return
    output: str | Mapping[str, object]
    if message:
        name, value = read_json(source)
        if not isinstance(value, dict):
            raise toolgrade.InputError("--message needs a JSON object", path=name)
        output = value
    else:
        output = read_text(source)[1]
    names = [t.strip() for t in tools.split(",") if t.strip()] if tools is not None else None
    found = toolgrade.extract_calls(output, format=format, tools=names)
    payload = {
        "format": found.format,
        "calls": [call.to_dict() for call in found.calls],
        "errors": [error.model_dump() for error in found.errors],
    }
    typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
