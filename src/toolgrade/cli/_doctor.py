"""`toolgrade doctor --model SPEC`: diagnose a model server before a run."""

from __future__ import annotations

from typing import Annotated

import typer

import toolgrade

__all__ = ["doctor"]

_MARKS = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "skip": "skip"}


def doctor(
    model: Annotated[str, typer.Option("--model", "-m", help="PROVIDER/MODEL to check.")],
    base_url: Annotated[
        str | None, typer.Option(help="Server URL (default: the provider's).")
    ] = None,
    timeout: Annotated[float, typer.Option(min=0.001, help="Seconds allowed per request.")] = 60.0,
) -> None:
    """Check a model server: reachable, model listed, and whether a probe gets a tool call.

    Exit codes: 0 a probe called the tool, 1 no probe did, 3 server unreachable.
    """
    settings = toolgrade.BackendSettings(base_url=base_url, timeout=timeout, max_retries=0)
    diagnosis = toolgrade.diagnose_backend(model, settings=settings)
    for check in diagnosis.checks:
        typer.echo(f"[{_MARKS[check.outcome]}] {check.name}: {check.detail}")
    verdict = {0: "ready to run", 1: "no tool call came back", 3: "server unreachable"}
    typer.echo(f"{model}: {verdict[diagnosis.exit_code]}")
    raise typer.Exit(diagnosis.exit_code)
