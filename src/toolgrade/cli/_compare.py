"""`toolgrade compare BASELINE CANDIDATE [MORE...]`: a verdict, or a side-by-side view."""

from __future__ import annotations

import json
from typing import Annotated

import typer

import toolgrade
from toolgrade.cli._compare_text import format_comparison, format_many
from toolgrade.cli._options import DbOption, JsonFlag
from toolgrade.compare import gate_verdict

__all__ = ["compare"]


def compare(
    runs: Annotated[
        list[str],
        typer.Argument(
            help="Two or more runs: id (or unique prefix), tag, run folder or exported JSON"
            " file. The first is the baseline."
        ),
    ],
    threshold: Annotated[
        float,
        typer.Option(
            min=0,
            help="The change, in points, that matters: a regression or improvement goes"
            " beyond it, an equivalent comparison stays inside it.",
        ),
    ] = 2.0,
    alpha: Annotated[
        float, typer.Option(min=0, max=1, help="Significance level of McNemar's test.")
    ] = 0.05,
    fail_on_regression: Annotated[
        bool, typer.Option("--fail-on-regression", help="Exit 1 when a regression is found.")
    ] = False,
    fail_on_inconclusive: Annotated[
        bool,
        typer.Option(
            "--fail-on-inconclusive",
            help="Exit 3 when the suite cannot tell (an inconclusive verdict).",
        ),
    ] = False,
    as_served: Annotated[
        bool,
        typer.Option(
            "--as-served",
            help="Let the --fail-on options decide on the accuracy as served (a case counts"
            " only when its calls came as structured tool_calls): a server-upgrade gate.",
        ),
    ] = False,
    as_json: JsonFlag = False,
    db: DbOption = None,
) -> None:
    """Compare a candidate run with a baseline, or several runs side by side.

    With two runs: accuracy delta with its interval, fixed and broken cases, McNemar's
    exact test, the smallest change the suite can detect and a verdict: regression,
    improvement, equivalent (the 90% interval inside ±threshold) or inconclusive. With
    more: every run side by side, the best marked, each tested against the best; the
    --fail-on options then check each run against the first.

    When the runs were served differently (server, build, mode, stream, options), or a
    case's calls did not all reach the client as tool_calls, the accuracy as served is
    compared too and the flipped cases are grouped by serving class, each group read as
    the server's or the model's doing; --as-served gates on the verdict as served.

    Exit codes: 0 ok, 1 a regression (with --fail-on-regression; it wins over an
    inconclusive one), 2 bad input, 3 an inconclusive verdict (with --fail-on-inconclusive).
    """
    if len(runs) < 2:
        raise toolgrade.ConfigError("compare needs at least two runs (BASELINE CANDIDATE)")
    resolved = [toolgrade.resolve_run(ref, db=db) for ref in runs]
    baseline, others = resolved[0], resolved[1:]
    comparisons = [
        toolgrade.compare_runs(baseline, other, threshold=threshold, alpha=alpha)
        for other in others
    ]
    if len(resolved) == 2:
        if as_json:
            typer.echo(json.dumps(comparisons[0].to_dict(), indent=2, ensure_ascii=False))
        else:
            typer.echo(format_comparison(comparisons[0]), nl=False)
    else:
        many = toolgrade.compare_many(resolved, alpha=alpha)
        if as_json:
            payload = {
                "side_by_side": many.to_dict(),
                "vs_baseline": [c.to_dict() for c in comparisons],
            }
            typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        else:
            typer.echo(format_many(many))
            for comp in comparisons:
                served = comp.serving
                also = f"; as served: {served.verdict}" if served and served.shown else ""
                typer.echo(
                    f"{comp.candidate_label} vs {comp.baseline_label} (baseline):"
                    f" {comp.verdict}{also}"
                )
    verdicts = [gate_verdict(c, as_served=as_served) for c in comparisons]
    if fail_on_regression and "regression" in verdicts:
        raise typer.Exit(1)
    if fail_on_inconclusive and "inconclusive" in verdicts:
        raise typer.Exit(3)
