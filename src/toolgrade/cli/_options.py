"""Option groups: a dataclass per group of command-line options, declared once.

Each field of a group carries its typer option in its metadata (`option(...)`);
`with_options` splices a group's fields into a command's signature, in place of one
parameter, and hands the command the assembled dataclass instance. Adding an option to
every command that takes its group is one field::

    @dataclass(frozen=True, slots=True)
    class ScoringOptions:
        repeat: int = field(
            default=1, metadata=option(min=1, help="Run each case K times.", panel="Running")
        )

    @with_options(scoring=ScoringOptions)
    def run(*, suite: SuiteOpt = None, scoring: ScoringOptions) -> None:
        ...  # `toolgrade run --repeat 3` calls run(suite=None, scoring=ScoringOptions(repeat=3))

A field may also name its keyword in the pytest marker (`marker="repeat"`):
`marker_options` lists those, with the option's own bounds and choices to check a
marker value against, so that the marker accepts what the command line does.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import Field
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

__all__ = ["DbOption", "JsonFlag", "MarkerOption", "marker_options", "option", "with_options"]

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
"""`--json`, as every command that prints something takes it."""
DbOption = Annotated[
    Path | None,
    typer.Option("--db", help="History database (default TOOLGRADE_HOME/toolgrade.db)."),
]
"""`--db`, as every command that reads or writes the run history takes it."""

_R = TypeVar("_R")
_OPTION = "toolgrade_option"
_MARKER = "toolgrade_marker"


def option(
    *decls: str,
    help: str,
    panel: str | None = None,
    marker: str | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """The metadata of a group field that declares a typer option (its default is the field's).

    Args:
        *decls: Option names, e.g. `"--limit", "-n"`; none derives `--field-name`.
        help: The `--help` text.
        panel: The `--help` panel (`rich_help_panel`); None is the default panel.
        marker: The option's keyword in `@pytest.mark.toolgrade(...)`, if it has one.
        **settings: Other `typer.Option` settings (`min`, `max`, `metavar`).

    Returns:
        `dataclasses.field` metadata.

    Examples:
        >>> spec = option("--limit", "-n", min=1, help="Keep at most N cases.")
        >>> spec["toolgrade_option"]["decls"]
        ('--limit', '-n')
    """
    spec = {"decls": decls, "help": help, "rich_help_panel": panel, **settings}
    return {_OPTION: spec, _MARKER: marker}


def _parameter(field: Field[Any], hint: Any) -> inspect.Parameter:
    spec = dict(field.metadata[_OPTION])
    info = typer.Option(*spec.pop("decls"), **spec)
    return inspect.Parameter(
        field.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=field.default,
        annotation=Annotated[hint, info],
    )


def _group_parameters(group: type[Any]) -> list[inspect.Parameter]:
    hints = typing.get_type_hints(group)
    return [_parameter(f, hints[f.name]) for f in dataclasses.fields(group)]


def with_options(**groups: type[Any]) -> Callable[[Callable[..., _R]], Callable[..., _R]]:
    """Splice option groups into a typer command, each in place of its parameter.

    The command declares keyword-only parameters named after the groups
    (`selection: SelectionOptions`); typer sees the groups' options there, in their
    field order, and the command receives one dataclass instance per group.

    Args:
        **groups: Parameter name -> option group (a dataclass of `option` fields).

    Returns:
        The decorator.
    """

    def decorate(command: Callable[..., _R]) -> Callable[..., _R]:
        signature = inspect.signature(command, eval_str=True)
        parameters: list[inspect.Parameter] = []
        for name, parameter in signature.parameters.items():
            group = groups.get(name)
            parameters += [parameter] if group is None else _group_parameters(group)
        names = {name: [f.name for f in dataclasses.fields(g)] for name, g in groups.items()}

        @functools.wraps(command)
        def assembled(**values: Any) -> _R:
            for name, group in groups.items():
                values[name] = group(**{key: values.pop(key) for key in names[name]})
            return command(**values)

        assembled.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        assembled.__annotations__ = {p.name: p.annotation for p in parameters}
        del assembled.__wrapped__  # typer must read the spliced signature, not the command's
        return assembled

    return decorate


@dataclasses.dataclass(frozen=True, slots=True)
class MarkerOption:
    """An option as a pytest marker keyword: its field, bounds and choices."""

    field: str
    """The group field it fills."""
    low: float | None = None
    """The option's `min`."""
    high: float | None = None
    """The option's `max`."""
    choices: tuple[str, ...] = ()
    """The allowed values of a `Literal` option (empty: any)."""

    def problem(self, key: str, value: object) -> str | None:
        """What is wrong with `value` for the marker keyword `key`; None when nothing."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            if self.low is not None and value < self.low:
                return f"{key} must be at least {self.low:g}, got {value!r}"
            if self.high is not None and value > self.high:
                return f"{key} must be at most {self.high:g}, got {value!r}"
        if self.choices and value is not None and value not in self.choices:
            return f"{key} must be one of {', '.join(self.choices)}, got {value!r}"
        return None


def _choices(hint: Any) -> tuple[str, ...]:
    if typing.get_origin(hint) is typing.Literal:
        return tuple(str(arg) for arg in typing.get_args(hint))
    return tuple(c for arg in typing.get_args(hint) for c in _choices(arg))


def marker_options(*groups: type[Any]) -> dict[str, MarkerOption]:
    """Marker keyword -> its option, for the fields of `groups` that name a keyword."""
    found: dict[str, MarkerOption] = {}
    for group in groups:
        hints = typing.get_type_hints(group)
        for f in dataclasses.fields(group):
            key, spec = f.metadata.get(_MARKER), f.metadata[_OPTION]
            if key:
                found[key] = MarkerOption(
                    f.name, spec.get("min"), spec.get("max"), _choices(hints[f.name])
                )
    return found
