"""Subcommands imported on first use (click's "lazy loading subcommands" pattern).

A group names its commands in a table, `name -> "module:attribute"`. A command's
module is imported, and its click command built, the first time the command is looked
up: when it runs, when its help or its group's help is shown, or when a shell completes
its name. `toolgrade score` thus imports what scoring needs, not the runner, the HTTP
client or the reports that other commands use.

The click command is built by typer's own registration (`Typer.command`,
`Typer.add_typer`), so it is the command an eager registration gives: the same
options, help texts and panels (tests/cli/test_cli_startup.py compares the two).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar

import typer
from typer.core import MarkupMode, TyperGroup

if TYPE_CHECKING:
    from typer._click import Command  # typer vendors click

__all__ = ["LazyCommands", "LazyGroup", "build_command"]


def build_command(
    name: str,
    target: str,
    *,
    rich_markup_mode: MarkupMode,
    suggest_commands: bool,
) -> Command:
    """Import `target` and build the click command typer makes of it under `name`.

    Args:
        name: The command's name in its group.
        target: `"module:attribute"`: a command function, or a `typer.Typer` holding a
            group of commands.
        rich_markup_mode: The parent application's, which typer gives its commands.
        suggest_commands: The parent application's, which typer gives its subgroups.

    Returns:
        The click command (a `TyperGroup` for a `typer.Typer`).
    """
    module, _, attribute = target.partition(":")
    obj = getattr(import_module(module), attribute)
    # A throwaway application holding only this command: typer builds it exactly as
    # it builds the commands registered on the real one.
    holder = typer.Typer(rich_markup_mode=rich_markup_mode, suggest_commands=suggest_commands)
    if isinstance(obj, typer.Typer):
        holder.add_typer(obj, name=name)
    else:
        holder.command(name)(obj)
    return typer.main.get_group(holder).commands[name]


class LazyCommands(MutableMapping[str, "Command"]):
    """A group's commands by name, in table order, each built the first time it is read.

    Names, membership and length never build anything: listing the commands, resolving
    a misspelt one (and suggesting a close name) cost no import.
    """

    def __init__(
        self,
        entries: Mapping[str, Command | str],
        build: Callable[[str, str], Command],
    ) -> None:
        """Hold `entries`: built commands, or `"module:attribute"` targets for `build`."""
        self._entries: dict[str, Command | str] = dict(entries)
        self._build = build

    def __getitem__(self, name: str) -> Command:
        entry = self._entries[name]
        if isinstance(entry, str):
            entry = self._entries[name] = self._build(name, entry)
        return entry

    def __setitem__(self, name: str, command: Command) -> None:
        self._entries[name] = command

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        # Mapping's own `in` reads the value, which would build the command.
        return name in self._entries


class LazyGroup(TyperGroup):
    """A typer group whose commands come from the table `lazy_commands`, built on use.

    Subclasses set `lazy_commands` (`name -> "module:attribute"`, in the order `--help`
    lists them); commands registered on the typer application the usual way are kept
    too, after them.
    """

    lazy_commands: ClassVar[Mapping[str, str]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = LazyCommands({**self.lazy_commands, **self.commands}, self._build)

    def list_commands(self, ctx: Any) -> list[str]:  # click.Context (typer vendors click)
        """The command names in table order, without building the commands."""
        return list(self.commands)

    def _build(self, name: str, target: str) -> Command:
        return build_command(
            name,
            target,
            rich_markup_mode=self.rich_markup_mode,
            suggest_commands=self.suggest_commands,
        )
