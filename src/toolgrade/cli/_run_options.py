"""The option groups of `toolgrade run` and `toolgrade evaluate`, and their checking.

`ScoringOptions` and `PostOptions` belong to both commands, `RequestOptions` to `run`
alone (`evaluate` replays recorded answers: there is no request to shape); the case
selection is `SelectionOptions` (`cli/_selection.py`). The fields marked `marker=` are
also keywords of `@pytest.mark.toolgrade(...)`, under the `RunOptions` name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

import typer

import toolgrade
from toolgrade._core.json_data import JsonValue
from toolgrade._core.limits import MAX_REPEAT
from toolgrade.cli._options import option
from toolgrade.cli._post import PostRunOptions
from toolgrade.suite import Rubric

__all__ = [
    "OUT_PANEL",
    "RUN_PANEL",
    "PostOptions",
    "RequestOptions",
    "ScoringOptions",
    "SuiteOpt",
    "key_values",
    "suite_source",
]

RUN_PANEL = "Running"
OUT_PANEL = "Baseline and reports"

SuiteOpt = Annotated[
    str | None,
    typer.Option("--suite", "-s", help="Suite file, folder or built-in name (coding-agent)."),
]


@dataclass(frozen=True, slots=True)
class ScoringOptions:
    """How cases are run and scored: `--timeout` ... `--profile` (run and evaluate)."""

    timeout: float = field(
        default=60.0,
        metadata=option(
            min=0.001, help="Seconds allowed per case.", panel=RUN_PANEL, marker="timeout"
        ),
    )
    concurrency: int = field(
        default=4,
        metadata=option(
            min=1, help="Cases in flight at once.", panel=RUN_PANEL, marker="concurrency"
        ),
    )
    repeat: int = field(
        default=1,
        metadata=option(
            min=1,
            max=MAX_REPEAT,
            help="Run each case K times (consistency, pass^k).",
            panel=RUN_PANEL,
            marker="repeat",
        ),
    )
    rubric: Rubric | None = field(
        default=None,
        metadata=option(
            help="Scoring rubric (default: the suite's).", panel=RUN_PANEL, marker="rubric"
        ),
    )
    profile: str = field(
        default="default",
        metadata=option(
            help="Matching profile: default or bfcl.", panel=RUN_PANEL, marker="profile"
        ),
    )
    teacher_forcing: bool = field(
        default=False,
        metadata=option(
            "--teacher-forcing",
            help="Conversations: start every turn from the reference's history and state.",
            panel=RUN_PANEL,
        ),
    )


@dataclass(frozen=True, slots=True)
class RequestOptions:
    """How requests are sent to a model server: `--mode` ... `--no-warmup` (run only)."""

    mode: Literal["native", "prompt"] = field(
        default="native",
        metadata=option(
            help="Tools in the request, or described in the prompt.", panel=RUN_PANEL, marker="mode"
        ),
    )
    prompt_format: Literal["hermes", "llama3", "mistral"] = field(
        default="hermes",
        metadata=option(
            help="With --mode prompt: the model family's text for tools, calls and results.",
            panel=RUN_PANEL,
        ),
    )
    base_url: list[str] | None = field(
        default=None,
        metadata=option(
            help="Server URL (default: the provider's); repeat it to spread the cases over"
            " several servers of the same model.",
            panel=RUN_PANEL,
            marker="base_url",
        ),
    )
    endpoints: Path | None = field(
        default=None,
        metadata=option(
            metavar="FILE",
            help="Servers of the same model, one URL per line (# comments); added to --base-url.",
            panel=RUN_PANEL,
        ),
    )
    endpoint_concurrency: int | None = field(
        default=None,
        metadata=option(
            min=1,
            help="With several servers: requests in flight per server"
            " (default: --concurrency split evenly).",
            panel=RUN_PANEL,
        ),
    )
    temperature: float = field(
        default=0.0,
        metadata=option(min=0, help="Sampling temperature.", panel=RUN_PANEL, marker="temperature"),
    )
    max_retries: int = field(
        default=3,
        metadata=option(min=0, help="Retries on connection errors, 429, 5xx.", panel=RUN_PANEL),
    )
    extra: list[str] | None = field(
        default=None,
        metadata=option(
            "--option",
            metavar="KEY=VALUE",
            help="Extra request option, e.g. num_ctx=8192 (repeatable; VALUE as JSON).",
            panel=RUN_PANEL,
        ),
    )
    max_tokens: int = field(
        default=toolgrade.DEFAULT_MAX_TOKENS,
        metadata=option(
            min=0,
            help="Cap each answer at N tokens, so a runaway answer costs no timeout (0: no cap).",
            panel=RUN_PANEL,
        ),
    )
    no_stream: bool = field(
        default=False,
        metadata=option(
            "--no-stream",
            help="Ask for whole answers instead of streamed ones (no time to first token).",
            panel=RUN_PANEL,
        ),
    )
    no_warmup: bool = field(
        default=False,
        metadata=option(
            "--no-warmup",
            help="Skip the untimed warm-up request sent to a server before the cases.",
            panel=RUN_PANEL,
        ),
    )
    warmup_timeout: float | None = field(
        default=None,
        metadata=option(
            min=0.001,
            metavar="SECONDS",
            help="Seconds the warm-up may take before the server is taken for stuck"
            " (exit 3; default: twice --timeout, at least 120).",
            panel=RUN_PANEL,
        ),
    )

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
            threshold=self.threshold,
            alpha=self.alpha,
            reports=files,
            quiet=self.quiet,
            db=self.db,
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
