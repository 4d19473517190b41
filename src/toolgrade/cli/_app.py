"""The root command group, error mapping and command registration."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from typer.core import TyperGroup, TyperOption

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
from toolgrade.errors import FileSystemError

__all__ = ["app", "main"]


def _fail(exc: toolgrade.ToolgradeError) -> typer.Exit:
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(exc.exit_code)


class _Group(TyperGroup):
    """Maps every `ToolgradeError` and `OSError` to a one-line message and its exit code.

    An `OSError` that nothing translated on the way (a full disk, a permission, a
    read-only file system) becomes a `FileSystemError` here: one line naming the file
    and the reason, exit code 2, instead of a traceback.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _hide_flag_types()

    def invoke(self, ctx: Any) -> Any:  # click.Context (typer vendors click)
        try:
            return super().invoke(ctx)
        except toolgrade.ToolgradeError as exc:
            raise _fail(exc) from None
        except OSError as exc:
            raise _fail(FileSystemError.from_os_error(exc)) from exc


def _hide_flag_types() -> None:
    """Show no value type after a boolean flag in `--help` (not `--json <bool>`).

    A flag takes no value, so there is no type to show; click's plain help skips it,
    but typer's rich help asks `TyperOption.display_type_rich()`, which answers
    `<bool>` for flags too: every flag of every command, `--help` included, showed it.
    Fixed once on the class, when the command line is built, so that every command
    (and those added later) is covered.
    """
    current = TyperOption.display_type_rich
    if getattr(current, "_toolgrade_flag_aware", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag and self.metavar is None else current(self, ctx)

    display_type_rich._toolgrade_flag_aware = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


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
