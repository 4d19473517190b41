"""`toolgrade run` and `toolgrade evaluate`: run a suite, then save, compare and report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

import toolgrade
from toolgrade.cli._post import PostRunOptions, after_run
from toolgrade.cli._run_options import (
    RUN_PANEL,
    AlphaOpt,
    BaselineOpt,
    ConcurrencyOpt,
    DbOpt,
    FailOpt,
    JunitOpt,
    LabelOpt,
    MarkdownOpt,
    ProfileOpt,
    QuietOpt,
    RepeatOpt,
    ReportOpt,
    RubricOpt,
    SuiteOpt,
    ThresholdOpt,
    TimeoutOpt,
    key_values,
    post_options,
    suite_source,
)
from toolgrade.cli._selection import (
    AllTagsOption,
    CategoryOption,
    DifficultyOption,
    IdOption,
    LimitOption,
    SampleOption,
    SeedOption,
    TagOption,
    selection_from_options,
)

__all__ = ["evaluate", "run"]


def run(
    suite: SuiteOpt = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="PROVIDER/MODEL: openai/, vllm/, llamacpp/, lmstudio/, sglang/, ollama/,"
            " replay/FILE.jsonl, python/module:function.",
        ),
    ] = None,
    tag: TagOption = None,
    all_tags: AllTagsOption = False,
    category: CategoryOption = None,
    difficulty: DifficultyOption = None,
    case_id: IdOption = None,
    sample: SampleOption = None,
    seed: SeedOption = 0,
    limit: LimitOption = None,
    timeout: TimeoutOpt = 60.0,
    concurrency: ConcurrencyOpt = 4,
    repeat: RepeatOpt = 1,
    rubric: RubricOpt = None,
    profile: ProfileOpt = "default",
    mode: Annotated[
        Literal["native", "prompt"],
        typer.Option(
            help="Tools in the request, or described in the prompt.", rich_help_panel=RUN_PANEL
        ),
    ] = "native",
    base_url: Annotated[
        str | None,
        typer.Option(help="Server URL (default: the provider's).", rich_help_panel=RUN_PANEL),
    ] = None,
    temperature: Annotated[
        float, typer.Option(min=0, help="Sampling temperature.", rich_help_panel=RUN_PANEL)
    ] = 0.0,
    max_retries: Annotated[
        int,
        typer.Option(
            min=0, help="Retries on connection errors, 429, 5xx.", rich_help_panel=RUN_PANEL
        ),
    ] = 3,
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option",
            metavar="KEY=VALUE",
            help="Extra request option, e.g. num_ctx=8192 (repeatable; VALUE as JSON).",
            rich_help_panel=RUN_PANEL,
        ),
    ] = None,
    max_tokens: Annotated[
        int,
        typer.Option(
            min=0,
            help="Cap each answer at N tokens, so a runaway answer costs no timeout (0: no cap).",
            rich_help_panel=RUN_PANEL,
        ),
    ] = toolgrade.DEFAULT_MAX_TOKENS,
    no_stream: Annotated[
        bool,
        typer.Option(
            "--no-stream",
            help="Ask for whole answers instead of streamed ones (no time to first token).",
            rich_help_panel=RUN_PANEL,
        ),
    ] = False,
    no_warmup: Annotated[
        bool,
        typer.Option(
            "--no-warmup",
            help="Skip the untimed warm-up request sent to a server before the cases.",
            rich_help_panel=RUN_PANEL,
        ),
    ] = False,
    resume: Annotated[
        str | None,
        typer.Option(
            help="Finish an interrupted run: only missing cases run.", rich_help_panel=RUN_PANEL
        ),
    ] = None,
    baseline: BaselineOpt = None,
    fail_on_regression: FailOpt = False,
    threshold: ThresholdOpt = 2.0,
    alpha: AlphaOpt = 0.05,
    report: ReportOpt = None,
    junit: JunitOpt = None,
    markdown: MarkdownOpt = None,
    label: LabelOpt = None,
    db: DbOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Run a suite against a model, then save, compare with a baseline and report.

    Results are written case by case to TOOLGRADE_HOME/runs/RUN_ID/; Ctrl-C stops
    cleanly and `--resume RUN_ID` finishes the run. Exit codes: 0 ok, 1 regression
    (with --fail-on-regression), 2 bad input (or no case scored from a responses file),
    3 model server unreachable (or no case scored), 130 interrupted.
    """
    post = post_options(
        baseline=baseline,
        fail_on_regression=fail_on_regression,
        threshold=threshold,
        alpha=alpha,
        reports=report,
        junit=junit,
        markdown=markdown,
        quiet=quiet,
        db=db,
    )
    progress: Literal["auto", "none"] = "none" if quiet else "auto"
    if resume is not None:
        loaded = toolgrade.load_suite(suite) if suite else None
        _finish(toolgrade.resume_run(resume, suite=loaded, progress=progress), post)
        return
    if suite is None or model is None:
        raise toolgrade.ConfigError("--suite and --model are required (or --resume RUN_ID)")
    selection = selection_from_options(
        tag=tag,
        all_tags=all_tags,
        category=category,
        difficulty=difficulty,
        case_id=case_id,
        sample=sample,
        seed=seed,
        limit=limit,
    )
    options = toolgrade.RunOptions(
        timeout=timeout,
        concurrency=concurrency,
        repeat=repeat,
        seed=seed,
        temperature=temperature,
        mode=mode,
        base_url=base_url,
        max_retries=max_retries,
        max_tokens=None if max_tokens == 0 else max_tokens,
        stream=not no_stream,
        backend_options=key_values(option or []),
        warmup=not no_warmup,
        rubric=rubric,
        profile=profile,
        tags=tuple(label or ()),
        selection=selection.to_dict(),
        suite_source=suite_source(suite),
    )
    chosen = toolgrade.select_cases(toolgrade.load_suite(suite), selection)
    _finish(_start(chosen, model, options, progress=progress), post)


def evaluate(
    suite: Annotated[
        str, typer.Option("--suite", "-s", help="Suite file, folder or built-in name.")
    ],
    responses: Annotated[
        Path,
        typer.Option(help='Recorded outputs, JSONL: {"case_id", "output" | "message"} per line.'),
    ],
    tag: TagOption = None,
    all_tags: AllTagsOption = False,
    category: CategoryOption = None,
    difficulty: DifficultyOption = None,
    case_id: IdOption = None,
    sample: SampleOption = None,
    seed: SeedOption = 0,
    limit: LimitOption = None,
    timeout: TimeoutOpt = 60.0,
    concurrency: ConcurrencyOpt = 4,
    repeat: RepeatOpt = 1,
    rubric: RubricOpt = None,
    profile: ProfileOpt = "default",
    baseline: BaselineOpt = None,
    fail_on_regression: FailOpt = False,
    threshold: ThresholdOpt = 2.0,
    alpha: AlphaOpt = 0.05,
    report: ReportOpt = None,
    junit: JunitOpt = None,
    markdown: MarkdownOpt = None,
    label: LabelOpt = None,
    db: DbOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Score recorded outputs against a suite (the same as `run --model replay/FILE`).

    Exit codes: 0 ok, 1 regression (with --fail-on-regression), 2 bad input, including a
    responses file from which no case could be scored, 130 interrupted.
    """
    post = post_options(
        baseline=baseline,
        fail_on_regression=fail_on_regression,
        threshold=threshold,
        alpha=alpha,
        reports=report,
        junit=junit,
        markdown=markdown,
        quiet=quiet,
        db=db,
    )
    selection = selection_from_options(
        tag=tag,
        all_tags=all_tags,
        category=category,
        difficulty=difficulty,
        case_id=case_id,
        sample=sample,
        seed=seed,
        limit=limit,
    )
    options = toolgrade.RunOptions(
        timeout=timeout,
        concurrency=concurrency,
        repeat=repeat,
        seed=seed,
        rubric=rubric,
        profile=profile,
        tags=tuple(label or ()),
        selection=selection.to_dict(),
        suite_source=suite_source(suite),
    )
    chosen = toolgrade.select_cases(toolgrade.load_suite(suite), selection)
    _finish(
        _start(chosen, f"replay/{responses}", options, progress="none" if quiet else "auto"), post
    )


def _start(
    suite: toolgrade.Suite, model: str, options: toolgrade.RunOptions, *, progress: str
) -> toolgrade.RunResult:
    if not suite.cases:
        raise toolgrade.ConfigError(f"no case of suite {suite.name!r} matches the selection")
    return toolgrade.run_suite(suite, model, options=options, progress=progress)  # type: ignore[arg-type]


def _finish(result: toolgrade.RunResult, post: PostRunOptions) -> None:
    if result.status == "interrupted":
        typer.echo(
            f"interrupted: {len(result.results)} results kept in run {result.run_id};"
            f" finish it with: toolgrade run --resume {result.run_id}",
            err=True,
        )
        raise typer.Exit(130)
    raise typer.Exit(after_run(result, post))
