"""The run options a user sets from outside Python, each declared once: `OPTION_SPECS`.

`toolgrade run` and `toolgrade evaluate` (`cli/_run_options.py`), the keys of a sweep
file (`sweep/_config.py`) and the keywords of `@pytest.mark.toolgrade(...)` take each
option's default, `--help` line, flag and bounds from its `OptionSpec`; `RunOptions`
takes its defaults and checks from the same specs. The request settings' defaults are
`BackendSettings`' own fields, read from there.

Examples:
    >>> OPTION_SPECS.concurrency.default, OPTION_SPECS.timeout.default, OPTION_SPECS.stream.flag
    (4, 60.0, '--no-stream')
    >>> OPTION_SPECS.repeat.problem(0)
    'must be 1 to 1,000, got 0'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from toolgrade._core.json_data import JsonValue
from toolgrade._core.limits import MAX_REPEAT, MAX_SEED
from toolgrade._core.vocab import Rubric
from toolgrade.backends import BackendSettings, Mode

__all__ = ["OPTION_SPECS", "OptionSpec", "RunOptionSpecs"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class OptionSpec(Generic[T]):
    """One run option: its name, default, `--help` line, flag and bounds."""

    name: str
    """Its `RunOptions` keyword, `run.json` key and `@pytest.mark.toolgrade` keyword."""
    default: T
    """Its value when it is not given."""
    help: str
    """The `--help` line of its flag."""
    flag: str = ""
    """Its command-line flag (empty: `--` and the name with dashes). The flag of an
    option that is on by default turns it off (`--no-stream`)."""
    low: float | None = None
    """The smallest value the command line, the pytest marker and a sweep file take."""
    high: int | None = None
    """The largest value they take."""

    def __post_init__(self) -> None:
        if not self.flag:
            object.__setattr__(self, "flag", "--" + self.name.replace("_", "-"))

    def problem(self, value: float | None) -> str | None:
        """What is wrong with a number outside the bounds; None when nothing (or no value).

        Examples:
            >>> OPTION_SPECS.concurrency.problem(0), OPTION_SPECS.max_retries.problem(-1)
            ('must be at least 1, got 0', 'must be 0 or more, got -1')
            >>> OPTION_SPECS.seed.problem(None) is None
            True
        """
        low, high = self.low, self.high
        if value is None or low is None:
            return None
        if high is not None:
            return None if low <= value <= high else f"must be {low:,} to {high:,}, got {value}"
        if value >= low:
            return None
        if low == 0:
            return f"must be 0 or more, got {value}"
        return f"must be at least {low}, got {value}"


def _request_default(name: str) -> Any:
    """The default of a `BackendSettings` field (a mapping one read-only)."""
    found = next(f for f in fields(BackendSettings) if f.name == name)
    if found.default_factory is not dataclasses.MISSING:
        return MappingProxyType(found.default_factory())
    return found.default


@dataclass(frozen=True, slots=True)
class RunOptionSpecs:
    """Every `OptionSpec`, one attribute each, named as the option (checked on creation)."""

    timeout: OptionSpec[float]
    concurrency: OptionSpec[int]
    repeat: OptionSpec[int]
    rubric: OptionSpec[Rubric | None]
    profile: OptionSpec[str]
    teacher_forcing: OptionSpec[bool]
    mode: OptionSpec[Mode]
    prompt_format: OptionSpec[str]
    base_url: OptionSpec[str | None]
    endpoint_concurrency: OptionSpec[int | None]
    temperature: OptionSpec[float]
    max_retries: OptionSpec[int]
    backend_options: OptionSpec[Mapping[str, JsonValue]]
    max_tokens: OptionSpec[int | None]
    stream: OptionSpec[bool]
    warmup: OptionSpec[bool]
    warmup_timeout: OptionSpec[float | None]
    seed: OptionSpec[int | None]
    stream_check: OptionSpec[int]

    def __post_init__(self) -> None:
        wrong = [f.name for f in fields(self) if getattr(self, f.name).name != f.name]
        if wrong:
            raise ValueError(f"option specs under another option's name: {wrong}")

    def __iter__(self) -> Iterator[OptionSpec[Any]]:
        """The specs, in the order of the command line's `--help`."""
        return (getattr(self, f.name) for f in fields(self))


OPTION_SPECS = RunOptionSpecs(
    timeout=OptionSpec(
        "timeout", _request_default("timeout"), "Seconds allowed per case.", low=0.001
    ),
    concurrency=OptionSpec("concurrency", 4, "Cases in flight at once.", low=1),
    repeat=OptionSpec(
        "repeat", 1, "Run each case K times (consistency, pass^k).", low=1, high=MAX_REPEAT
    ),
    rubric=OptionSpec("rubric", None, "Scoring rubric (default: the suite's)."),
    profile=OptionSpec("profile", "default", "Matching profile: default or bfcl."),
    teacher_forcing=OptionSpec(
        "teacher_forcing",
        False,
        "Conversations: start every turn from the reference's history and state.",
    ),
    mode=OptionSpec(
        "mode", _request_default("mode"), "Tools in the request, or described in the prompt."
    ),
    prompt_format=OptionSpec(
        "prompt_format",
        _request_default("prompt_format"),
        "With --mode prompt: the model family's text for tools, calls and results.",
    ),
    base_url=OptionSpec(
        "base_url",
        _request_default("base_url"),
        "Server URL (default: the provider's); repeat it to spread the cases over"
        " several servers of the same model.",
    ),
    endpoint_concurrency=OptionSpec(
        "endpoint_concurrency",
        _request_default("endpoint_concurrency"),
        "With several servers: requests in flight per server"
        " (default: --concurrency split evenly).",
        low=1,
    ),
    temperature=OptionSpec(
        "temperature", _request_default("temperature"), "Sampling temperature.", low=0
    ),
    max_retries=OptionSpec(
        "max_retries",
        _request_default("max_retries"),
        "Retries on connection errors, 429, 5xx.",
        low=0,
    ),
    backend_options=OptionSpec(
        "backend_options",
        _request_default("options"),
        "Extra request option, e.g. num_ctx=8192 (repeatable; VALUE as JSON).",
        flag="--option",
    ),
    max_tokens=OptionSpec(
        "max_tokens",
        _request_default("max_tokens"),
        "Cap each answer at N tokens, so a runaway answer costs no timeout (0: no cap).",
        low=0,
    ),
    stream=OptionSpec(
        "stream",
        _request_default("stream"),
        "Ask for whole answers instead of streamed ones (no time to first token).",
        flag="--no-stream",
    ),
    warmup=OptionSpec(
        "warmup",
        True,
        "Skip the untimed warm-up request sent to a server before the cases.",
        flag="--no-warmup",
    ),
    warmup_timeout=OptionSpec(
        "warmup_timeout",
        None,
        "Seconds the warm-up may take before the server is taken for stuck"
        " (exit 3; default: twice --timeout, at least 120).",
        low=0.001,
    ),
    seed=OptionSpec(
        "seed", _request_default("seed"), "Seed sent to the server.", low=0, high=MAX_SEED
    ),
    stream_check=OptionSpec(
        "stream_check",
        0,
        "After the run, ask N cases (sampled with the seed) streamed, whole and whole"
        " again, and report where the streamed answer differs (3 requests each).",
        low=0,
    ),
)
"""The run options, each declared once."""
