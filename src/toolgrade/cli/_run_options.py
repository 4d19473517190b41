"""The option groups of `toolgrade run` and `toolgrade evaluate`, and their checking.

`ScoringOptions` and `PostOptions` belong to both commands, `RequestOptions` to `run`
alone (`evaluate` replays recorded answers: there is no request to shape); the case
selection is `SelectionOptions` (`cli/_selection.py`). A run option's default, flag,
`--help` line and bounds are its `OptionSpec` (`toolgrade.runner.OPTION_SPECS`), which
`RunOptions` and sweep files read too; the fields made with `marker=True` are also
keywords of `@pytest.mark.toolgrade(...)`, under the `RunOptions` name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

import toolgrade
from toolgrade._core.json_data import JsonValue
from toolgrade.cli._options import option
from toolgrade.cli._post import PostRunOptions
from toolgrade.runner import OPTION_SPECS, OptionSpec
from toolgrade.suite import Rubric

__all__ = [
    "OUT_PANEL",
    "RUN_PANEL",
    "PostOptions",
    "RequestOptions",
    "ScoringOptions",
    "SuiteOpt",
    "key_values",
    "run_options",
    "suite_source",
]

RUN_PANEL = "Running"
OUT_PANEL = "Baseline and reports"

SuiteOpt = Annotated[
    str | None,
    typer.Option("--suite", "-s", help="Suite file, folder or built-in name (coding-agent)."),
]


def _run_option(spec: OptionSpec[Any], *, marker: bool = False, **settings: Any) -> Any:
    """A group field for a run option (it returns a `dataclasses.field`).

    Its default, flag, `--help` line and bounds are the spec's; `marker` makes it a
    keyword of the pytest marker, under the spec's name.
    """
    bounds = {
        key: value for key, value in (("min", spec.low), ("max", spec.high)) if value is not None
    }
    return field(
        default=spec.default,
        metadata=option(
            spec.flag,
            help=spec.help,
            panel=RUN_PANEL,
            marker=spec.name if marker else None,
            **bounds,
            **settings,
        ),
    )


def _off_switch(spec: OptionSpec[bool]) -> Any:
    """A group field for the flag that turns off a run option that is on by default."""
    return field(
        default=not spec.default, metadata=option(spec.flag, help=spec.help, panel=RUN_PANEL)
    )


@dataclass(frozen=True, slots=True)
class ScoringOptions:
    """How cases are run and scored: `--timeout` ... `--profile` (run and evaluate)."""

    timeout: float = _run_option(OPTION_SPECS.timeout, marker=True)
    concurrency: int = _run_option(OPTION_SPECS.concurrency, marker=True)
    repeat: int = _run_option(OPTION_SPECS.repeat, marker=True)
    rubric: Rubric | None = _run_option(OPTION_SPECS.rubric, marker=True)  # noqa: RUF009 (a field)
    profile: str = _run_option(OPTION_SPECS.profile, marker=True)
    teacher_forcing: bool = _run_option(OPTION_SPECS.teacher_forcing)


@dataclass(frozen=True, slots=True)
class RequestOptions:
    """How requests are sent to a model server: `--mode` ... `--stream-check` (run only)."""

    mode: Literal["native", "prompt"] = _run_option(OPTION_SPECS.mode, marker=True)
    prompt_format: Literal["hermes", "llama3", "mistral"] = _run_option(OPTION_SPECS.prompt_format)
    base_url: list[str] | None = _run_option(OPTION_SPECS.base_url, marker=True)  # noqa: RUF009 (a field)
    endpoints: Path | None = field(
        default=None,
        metadata=option(
            metavar="FILE",
            help="Servers of the same model, one URL per line (# comments); added to --base-url.",
            panel=RUN_PANEL,
        ),
    )
    endpoint_concurrency: int | None = _run_option(OPTION_SPECS.endpoint_concurrency)
    temperature: float = _run_option(OPTION_SPECS.temperature, marker=True)
    max_retries: int = _run_option(OPTION_SPECS.max_retries)
    extra: list[str] | None = field(
        default=None,  # none given: no extra option
        metadata=option(
            OPTION_SPECS.backend_options.flag,
            metavar="KEY=VALUE",
            help=OPTION_SPECS.backend_options.help,
            panel=RUN_PANEL,
        ),
    )
    max_tokens: int = _run_option(OPTION_SPECS.max_tokens)  # 0: no cap
    no_stream: bool = _off_switch(OPTION_SPECS.stream)
    no_warmup: bool = _off_switch(OPTION_SPECS.warmup)
    warmup_timeout: float | None = _run_option(OPTION_SPECS.warmup_timeout, metavar="SECONDS")
    stream_check: int = _run_option(OPTION_SPECS.stream_check, marker=True, metavar="N")

    def settings(self, *, seed: int | None) -> toolgrade.BackendSettings:
        """The request settings (timeout and connections are the run's to set).

        Raises:
            ConfigError: an `--option` that is not KEY=VALUE.
        """
        urls = self.urls()
        return toolgrade.BackendSettings(
            seed=seed,
            mode=self.mode,
            endpoints=urls,
            endpoint_concurrency=self.endpoint_concurrency,
            temperature=self.temperature,
            max_retries=self.max_retries,
            max_tokens=None if self.max_tokens == 0 else self.max_tokens,
            stream=not self.no_stream,
            options=key_values(self.extra or []),
            prompt_format=self.prompt_format,
        )

    def urls(self) -> tuple[str, ...]:
        """Every `--base-url`, then the `--endpoints` file's URLs (checked, in order).

        Raises:
            ConfigError: a malformed endpoints file (its file and line named).
            FileSystemError: the endpoints file cannot be read.
        """
        from toolgrade.backends import read_endpoints

        urls = tuple(self.base_url or ())
        if self.endpoints is not None:
            urls += read_endpoints(self.endpoints)
        return urls


@dataclass(frozen=True, slots=True)
class PostOptions:
    """What is done with the finished run: `--baseline` ... `--quiet` (run and evaluate)."""

    baseline: str | None = field(
        default=None,
        metadata=option(help="Compare with this run (id, tag or exported file).", panel=OUT_PANEL),
    )
    fail_on_regression: bool = field(
        default=False,
        metadata=option(
            "--fail-on-regression", help="Exit 1 on a regression vs --baseline.", panel=OUT_PANEL
        ),
    )
    fail_on_inconclusive: bool = field(
        default=False,
        metadata=option(
            "--fail-on-inconclusive",
            help="Exit 3 when the suite cannot tell vs --baseline (an inconclusive verdict).",
            panel=OUT_PANEL,
        ),
    )
    as_served: bool = field(
        default=False,
        metadata=option(
            "--as-served",
            help="Let the --fail-on options decide on the accuracy as served (only calls that"
            " came as structured tool_calls count): a server-upgrade gate.",
            panel=OUT_PANEL,
        ),
    )
    threshold: float = field(
        default=2.0,
        metadata=option(
            min=0, help="Accuracy drop, in points, that is a regression.", panel=OUT_PANEL
        ),
    )
    alpha: float = field(
        default=0.05,
        metadata=option(
            min=0, max=1, help="Significance level of McNemar's test.", panel=OUT_PANEL
        ),
    )
    report: list[str] | None = field(
        default=None,
        metadata=option(
            "--report", metavar="FORMAT=PATH", help="Write a report (repeatable).", panel=OUT_PANEL
        ),
    )
    junit: Path | None = field(
        default=None, metadata=option(help="Write a JUnit XML report.", panel=OUT_PANEL)
    )
    markdown: Path | None = field(
        default=None, metadata=option(help="Write a Markdown report.", panel=OUT_PANEL)
    )
    label: list[str] | None = field(
        default=None,
        metadata=option(
            "--label", help="Label the run, e.g. baseline (repeatable).", panel=OUT_PANEL
        ),
    )
    db: Path | None = field(
        default=None,
        metadata=option(
            "--db", help="History database (default TOOLGRADE_HOME/toolgrade.db).", panel=OUT_PANEL
        ),
    )
    quiet: bool = field(
        default=False, metadata=option("--quiet", "-q", help="Print nothing but errors.")
    )

    def post_run(self) -> PostRunOptions:
        """The options that act on the finished run, checked.

        Raises:
            ConfigError: a `--report` that is not FORMAT=PATH.
        """
        files: dict[str, Path] = {}
        for item in self.report or []:
            fmt, sep, path = item.partition("=")
            if not sep or not fmt.strip() or not path.strip():
                raise toolgrade.ConfigError(f"--report needs FORMAT=PATH, got {item!r}")
            files[fmt.strip().lower()] = Path(path.strip())
        if self.junit is not None:
            files["junit"] = self.junit
        if self.markdown is not None:
            files["markdown"] = self.markdown
        return PostRunOptions(
            baseline=self.baseline,
            fail_on_regression=self.fail_on_regression,
            fail_on_inconclusive=self.fail_on_inconclusive,
            as_served=self.as_served,
            threshold=self.threshold,
            alpha=self.alpha,
            reports=files,
            quiet=self.quiet,
            db=self.db,
        )


def run_options(
    scoring: ScoringOptions,
    request: RequestOptions,
    *,
    seed: int | None,
    tags: tuple[str, ...] = (),
    selection: Mapping[str, JsonValue] | None = None,
    suite_source: str | None = None,
) -> toolgrade.RunOptions:
    """The `RunOptions` of a command's option groups, with the run's bookkeeping.

    Raises:
        ConfigError: an invalid option (`RunOptions` checks them).
    """
    return toolgrade.RunOptions(
        request=request.settings(seed=seed),
        timeout=scoring.timeout,
        concurrency=scoring.concurrency,
        repeat=scoring.repeat,
        rubric=scoring.rubric,
        profile=scoring.profile,
        teacher_forcing=scoring.teacher_forcing,
        warmup=not request.no_warmup,
        warmup_timeout=request.warmup_timeout,
        stream_check=request.stream_check,
        tags=tags,
        selection=selection,
        suite_source=suite_source,
    )


def suite_source(suite: str) -> str:
    """Where to reload the suite from on resume: an absolute path, or the built-in name."""
    path = Path(suite)
    return str(path.resolve()) if path.exists() else suite


def key_values(items: list[str]) -> dict[str, JsonValue]:
    """`--option KEY=VALUE` items as a dict; VALUE is JSON, or a bare string.

    Raises:
        ConfigError: an item without `=` or without a key.
    """
    out: dict[str, JsonValue] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise toolgrade.ConfigError(f"--option needs KEY=VALUE, got {item!r}")
        try:
            out[key.strip()] = json.loads(text)
        except ValueError:
            out[key.strip()] = text  # a bare word is a string
    return out
