"""The root command group, error mapping and command registration."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from typer.core import TyperGroup

import toolgrade
from toolgrade.cli import (
    _compare,
    _doctor,
    _extract,
    _import,
    _mcp,
    _report,
    _run,
    _runs,
    _score,
    _suite,
)

__all__ = ["app", "main"]


class _Group(TyperGroup):
    """Maps every `ToolgradeError` to a one-line message and its exit code."""

    def invoke(self, ctx: Any) -> Any:  # click.Context (typer vendors click)
        try:
            return super().invoke(ctx)
        except toolgrade.ToolgradeError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(exc.exit_code) from None


app = typer.Typer(
    cls=_Group,
    name="toolgrade",
    help="Measure how correctly a language model or an agent calls tools.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"toolgrade {toolgrade.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Measure how correctly a language model or an agent calls tools."""


app.command("run")(_run.run)
app.command("evaluate")(_run.evaluate)
app.command("doctor")(_doctor.doctor)
app.command("score")(_score.score)
app.command("extract")(_extract.extract)
app.command("mcp")(_mcp.mcp)
app.command("report")(_report.report)
app.add_typer(_suite.app, name="suite")
app.add_typer(_runs.app, name="runs")
app.command("compare")(_compare.compare)
app.add_typer(_import.app, name="import")


def main() -> None:
    """Run the command line (the `toolgrade` console script)."""
    app()
