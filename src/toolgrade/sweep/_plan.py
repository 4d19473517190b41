"""A sweep's plan: every (model, suite) combination as one ordinary run, and their order.

Each combination is one run: the model's request settings, the suite's selected cases,
and two tags. History tags name exactly one run each (tagging another run moves the
tag), so a tag shared by every run of a sweep would end up on the last one saved;
each combination therefore has its own:

- `sweep:<name>/<model>/<suite>`: the latest run of the combination, whatever its
  settings (`toolgrade report sweep:q4-vs-q8/qwen-q4/coding-agent`);
- the same followed by `@<fingerprint>`: the latest run with exactly these settings.
  The fingerprint is a hash of everything that decides the results (model, request
  settings, suite content after selection, repeats, rubric, profile), not of where the
  servers are or how many requests are in flight.

Combinations that share a server run one after another; the others may run at the
same time (`groups`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject
from toolgrade.compare import REQUEST_SETTINGS
from toolgrade.errors import ConfigError
from toolgrade.runner import RunOptions
from toolgrade.suite import Suite, load_suite, select_cases
from toolgrade.sweep._config import ModelEntry, SuiteEntry, SweepConfig

__all__ = ["Combination", "groups", "plan_sweep", "result_settings"]

_FINGERPRINT_CHARS = 12
# The request settings that change what a model answers; `base_url`, `endpoints` and
# `max_retries` say where and how patiently to ask, and are left out.


@dataclass(frozen=True, slots=True)
class Combination:
    """One model on one suite: one run of the sweep."""

    sweep: str
    """The sweep's name."""
    model: ModelEntry
    """The model."""
    suite: SuiteEntry
    """The suite entry."""
    suite_label: str
    """The suite's name in the leaderboard (its label, else the suite's own name)."""
    cases: Suite
    """The suite narrowed to the selected cases."""
    options: RunOptions
    """The run's options, tags included."""
    fingerprint: str
    """Hash of the settings that decide the results (see the module docstring)."""

    @property
    def key(self) -> tuple[str, str]:
        """(model label, suite label)."""
        return self.model.label, self.suite_label

    @property
    def tag(self) -> str:
        """The tag of the latest run of this combination."""
        return _tag(self.sweep, self.model.label, self.suite_label)

    @property
    def exact_tag(self) -> str:
        """The tag of the latest run of this combination with these very settings."""
        return f"{self.tag}@{self.fingerprint}"

    @property
    def rubric(self) -> str:
        """The rubric the run records: the sweep's, else the suite's."""
        return self.options.rubric or self.cases.defaults.rubric

    def describe(self) -> str:
        """`qwen-q4 x coding-agent`."""
        return f"{self.model.label} x {self.suite_label}"


def _tag(sweep: str, model: str, suite: str) -> str:
    # A suite's own name may hold spaces; a tag may not (labels are checked already).
    part = re.sub(r"\s+", "_", suite.strip()) or "_"
    return f"sweep:{sweep}/{model}/{part}"


def result_settings(options: RunOptions) -> JsonObject:
    """The request settings that decide the results, as the run records them.

    `prompt_format` is always present here (the record leaves out the default).
    """
    recorded = options.request.to_dict()
    settings: JsonObject = {k: recorded[k] for k in REQUEST_SETTINGS if k in recorded}
    settings["prompt_format"] = options.prompt_format
    return settings


def _fingerprint(model: ModelEntry, cases: Suite, options: RunOptions, rubric: str) -> str:
    identity: JsonObject = {
        "model": model.model,
        "suite_hash": cases.content_hash,
        "request": result_settings(options),
        "repeat": options.repeat,
        "rubric": rubric,
        "profile": options.profile,
        "teacher_forcing": options.teacher_forcing,
    }
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:_FINGERPRINT_CHARS]


def plan_sweep(config: SweepConfig, *, concurrency: int | None = None) -> tuple[Combination, ...]:
    """Every combination of the sweep, models outer and suites inner, in file order.

    Each suite is loaded and narrowed to its selection once.

    Args:
        config: the sweep.
        concurrency: cases in flight per run for every model (None: each model's own).

    Returns:
        The combinations.

    Raises:
        SuiteError: a suite cannot be loaded.
        ConfigError: a selection keeps no case, or two suites have the same name (give
            them labels).
    """
    suites = [(entry, _selected(config, i, entry)) for i, entry in enumerate(config.suites)]
    labels = [entry.label or cases.name for entry, cases in suites]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            raise ConfigError(
                f"suites[{labels.index(label)}] and suites[{i}] are both called {label!r}:"
                " give them different `label`s",
                path=str(config.path),
            )
    combos = []
    for model in config.models:
        for (entry, cases), label in zip(suites, labels, strict=True):
            options = _options(model, entry, concurrency=concurrency)
            fingerprint = _fingerprint(
                model, cases, options, options.rubric or cases.defaults.rubric
            )
            tag = _tag(config.name, model.label, label)
            combos.append(
                Combination(
                    sweep=config.name,
                    model=model,
                    suite=entry,
                    suite_label=label,
                    cases=cases,
                    options=dataclasses.replace(options, tags=(tag, f"{tag}@{fingerprint}")),
                    fingerprint=fingerprint,
                )
            )
    return tuple(combos)


def _selected(config: SweepConfig, index: int, entry: SuiteEntry) -> Suite:
    cases = select_cases(load_suite(entry.source), entry.selection)
    if not cases.cases:
        raise ConfigError(
            f"suites[{index}]: no case of suite {cases.name!r} matches the selection",
            path=str(config.path),
        )
    return cases


def _options(model: ModelEntry, suite: SuiteEntry, *, concurrency: int | None) -> RunOptions:
    return RunOptions(
        request=model.settings,
        concurrency=concurrency or model.concurrency,
        repeat=model.repeat,
        rubric=suite.rubric,
        profile=suite.profile,
        teacher_forcing=suite.teacher_forcing,
        warmup=model.warmup,
        selection=suite.selection.to_dict(),
        suite_source=suite.source,
    )


def _servers(model: ModelEntry) -> tuple[str, ...]:
    """What a model's runs load: its endpoints, else its provider's default server.

    `replay/` and `python/` models load no server: each is a group of its own.
    """
    if model.endpoints:
        return model.endpoints
    if model.provider in ("replay", "python"):
        return (f"{model.provider}:{model.label}",)
    return (f"{model.provider}:default",)


def groups(combos: Sequence[Combination], *, parallel: bool) -> list[list[Combination]]:
    """Combinations that may run at the same time go to different groups.

    Two combinations share a group when their models share a server, directly or
    through a third model (their server sets overlap): a server then never serves two
    runs at once, and a model with several endpoints keeps them all to itself.
    Within a group the file order is kept. Without `parallel`, one group holds all.

    Examples:
        >>> groups([], parallel=True)
        []
    """
    if not parallel:
        return [list(combos)] if combos else []
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for combo in combos:
        servers = _servers(combo.model)
        for server in servers[1:]:
            parent[root(server)] = root(servers[0])
    grouped: dict[str, list[Combination]] = {}
    for combo in combos:
        grouped.setdefault(root(_servers(combo.model)[0]), []).append(combo)
    return list(grouped.values())
