"""`toolgrade doctor --model SPEC`: diagnose a model server before a run."""

from __future__ import annotations

from typing import Annotated, Literal

import typer

import toolgrade
from toolgrade.backends import DEFAULT_MAX_TOKENS
from toolgrade.cli._run_options import key_values

__all__ = ["doctor"]

_MARKS = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "skip": "skip"}


def doctor(
    model: Annotated[str, typer.Option("--model", "-m", help="PROVIDER/MODEL to check.")],
    base_url: Annotated[
        str | None, typer.Option(help="Server URL (default: the provider's).")
    ] = None,
    timeout: Annotated[float, typer.Option(min=0.001, help="Seconds allowed per request.")] = 60.0,
    mode: Annotated[
        Literal["native", "prompt"] | None,
        typer.Option(help="Probe only this mode (default: native, then prompt)."),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option",
            metavar="KEY=VALUE",
            help="Request option, as for run, e.g. tool_choice=auto (repeatable; VALUE as JSON).",
        ),
    ] = None,
    max_tokens: Annotated[
        int, typer.Option(min=1, help="Cap on the tokens of one answer.")
    ] = DEFAULT_MAX_TOKENS,
    stream: Annotated[
        bool, typer.Option(help="Stream answers (--no-stream for servers whose stream is broken).")
    ] = True,
    battery: Annotated[
        bool,
        typer.Option(
            "--battery",
            help="Also ask the parser battery: five probes (one call, two parallel calls, a"
            " call after reasoning, nested non-ASCII arguments, no call), each streamed and"
            " whole, with a verdict and the flag to try per probe. Ten more requests, which"
            " take minutes on a CPU server, so it is off by default.",
        ),
    ] = False,
) -> None:
    """Check a model server: reachable, model listed, and whether a probe gets a tool call.

    A replay/ or python/ model has no server: doctor checks that its file reads (or its
    module imports) instead, and says there is nothing to probe.

    Exit codes: 0 a probe called the tool (or the file reads / the module imports),
    1 no probe did, 2 the file or module is unusable, 3 server unreachable. The
    battery's lines do not change the exit code; the last line never says "ready"
    while one of them fails.
    """
    settings = toolgrade.BackendSettings(
        base_url=base_url,
        timeout=timeout,
        max_retries=0,
        options=key_values(option or []),
        max_tokens=max_tokens,
        stream=stream,
    )
    diagnosis = toolgrade.diagnose_backend(
        model, settings=settings, modes=None if mode is None else (mode,), battery=battery
    )
    for check in diagnosis.checks:
        typer.echo(f"[{_MARKS[check.outcome]}] {check.name}: {check.detail}")
    typer.echo(f"{model}: {diagnosis.verdict}")
    raise typer.Exit(diagnosis.exit_code)
