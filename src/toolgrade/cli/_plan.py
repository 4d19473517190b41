"""`toolgrade plan`: how many cases (or repeats) a comparison needs to detect a change.

The numbers are `toolgrade.power`'s (docs/metrics.md, "How large a suite must be"):
the exact McNemar power for the cases, Miller 2024's split of the discordance into
real differences and noise for the repeats. The discordance comes from an assumption
(`--discordance`), from two stored runs (`--from-run A --against B`: the share of
their paired cases that flipped) or from one run with repeats (`--from-run A`: its flip
rate, the noise, plus the change to detect).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated

import typer

import toolgrade
from toolgrade.cli._options import DbOption, JsonFlag
from toolgrade.metrics import NoiseFloor, noise_floor, request_temperature
from toolgrade.power import (
    DEFAULT_DISCORDANCE,
    cases_needed,
    connor_cases_needed,
    minimum_detectable_effect,
    repeats_needed,
)

__all__ = ["plan"]


@dataclass(frozen=True, slots=True)
class Plan:
    """What `toolgrade plan` prints."""

    delta: float
    alpha: float
    power: float
    discordance: float
    source: str
    cases_needed: int | None
    connor: int | None
    suite_cases: int | None
    suite_mde: float | None
    flip_rate: float | None
    repeats_needed: int | None


def _noise(run: toolgrade.RunResult) -> NoiseFloor | None:
    """The run's noise floor (its repeats), computed as its reports compute it."""
    scored = [r for r in run.results if r.status.scored]
    return noise_floor(scored, run.repeat, temperature=request_temperature(run.backend))


def _from_runs(
    ref: str, against: str | None, delta: float, db: Path | None
) -> tuple[float, int, float | None, str]:
    """(discordance, cases, flip rate, where they come from) of stored runs."""
    run = toolgrade.resolve_run(ref, db=db)
    noise = _noise(run)
    flips = noise.flip_rate if noise is not None else None
    if against is not None:
        comparison = toolgrade.compare_runs(run, toolgrade.resolve_run(against, db=db))
        source = (
            f"{comparison.discordance:.1%} of the {comparison.shared_cases} cases paired"
            f" between {run.run_id} and {comparison.candidate_id} flipped"
        )
        return max(comparison.discordance, delta), comparison.shared_cases, flips, source
    if flips is None:
        raise toolgrade.ConfigError(
            f"run {run.run_id} ran each case once: give a second run (--against) or a"
            " run made with --repeat"
        )
    source = f"the flip rate of {run.run_id}'s repeats ({flips:.1%}) plus the change to detect"
    cases = len({r.case_id for r in run.results if r.status.scored})
    return min(1.0, flips + delta), cases, flips, source


def make_plan(
    delta: float,
    *,
    discordance: float | None,
    suite_cases: int | None,
    flips: float | None,
    alpha: float,
    power: float,
    source: str,
) -> Plan:
    """Put the numbers together (a discordance below the change is raised to it)."""
    d = max(discordance if discordance is not None else DEFAULT_DISCORDANCE, delta)
    return Plan(
        delta=delta,
        alpha=alpha,
        power=power,
        discordance=d,
        source=source,
        cases_needed=cases_needed(delta, d, alpha=alpha, power=power),
        connor=connor_cases_needed(delta, d, alpha=alpha, power=power),
        suite_cases=suite_cases,
        suite_mde=(
            minimum_detectable_effect(suite_cases, d, alpha=alpha, power=power)
            if suite_cases
            else None
        ),
        flip_rate=flips,
        repeats_needed=(
            repeats_needed(suite_cases, delta, d, flips, alpha=alpha, power=power)
            if suite_cases and flips is not None
            else None
        ),
    )


def format_plan(p: Plan) -> str:
    """The plan as text."""
    lines = [
        f"To detect a change of {p.delta * 100:g} points (two-sided alpha {p.alpha:g},"
        f" power {p.power:g}):",
        f"  Discordance: {p.discordance:.1%} of cases flip between the runs ({p.source})",
        f"  Cases needed: {p.cases_needed:,} (exact McNemar test; Connor's normal"
        f" approximation: {p.connor:,})"
        if p.cases_needed is not None and p.connor is not None
        else "  Cases needed: none can tell (the change is 0)",
    ]
    if p.suite_cases:
        mde = (
            f"detects changes of about {p.suite_mde * 100:.1f} points"
            if p.suite_mde is not None
            else "detects no change of any size reliably"
        )
        lines.append(f"  This suite ({p.suite_cases:,} cases) {mde}")
        if p.flip_rate is None:
            lines.append(
                "  Repeats: give --flip-rate (cases that flip between identical runs) or"
                " --from-run a run made with --repeat"
            )
        elif p.repeats_needed is None:
            lines.append(
                f"  Repeats: none are enough: with a flip rate of {p.flip_rate:.1%}, the"
                " real differences between cases need more cases, not more tries"
            )
        else:
            lines.append(
                f"  Repeats: {p.repeats_needed} tries per case of these {p.suite_cases:,}"
                f" (flip rate {p.flip_rate:.1%}; tries averaged, Miller 2024)"
            )
    return "\n".join(lines) + "\n"


def plan(
    delta: Annotated[
        float,
        typer.Option(min=0.01, max=100, help="The change to detect, in percentage points."),
    ],
    suite: Annotated[
        str | None, typer.Option("--suite", "-s", help="Suite file, folder or built-in name.")
    ] = None,
    discordance: Annotated[
        float | None,
        typer.Option(
            min=0,
            max=1,
            help="Share of cases that flip between the two runs (default 0.15 without --from-run).",
        ),
    ] = None,
    flip_rate_: Annotated[
        float | None,
        typer.Option(
            "--flip-rate",
            min=0,
            max=1,
            help="Share of cases that flip between two runs of identical settings (noise).",
        ),
    ] = None,
    from_run: Annotated[
        str | None,
        typer.Option(
            "--from-run",
            help="Estimate the rates from a stored run (its repeats, or --against).",
        ),
    ] = None,
    against: Annotated[
        str | None,
        typer.Option(help="A second stored run: the discordance is the share that flipped."),
    ] = None,
    alpha: Annotated[
        float, typer.Option(min=0, max=1, help="Two-sided significance level.")
    ] = 0.05,
    power: Annotated[
        float, typer.Option(min=0, max=1, help="Probability of detecting the change.")
    ] = 0.8,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """How many cases, or repeats, a comparison needs to detect a change of DELTA points.

    From an assumed discordance (--discordance, default 0.15) or from stored runs
    (--from-run RUN with --against RUN, or a run made with --repeat); with --suite, also
    the smallest change that suite detects and the repeats it needs.
    """
    if against is not None and from_run is None:
        raise toolgrade.ConfigError("--against needs --from-run")
    size = delta / 100.0
    suite_cases = len(toolgrade.load_suite(suite).cases) if suite else None
    flips = flip_rate_
    source = "assumed" if discordance is not None else f"assumed, the default {DEFAULT_DISCORDANCE}"
    if from_run is not None:
        estimated, cases, run_flips, source = _from_runs(from_run, against, size, db)
        discordance = estimated if discordance is None else discordance
        suite_cases = suite_cases or cases
        flips = run_flips if flips is None else flips
    result = make_plan(
        size,
        discordance=discordance,
        suite_cases=suite_cases,
        flips=flips,
        alpha=alpha,
        power=power,
        source=source,
    )
    if as_json:
        typer.echo(json.dumps(asdict(result), indent=2))
    else:
        typer.echo(format_plan(result), nl=False)
