"""The options of a run, recorded in `run.json` so that a resume uses the same ones."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import Field, dataclass, field, fields
from pathlib import Path
from typing import TypedDict, Unpack, get_args

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.vocab import Rubric
from toolgrade.backends import BackendSettings, Mode
from toolgrade.errors import ConfigError
from toolgrade.runner._option_specs import OPTION_SPECS

__all__ = [
    "WARMUP_FLOOR",
    "RequestSettings",
    "RunKeywords",
    "RunOptions",
    "default_warmup_timeout",
]

WARMUP_FLOOR = 120.0
"""Seconds the warm-up may take at least, by default (`default_warmup_timeout`)."""


def default_warmup_timeout(timeout: float) -> float:
    """The warm-up's bound when `--warmup-timeout` is not given: twice `--timeout`, at least 120 s.

    The warm-up pays what no case should: loading the model and the prefill of the
    suite's tools (a 0.5B model on two CPU cores answers it in about 30 s). Twice the
    time allowed per case leaves room for that above a case's own time; the floor keeps
    a short `--timeout` from failing a cold server. A server that has not answered by
    then is taken for stuck: the run stops (exit 3) instead of waiting for ever.

    Examples:
        >>> default_warmup_timeout(60.0), default_warmup_timeout(5.0)
        (120.0, 120.0)
    """
    return max(WARMUP_FLOOR, 2.0 * timeout)


class RequestSettings(TypedDict, total=False):
    """The `BackendSettings` a `RunOptions` also takes as flat keywords (and records flat).

    `backend_options` is `BackendSettings.options`; the others keep their names.
    """

    timeout: float
    seed: int | None
    temperature: float
    mode: Mode
    base_url: str | None
    max_retries: int
    retry_base_delay: float
    max_tokens: int | None
    stream: bool
    prompt_format: str
    backend_options: Mapping[str, JsonValue]
    endpoints: tuple[str, ...]
    endpoint_concurrency: int | None


_FLAT = frozenset(RequestSettings.__annotations__)
"""The request settings' flat keys."""
_SETTING = {"backend_options": "options"}
"""The flat keys named otherwise in `BackendSettings`."""


def _default(own: Field[object]) -> object:
    """A field's default value (a new one from its factory)."""
    if own.default_factory is not dataclasses.MISSING:
        return own.default_factory()
    return own.default


class RunKeywords(RequestSettings, total=False):
    """The keywords `RunOptions` takes besides `request`, every one optional.

    Its own fields (their defaults are the fields') and the flat request settings.
    """

    concurrency: int
    repeat: int
    rubric: Rubric | None
    profile: str
    tags: tuple[str, ...]
    selection: Mapping[str, JsonValue] | None
    suite_source: str | None
    persist: bool
    warmup: bool
    warmup_timeout: float | None
    teacher_forcing: bool
    suite_dir: str | None
    stream_check: int


@dataclass(frozen=True, slots=True, init=False)
class RunOptions:
    """How to run a suite: request settings, concurrency, scoring and bookkeeping.

    The request settings are one `BackendSettings` (`request`); they may also be given,
    and are read, as flat keywords (`timeout`, `seed`, `mode`, ..., `backend_options`),
    which win over `request`'s. `run.json` records them flat. Every keyword is optional
    (`RunKeywords`); the options a user also sets from the command line, a sweep file or
    the pytest marker take their defaults from `OPTION_SPECS`.

    Examples:
        >>> RunOptions(concurrency=8, repeat=3).repeat
        3
        >>> RunOptions(timeout=5.0, mode="prompt").request.mode
        'prompt'
    """

    request: BackendSettings = field(default_factory=BackendSettings)
    """Request settings; their `connections` is ignored (the runner uses `concurrency`)."""
    concurrency: int = OPTION_SPECS.concurrency.default
    """Cases in flight at once."""
    repeat: int = OPTION_SPECS.repeat.default
    """Times each case runs (for consistency and pass^k)."""
    rubric: Rubric | None = OPTION_SPECS.rubric.default
    """Rubric; None uses each case's, then the suite's."""
    profile: str = OPTION_SPECS.profile.default
    """Matching profile passed to the judge (`default` or `bfcl`)."""
    tags: tuple[str, ...] = ()
    """Labels given to the run."""
    selection: Mapping[str, JsonValue] = field(default_factory=dict)
    """The selection used (recorded only; None given is empty)."""
    suite_source: str | None = None
    """Where the suite came from, so that `--resume` can reload it."""
    persist: bool = True
    """Write a run folder (`runs/<run_id>/`); False keeps everything in memory."""
    warmup: bool = OPTION_SPECS.warmup.default
    """Send one warm-up request before the cases (servers only; see docs/running.md)."""
    warmup_timeout: float | None = OPTION_SPECS.warmup_timeout.default
    """Seconds the warm-up may take (`warmup_limit`); None: twice `timeout`, at least 120."""
    teacher_forcing: bool = OPTION_SPECS.teacher_forcing.default
    """Conversations: start every turn from the reference's history and state (a
    conversation without a reference runs on-policy)."""
    suite_dir: str | None = None
    """Where a suite's Python environments are found (the suite file's folder); None:
    the folder of `suite_source` (or itself, a suite folder), else installed modules only."""
    stream_check: int = OPTION_SPECS.stream_check.default
    """After the run, ask this many sampled cases whole, streamed and whole again
    (`RunResult.stream_checks`; 0: no check)."""

    def __init__(
        self, *, request: BackendSettings | None = None, **keywords: Unpack[RunKeywords]
    ) -> None:
        given: dict[str, object] = dict(keywords)
        changes = {_SETTING.get(k, k): given.pop(k) for k in [*given] if k in _FLAT}
        base = request if request is not None else BackendSettings()
        put = object.__setattr__  # frozen: the generated __init__ does the same
        put(self, "request", dataclasses.replace(base, **changes) if changes else base)  # type: ignore[arg-type]
        for own in fields(self):
            if own.name != "request":
                put(self, own.name, given.pop(own.name) if own.name in given else _default(own))
        if given:
            unknown = next(iter(given))
            raise TypeError(f"RunOptions() got an unexpected keyword argument {unknown!r}")
        if self.selection is None:
            put(self, "selection", {})
        self._check()

    def _check(self) -> None:
        if self.timeout <= 0:
            raise ConfigError(f"--timeout must be positive, got {self.timeout:g}")
        if self.warmup_timeout is not None and not self.warmup_timeout > 0:
            raise ConfigError(f"--warmup-timeout must be positive, got {self.warmup_timeout:g}")
        specs = OPTION_SPECS
        checked = (
            specs.concurrency,
            specs.repeat,
            specs.seed,
            specs.max_retries,
            specs.stream_check,
        )
        for spec in checked:
            problem = spec.problem(getattr(self, spec.name))
            if problem is not None:
                raise ConfigError(f"{spec.flag} {problem}")
        if self.mode not in get_args(Mode):
            modes = " or ".join(get_args(Mode))
            raise ConfigError(f"--mode must be {modes}, got {self.mode!r}")

    @property
    def timeout(self) -> float:
        """Seconds allowed per case (retries included); then the case is a `timeout`."""
        return self.request.timeout

    @property
    def warmup_limit(self) -> float:
        """Seconds the warm-up may take: `warmup_timeout`, else `default_warmup_timeout`.

        Examples:
            >>> RunOptions(timeout=30.0).warmup_limit, RunOptions(timeout=300.0).warmup_limit
            (120.0, 600.0)
            >>> RunOptions(warmup_timeout=45.0).warmup_limit
            45.0
        """
        if self.warmup_timeout is not None:
            return self.warmup_timeout
        return default_warmup_timeout(self.timeout)

    @property
    def seed(self) -> int | None:
        """Seed sent to the server."""
        return self.request.seed

    @property
    def temperature(self) -> float:
        """Sampling temperature."""
        return self.request.temperature

    @property
    def mode(self) -> Mode:
        """`native` (tools in the request) or `prompt` (tools in the system prompt)."""
        return self.request.mode

    @property
    def base_url(self) -> str | None:
        """Server URL override."""
        return self.request.base_url

    @property
    def endpoints(self) -> tuple[str, ...]:
        """Several servers of the model (two or more), else empty: `base_url` alone."""
        return self.request.endpoints

    @property
    def endpoint_concurrency(self) -> int | None:
        """Requests in flight per endpoint; None splits `concurrency` evenly."""
        return self.request.endpoint_concurrency

    @property
    def max_retries(self) -> int:
        """Retries on connection errors, 429 and 5xx."""
        return self.request.max_retries

    @property
    def retry_base_delay(self) -> float:
        """First backoff delay in seconds."""
        return self.request.retry_base_delay

    @property
    def max_tokens(self) -> int | None:
        """Cap on the tokens of one answer; None sends no cap (the server's own applies)."""
        return self.request.max_tokens

    @property
    def stream(self) -> bool:
        """Stream answers (a timeout or Ctrl-C then stops the server generating)."""
        return self.request.stream

    @property
    def prompt_format(self) -> str:
        """The model family whose text format `prompt` mode uses (`hermes` by default)."""
        return self.request.prompt_format

    def base_dir(self) -> Path | None:
        """The folder a suite's Python environments are looked up in (see `suite_dir`)."""
        if self.suite_dir is not None:
            return Path(self.suite_dir)
        if self.suite_source is not None:
            source = Path(self.suite_source)
            if source.is_file():
                return source.parent
            if source.is_dir():
                return source
        return None

    @property
    def backend_options(self) -> Mapping[str, JsonValue]:
        """Extra request options (Ollama `num_ctx`, OpenAI `top_p`, ...).

        They win over the settings above.
        """
        return self.request.options

    def backend_settings(self, *, api_key: str | None = None) -> BackendSettings:
        """The request settings for the backend: one connection per case in flight."""
        return dataclasses.replace(
            self.request,
            connections=self.concurrency,
            options=dict(self.request.options),
            api_key=api_key,
        )

    def to_dict(self) -> JsonObject:
        """Every option as JSON (for `run.json`).

        The request settings are flat, as before they were nested, so that old and new
        runs read alike; options added later (`prompt_format`, `teacher_forcing`,
        `suite_dir`, `endpoints`, `endpoint_concurrency`, `warmup_timeout`,
        `stream_check`) only when they are not their default.
        """
        recorded: JsonObject = {
            "timeout": self.timeout,
            "concurrency": self.concurrency,
            "repeat": self.repeat,
            "seed": self.seed,
            "temperature": self.temperature,
            "mode": self.mode,
            "base_url": self.base_url,
            "max_retries": self.max_retries,
            "retry_base_delay": self.retry_base_delay,
            "max_tokens": self.max_tokens,
            "stream": self.stream,
            "backend_options": dict(self.backend_options),
            "rubric": self.rubric,
            "profile": self.profile,
            "tags": list(self.tags),
            "selection": dict(self.selection),
            "suite_source": self.suite_source,
            "persist": self.persist,
            "warmup": self.warmup,
        }
        if self.prompt_format != OPTION_SPECS.prompt_format.default:
            recorded["prompt_format"] = self.prompt_format
        if self.teacher_forcing:
            recorded["teacher_forcing"] = True
        if self.suite_dir is not None:
            recorded["suite_dir"] = self.suite_dir
        if self.endpoints:
            recorded["endpoints"] = list(self.endpoints)
        if self.endpoint_concurrency is not None:
            recorded["endpoint_concurrency"] = self.endpoint_concurrency
        if self.warmup_timeout is not None:
            recorded["warmup_timeout"] = self.warmup_timeout
        if self.stream_check:
            recorded["stream_check"] = self.stream_check
        return recorded

    @classmethod
    def from_dict(cls, data: Mapping[str, JsonValue]) -> RunOptions:
        """Rebuild options written by `to_dict` (unknown keys are ignored).

        The request settings may be flat (as `to_dict` writes them) or nested under
        `request` (as `BackendSettings` fields); flat keys win.

        Raises:
            ConfigError: a value is invalid.
        """
        known = {f.name for f in fields(cls)} | set(_FLAT)
        values: dict[str, object] = {k: v for k, v in data.items() if k in known}
        nested = values.pop("request", None)
        tags = values.get("tags")
        if isinstance(tags, list):
            values["tags"] = tuple(str(t) for t in tags)
        try:
            if isinstance(nested, Mapping):
                values["request"] = _settings_from_dict(nested)
            return cls(**values)  # type: ignore[arg-type]
        except TypeError as exc:
            raise ConfigError(f"invalid recorded run options: {exc}") from None


def _settings_from_dict(data: Mapping[str, JsonValue]) -> BackendSettings:
    """`BackendSettings` from their recorded fields (never an API key)."""
    names = {f.name for f in fields(BackendSettings)} - {"api_key"}
    return BackendSettings(**{k: v for k, v in data.items() if k in names})  # type: ignore[arg-type]
