"""`toolgrade run` and `toolgrade evaluate`: run a suite, then save, compare and report.

`evaluate` is `run` with the replay backend: the model is `replay/RESPONSES` and there
are no request options. The options come in groups (`cli/_run_options.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

import toolgrade
from toolgrade.cli._options import with_options
from toolgrade.cli._post import PostRunOptions, after_run
from toolgrade.cli._run_options import (
    RUN_PANEL,
    PostOptions,
    RequestOptions,
    ScoringOptions,
    SuiteOpt,
    run_options,
    suite_source,
)
from toolgrade.cli._selection import SelectionOptions

__all__ = ["evaluate", "run"]

_ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        help="PROVIDER/MODEL: openai/, vllm/, llamacpp/, lmstudio/, sglang/, ollama/,"
        " replay/FILE.jsonl, python/module:function.",
    ),
]
_ResumeOpt = Annotated[
    str | None,
    typer.Option(
        help="Finish an interrupted run: only missing cases run.", rich_help_panel=RUN_PANEL
    ),
]
_EvaluateSuiteOpt = Annotated[
    str, typer.Option("--suite", "-s", help="Suite file, folder or built-in name.")
]
_ResponsesOpt = Annotated[
    Path,
    typer.Option(help='Recorded outputs, JSONL: {"case_id", "output" | "message"} per line.'),
]


@with_options(
    selection=SelectionOptions, scoring=ScoringOptions, request=RequestOptions, post=PostOptions
)
def run(
    *,
    suite: SuiteOpt = None,
    model: _ModelOpt = None,
    selection: SelectionOptions,
    scoring: ScoringOptions,
    request: RequestOptions,
    resume: _ResumeOpt = None,
    post: PostOptions,
) -> None:
    """Run a suite against a model, then save, compare with a baseline and report.

    Results are written case by case to TOOLGRADE_HOME/runs/RUN_ID/; Ctrl-C stops
    cleanly and `--resume RUN_ID` finishes the run. Exit codes: 0 ok, 1 regression
    (with --fail-on-regression), 2 bad input (or no case scored from a responses file),
    3 model server unreachable (or no case scored), or an inconclusive verdict vs
    --baseline (with --fail-on-inconclusive; a regression wins), 130 interrupted.
    """
    if resume is not None:
        after = post.post_run()
        loaded = toolgrade.load_suite(suite) if suite else None
        urls = request.urls() or None  # other servers than the recorded ones
        resumed = toolgrade.resume_run(
            resume, suite=loaded, progress=_progress(after), endpoints=urls
        )
        _finish(resumed, after)
        return
    if suite is None or model is None:
        post.post_run()  # a bad --report is the first error, as in a full run
        raise toolgrade.ConfigError("--suite and --model are required (or --resume RUN_ID)")
    _run_and_report(suite, model, selection=selection, scoring=scoring, request=request, post=post)


@with_options(selection=SelectionOptions, scoring=ScoringOptions, post=PostOptions)
def evaluate(
    *,
    suite: _EvaluateSuiteOpt,
    responses: _ResponsesOpt,
    selection: SelectionOptions,
    scoring: ScoringOptions,
    post: PostOptions,
) -> None:
    """Score recorded outputs against a suite (the same as `run --model replay/FILE`).

    Exit codes: 0 ok, 1 regression (with --fail-on-regression), 2 bad input, including a
    responses file from which no case could be scored, 3 an inconclusive verdict vs
    --baseline (with --fail-on-inconclusive; a regression wins), 130 interrupted.
    """
    _run_and_report(
        suite,
        f"replay/{responses}",
        selection=selection,
        scoring=scoring,
        request=RequestOptions(),
        post=post,
    )


def _run_and_report(
    suite: str,
    model: str,
    *,
    selection: SelectionOptions,
    scoring: ScoringOptions,
    request: RequestOptions,
    post: PostOptions,
) -> None:
    """Run the selected cases of `suite` against `model`, then save, compare and report."""
    after = post.post_run()  # a bad --report fails before the run, not after it
    chosen = selection.selection()
    whole = toolgrade.load_suite(suite)
    options = run_options(
        scoring,
        request,
        seed=selection.seed,
        tags=tuple(post.label or ()),
        selection=chosen.for_run(whole),
        suite_source=suite_source(suite),
    )
    cases = toolgrade.select_cases(whole, chosen)
    _finish(_start(cases, model, options, progress=_progress(after)), after)


def _progress(after: PostRunOptions) -> Literal["auto", "none"]:
    return "none" if after.quiet else "auto"


def _start(
    suite: toolgrade.Suite, model: str, options: toolgrade.RunOptions, *, progress: str
) -> toolgrade.RunResult:
    if not suite.cases:
        raise toolgrade.ConfigError(f"no case of suite {suite.name!r} matches the selection")
    return toolgrade.run_suite(suite, model, options=options, progress=progress)  # type: ignore[arg-type]


def _finish(result: toolgrade.RunResult, after: PostRunOptions) -> None:
    if result.status == "interrupted":
        typer.echo(
            f"interrupted: {len(result.results)} results kept in run {result.run_id};"
            f" finish it with: toolgrade run --resume {result.run_id}",
            err=True,
        )
        raise typer.Exit(130)
    if result.stream_checks and not after.quiet:
        from toolgrade.serving import stream_summary

        typer.echo(stream_summary(result.stream_checks), err=True)
    raise typer.Exit(after_run(result, after))
