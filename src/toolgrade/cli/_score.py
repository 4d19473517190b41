"""`toolgrade score`: F1 of two lists of calls."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import typer

import toolgrade
from toolgrade._core.json_data import JsonValue
from toolgrade.calls import ToolCall, as_calls
from toolgrade.cli._io import read_json

__all__ = ["score"]


def score(
    expected: Annotated[
        str, typer.Argument(help="JSON list of expected calls, or {expected, actual}; - = stdin.")
    ],
    actual: Annotated[
        str | None, typer.Argument(help="JSON list of actual calls; - = stdin.")
    ] = None,
    order: Annotated[
        Literal["any", "strict"],
        typer.Option(help="Pair calls in any order, or keep their order (strict)."),
    ] = "any",
    as_json: Annotated[bool, typer.Option("--json", help="Print the full result as JSON.")] = False,
) -> None:
    """Score actual tool calls against expected ones (call-level precision, recall, F1)."""
    if expected == "-" and actual == "-":
        raise toolgrade.InputError(
            "EXPECTED and ACTUAL are both '-', but standard input can be read only once:"
            " give one side as a file, or pipe one JSON object"
            ' {"expected": [...], "actual": [...]} to `toolgrade score -`'
        )
    exp_name, first = read_json(expected)
    if actual is None:
        if not isinstance(first, dict) or not {"expected", "actual"} <= first.keys():
            raise toolgrade.InputError(
                'a single file must hold {"expected": [...], "actual": [...]}', path=exp_name
            )
        exp_calls, act_calls, act_name = first["expected"], first["actual"], exp_name
    else:
        act_name, act_calls = read_json(actual)
        exp_calls = first
    result = toolgrade.score_calls(
        _calls(exp_calls, "expected", exp_name), _calls(act_calls, "actual", act_name), order=order
    )
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        typer.echo(result.summary)


def _calls(calls: JsonValue, side: str, file: str) -> tuple[ToolCall, ...]:
    """Read one side, so that an error names the file it came from."""
    try:
        return as_calls(calls, side=side)
    except toolgrade.InputError as exc:
        raise toolgrade.InputError(exc.message, path=file) from None
