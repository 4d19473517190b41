"""The root command group, error mapping and command table."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from typer.core import TyperOption

import toolgrade
from toolgrade.cli._lazy import LazyGroup
from toolgrade.cli._process import reader_gone, resume_collector, version_line
from toolgrade.errors import FileSystemError

__all__ = ["COMMANDS", "app"]

COMMANDS = {
    "run": "toolgrade.cli._run:run",
    "evaluate": "toolgrade.cli._run:evaluate",
    "doctor": "toolgrade.cli._doctor:doctor",
    "score": "toolgrade.cli._score:score",
    "extract": "toolgrade.cli._extract:extract",
    "mcp": "toolgrade.cli._mcp:mcp",
    "report": "toolgrade.cli._report:report",
    "compare": "toolgrade.cli._compare:compare",
    "plan": "toolgrade.cli._plan:plan",
    "sweep": "toolgrade.cli._sweep:sweep",
    "suite": "toolgrade.cli._suite:app",
    "runs": "toolgrade.cli._runs:app",
    "import": "toolgrade.cli._import:app",
}
"""Every command: name -> `module:attribute`, a function or a `typer.Typer` (a group).

In the order `toolgrade --help` lists them: typer listed the single commands first, then
the groups, when they were registered eagerly, and the listing stays as it was. A
command's module is imported only when the command is looked up (`cli/_lazy.py`).
"""


def _fail(exc: toolgrade.ToolgradeError) -> typer.Exit:
    typer.echo(f"error: {exc}", err=True)
    return typer.Exit(exc.exit_code)


class _Group(LazyGroup):
    """Maps every `ToolgradeError` and `OSError` to a one-line message and its exit code.

    An `OSError` that nothing translated on the way (a full disk, a permission, a
    read-only file system) becomes a `FileSystemError` here: one line naming the file
    and the reason, exit code 2, instead of a traceback. A broken pipe is not a file
    system error: standard output's reader went away (`toolgrade ... | head -1`), and
    the command ends quietly with exit code 1 (`reader_gone`), as typer does for help.
    """

    lazy_commands = COMMANDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _hide_flag_types()

    def invoke(self, ctx: Any) -> Any:  # click.Context (typer vendors click)
        try:
            return super().invoke(ctx)
        except toolgrade.ToolgradeError as exc:
            raise _fail(exc) from None
        except BrokenPipeError:
            reader_gone()
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
        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Measure how correctly a language model or an agent calls tools."""
    # The command is resolved (imported) and about to parse its options and run: the
    # start is over (see `PausedCollector`).
    resume_collector()
