"""The options of a run, recorded in `run.json` so that a resume uses the same ones."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Literal

from toolgrade._json import JsonObject, JsonValue
from toolgrade.backends import DEFAULT_MAX_TOKENS, BackendSettings, Mode
from toolgrade.errors import ConfigError

__all__ = ["RunOptions"]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How to run a suite: request settings, concurrency, scoring and bookkeeping.

    Examples:
        >>> RunOptions(concurrency=8, repeat=3).repeat
        3
    """

    timeout: float = 60.0
    """Seconds allowed per case (retries included); then the case is a `timeout`."""
    concurrency: int = 4
    """Cases in flight at once."""
    repeat: int = 1
    """Times each case runs (for consistency and pass^k)."""
    seed: int | None = None
    """Seed sent to the server."""
    temperature: float = 0.0
    """Sampling temperature."""
    mode: Mode = "native"
    """`native` (tools in the request) or `prompt` (tools in the system prompt)."""
    base_url: str | None = None
    """Server URL override."""
    max_retries: int = 3
    """Retries on connection errors, 429 and 5xx."""
    retry_base_delay: float = 0.5
    """First backoff delay in seconds."""
    max_tokens: int | None = DEFAULT_MAX_TOKENS
    """Cap on the tokens of one answer; None sends no cap (the server's own applies)."""
    stream: bool = True
    """Stream answers (a timeout or Ctrl-C then stops the server generating)."""
    backend_options: Mapping[str, JsonValue] = field(default_factory=dict)
    """Extra request options (Ollama `num_ctx`, OpenAI `top_p`, ...); they win over the
    settings above."""
    rubric: Literal["binary", "partial", "f1"] | None = None
    """Rubric; None uses each case's, then the suite's."""
    profile: str = "default"
    """Matching profile passed to the judge (`default` or `bfcl`)."""
    tags: tuple[str, ...] = ()
    """Labels given to the run."""
    selection: Mapping[str, JsonValue] = field(default_factory=dict)
    """The selection used (recorded only)."""
    suite_source: str | None = None
    """Where the suite came from, so that `--resume` can reload it."""
    persist: bool = True
    """Write a run folder (`runs/<run_id>/`); False keeps everything in memory."""
    warmup: bool = True
    """Send one untimed request before the cases (servers only; see docs/running.md)."""

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ConfigError(f"--timeout must be positive, got {self.timeout:g}")
        if self.concurrency < 1:
            raise ConfigError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.repeat < 1:
            raise ConfigError(f"--repeat must be at least 1, got {self.repeat}")
        if self.max_retries < 0:
            raise ConfigError(f"--max-retries must be 0 or more, got {self.max_retries}")
        if self.mode not in ("native", "prompt"):
            raise ConfigError(f"--mode must be native or prompt, got {self.mode!r}")

    def backend_settings(self, *, api_key: str | None = None) -> BackendSettings:
        """The request settings for the backend."""
        return BackendSettings(
            base_url=self.base_url,
            temperature=self.temperature,
            seed=self.seed,
            mode=self.mode,
            timeout=self.timeout,
            max_retries=self.max_retries,
            retry_base_delay=self.retry_base_delay,
            connections=self.concurrency,
            max_tokens=self.max_tokens,
            stream=self.stream,
            options=dict(self.backend_options),
            api_key=api_key,
        )

    def to_dict(self) -> JsonObject:
        """Every option as JSON (for `run.json`)."""
        data = asdict(self)
        data["tags"] = list(self.tags)
        data["backend_options"] = dict(self.backend_options)
        data["selection"] = dict(self.selection)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, JsonValue]) -> RunOptions:
        """Rebuild options written by `to_dict` (unknown keys are ignored).

        Raises:
            ConfigError: a value is invalid.
        """
        known = {f.name for f in fields(cls)}
        values: dict[str, object] = {k: v for k, v in data.items() if k in known}
        tags = values.get("tags")
        if isinstance(tags, list):
            values["tags"] = tuple(str(t) for t in tags)
        try:
            return cls(**values)  # type: ignore[arg-type]
        except TypeError as exc:
            raise ConfigError(f"invalid recorded run options: {exc}") from None
