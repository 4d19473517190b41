"""The sweep file (`sweep.toml`): which models, which suites, with which settings.

A model's settings become the same library values `toolgrade run` builds from its
options (`BackendSettings`, checked by `RunOptions`), and a suite's selection is a
`Selection`: their own checks decide what is valid, and this module only places
their messages (file, key, line). Every problem of the file is reported at once.

Keys given at the top level are defaults: the request and run keys for every model,
the scoring keys for every suite; a model or suite table overrides them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast, get_args

from toolgrade._core.json_data import JsonValue
from toolgrade._core.vocab import Rubric
from toolgrade.backends import BackendSettings, check_base_url, parse_model_spec
from toolgrade.errors import ConfigError
from toolgrade.judging import profiles
from toolgrade.runner import OPTION_SPECS, OptionSpec, RunOptions
from toolgrade.suite import Selection, builtin_suite_names
from toolgrade.sweep._fields import TableReader
from toolgrade.sweep._toml import Problems, TableRef, key_lines, parse_toml

__all__ = ["ModelEntry", "SuiteEntry", "SweepConfig", "load_sweep"]


_SPECS = OPTION_SPECS
# Request and run keys: at the top level (defaults) and in [[models]]; each is a run
# option under its `RunOptions` name (`options`: `backend_options`).
_MODEL_KEYS: dict[str, OptionSpec[Any]] = {
    "mode": _SPECS.mode,
    "prompt_format": _SPECS.prompt_format,
    "temperature": _SPECS.temperature,
    "max_tokens": _SPECS.max_tokens,  # 0: no cap, as on the command line
    "max_retries": _SPECS.max_retries,
    "stream": _SPECS.stream,
    "options": _SPECS.backend_options,
    "timeout": _SPECS.timeout,
    "concurrency": _SPECS.concurrency,
    "repeat": _SPECS.repeat,
    "warmup": _SPECS.warmup,
}
# Scoring keys: at the top level (defaults) and in [[suites]].
_SUITE_KEYS: dict[str, OptionSpec[Any]] = {
    "profile": _SPECS.profile,
    "rubric": _SPECS.rubric,
    "teacher_forcing": _SPECS.teacher_forcing,
}
_MODEL_DEFAULTS = {
    key: dict(spec.default) if key == "options" else spec.default
    for key, spec in _MODEL_KEYS.items()
}
_SUITE_DEFAULTS = {key: spec.default for key, spec in _SUITE_KEYS.items()}
_TOP_ONLY = ("name", "parallel", "seed", "models", "suites")
_MODEL_ONLY = ("label", "model", "base_url")
_SELECTION = ("tags", "all_tags", "categories", "difficulties", "ids", "sample", "limit")
_SUITE_ONLY = ("suite", "label", *_SELECTION)
_SERVERLESS = ("replay", "python")


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """One `[[models]]` table: a model and how to send it requests."""

    label: str
    """Its name in the leaderboard and in its runs' tags (unique in the file)."""
    model: str
    """`provider/model`, as `toolgrade run --model` takes it (a replay file made absolute)."""
    endpoints: tuple[str, ...]
    """The servers' base URLs (empty: the provider's default)."""
    settings: BackendSettings
    """The request settings (`timeout` is the time allowed per case)."""
    concurrency: int = _SPECS.concurrency.default
    """Cases in flight at once."""
    repeat: int = _SPECS.repeat.default
    """Times each case runs."""
    warmup: bool = _SPECS.warmup.default
    """Send one untimed request before the cases."""

    @property
    def provider(self) -> str:
        """The provider part of `model`."""
        return self.model.partition("/")[0]


@dataclass(frozen=True, slots=True)
class SuiteEntry:
    """One `[[suites]]` table: a suite, the cases chosen from it and how they are scored."""

    source: str
    """An absolute path, or a built-in suite name."""
    label: str | None
    """Its name in the leaderboard (None: the suite's own name)."""
    selection: Selection
    """Which cases (the same fields as `toolgrade run`'s selection)."""
    profile: str = _SPECS.profile.default
    """The matching profile."""
    rubric: Rubric | None = _SPECS.rubric.default
    """The rubric (None: the suite's)."""
    teacher_forcing: bool = _SPECS.teacher_forcing.default
    """Conversations: start every turn from the reference."""


@dataclass(frozen=True, slots=True)
class SweepConfig:
    """A whole sweep file, checked.

    Examples:
        >>> config = load_sweep("examples/sweep.toml")  # doctest: +SKIP
        >>> [m.label for m in config.models]  # doctest: +SKIP
        ['qwen-q4', 'qwen-q8']
    """

    name: str
    """The sweep's name (part of every run's tag)."""
    path: Path
    """The file it was read from."""
    models: tuple[ModelEntry, ...]
    """The models, in file order."""
    suites: tuple[SuiteEntry, ...]
    """The suites, in file order."""
    parallel: bool = True
    """Run combinations that use different servers at the same time."""
    seed: int = 0
    """Seed sent to the servers and used by `sample`."""


def load_sweep(path: str | Path) -> SweepConfig:
    """Read and check a sweep file.

    Paths in the file (suite files, replay files) are relative to the file's folder.

    Args:
        path: the TOML file.

    Returns:
        The checked configuration.

    Raises:
        ConfigError: the file cannot be read, is not TOML, or has problems; the message
            names the file and, for each problem, its key and line.
    """
    file = Path(path)
    text, data = parse_toml(file)
    problems = Problems(file, key_lines(text))
    top = TableRef()
    problems.unknown_keys(top, data, (*_TOP_ONLY, *_MODEL_DEFAULTS, *_SUITE_DEFAULTS))
    read = TableReader(problems, top, data)
    name = read.label("name", required=True)
    defaults = {k: read.value(k, v) for k, v in {**_MODEL_DEFAULTS, **_SUITE_DEFAULTS}.items()}
    seed = cast(int, read.value("seed", 0))
    base = file.resolve().parent
    models = tuple(
        m
        for i, table in enumerate(_tables(problems, data, "models"))
        if (
            m := _model(
                problems, TableRef("models", i), table, defaults, top=data, seed=seed, base=base
            )
        )
    )
    suites = tuple(
        s
        for i, table in enumerate(_tables(problems, data, "suites"))
        if (s := _suite(problems, TableRef("suites", i), table, defaults, seed=seed, base=base))
    )
    _unique(problems, "models", [m.label for m in models])
    _unique(problems, "suites", [s.label for s in suites if s.label is not None])
    problems.raise_if_any()
    return SweepConfig(
        name=name or "",
        path=file,
        models=models,
        suites=suites,
        parallel=cast(bool, read.value("parallel", True)),
        seed=seed,
    )


def _tables(problems: Problems, data: Mapping[str, object], key: str) -> list[dict[str, object]]:
    value = data.get(key)
    if value is None:
        problems.add(TableRef(), key, f"missing: add at least one [[{key}]] table")
        return []
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        problems.add(TableRef(), key, f"must be an array of tables ([[{key}]])")
        return []
    if not value:
        problems.add(TableRef(), key, f"empty: add at least one [[{key}]] table")
    return [cast(dict[str, object], t) for t in value]


def _unique(problems: Problems, table: str, labels: list[str]) -> None:
    for i, label in enumerate(labels):
        if label in labels[:i]:
            where = TableRef(table, i)
            problems.add(where, "label", f"label {label!r} is used twice: labels must be unique")


def _model(
    problems: Problems,
    where: TableRef,
    table: Mapping[str, object],
    defaults: Mapping[str, object],
    *,
    top: Mapping[str, object],
    seed: int,
    base: Path,
) -> ModelEntry | None:
    problems.unknown_keys(where, table, (*_MODEL_ONLY, *_MODEL_DEFAULTS))
    read = TableReader(problems, where, table)
    label = read.label("label", required=True)
    spec = _model_spec(read, base)
    endpoints = _endpoints(read)
    value = {k: read.value(k, defaults[k]) for k in _MODEL_DEFAULTS}
    if endpoints and spec is not None and spec.partition("/")[0] in _SERVERLESS:
        read.problem("base_url", f"{spec.partition('/')[0]}/ models have no server")
    if label is None or spec is None or endpoints is None or read.failed:
        return None
    tokens = cast(int, value["max_tokens"])
    try:
        settings = BackendSettings(
            mode=cast(str, value["mode"]),  # type: ignore[arg-type]  # RunOptions checks it
            prompt_format=cast(str, value["prompt_format"]),
            temperature=float(cast(float, value["temperature"])),
            max_tokens=None if tokens == 0 else tokens,  # 0: no cap, as on the command line
            max_retries=cast(int, value["max_retries"]),
            stream=cast(bool, value["stream"]),
            options=cast(dict[str, JsonValue], value["options"]),
            timeout=float(cast(float, value["timeout"])),
            seed=seed,
            base_url=endpoints[0] if endpoints else None,
        )
        if len(endpoints) > 1:
            settings = dataclasses.replace(settings, endpoints=endpoints)
        # RunOptions holds the checks `toolgrade run` applies to the same values.
        RunOptions(
            request=settings,
            concurrency=cast(int, value["concurrency"]),
            repeat=cast(int, value["repeat"]),
        )
    except ConfigError as exc:
        key = _culprit(exc.message, _MODEL_DEFAULTS)
        # A value taken from the top-level defaults is wrong there, not in this model.
        inherited = key is not None and key not in table and key in top
        problems.add(TableRef() if inherited else where, key, exc.message)
        return None
    return ModelEntry(
        label=label,
        model=spec,
        endpoints=endpoints,
        settings=settings,
        concurrency=cast(int, value["concurrency"]),
        repeat=cast(int, value["repeat"]),
        warmup=cast(bool, value["warmup"]),
    )


def _model_spec(read: TableReader, base: Path) -> str | None:
    spec = read.string("model", required=True)
    if spec is None:
        return None
    try:
        provider, model = parse_model_spec(spec)
    except ConfigError as exc:
        read.problem("model", exc.message)
        return None
    if provider == "replay":
        # Relative to the sweep file, like every path in it; recorded absolute so that
        # a re-run from another folder finds the same runs.
        file = base / model
        if not file.is_file():
            read.problem("model", f"no such replay file {str(file)!r}")
            return None
        return f"replay/{file}"
    return spec


def _endpoints(read: TableReader) -> tuple[str, ...] | None:
    value = read.data.get("base_url")
    if value is None:
        return ()
    urls = [value] if isinstance(value, str) else value
    if not isinstance(urls, list) or not urls or not all(isinstance(u, str) for u in urls):
        read.problem("base_url", "must be a URL or a non-empty array of URLs")
        return None
    try:
        checked = tuple(check_base_url(u, source="base_url") for u in urls)
    except ConfigError as exc:
        read.problem("base_url", exc.message)
        return None
    twice = sorted({u for u in checked if checked.count(u) > 1})
    if twice:
        read.problem("base_url", f"listed twice: {', '.join(twice)}")
        return None
    return checked


def _suite(
    problems: Problems,
    where: TableRef,
    table: Mapping[str, object],
    defaults: Mapping[str, object],
    *,
    seed: int,
    base: Path,
) -> SuiteEntry | None:
    problems.unknown_keys(where, table, (*_SUITE_ONLY, *_SUITE_DEFAULTS))
    read = TableReader(problems, where, table)
    name = read.string("suite", required=True)
    label = read.label("label", required=False)
    value = {k: read.value(k, defaults[k]) for k in _SUITE_DEFAULTS}
    picked = {k: read.strings(k) for k in ("tags", "categories", "difficulties", "ids")}
    numbers = {k: read.value(k, None) for k in ("sample", "limit")}
    all_tags = cast(bool, read.value("all_tags", False))
    source = _suite_source(read, name, base) if name is not None else None
    rubric, profile = value["rubric"], value["profile"]
    if rubric is not None and rubric not in get_args(Rubric):
        _inherited(read, "rubric", f"must be one of {', '.join(get_args(Rubric))}, got {rubric!r}")
    if isinstance(profile, str) and profile not in profiles():
        _inherited(read, "profile", f"unknown profile {profile!r} (known: {', '.join(profiles())})")
    if source is None or read.failed:
        return None
    try:
        selection = Selection(
            tags=picked["tags"],
            all_tags=all_tags,
            categories=picked["categories"],
            difficulties=tuple(d.strip().lower() for d in picked["difficulties"]),
            ids=picked["ids"],
            sample=cast(int | None, numbers["sample"]),
            seed=seed,
            limit=cast(int | None, numbers["limit"]),
        )
    except ConfigError as exc:
        problems.add(where, _culprit(exc.message, _SELECTION), exc.message)
        return None
    return SuiteEntry(
        source=source,
        label=label,
        selection=selection,
        profile=cast(str, profile),
        rubric=cast(Rubric | None, rubric),
        teacher_forcing=cast(bool, value["teacher_forcing"]),
    )


def _inherited(read: TableReader, key: str, message: str) -> None:
    """A problem with a value the table may have from the top-level defaults."""
    if key in read.data:
        read.problem(key, message)
    else:
        read.failed = True
        read.problems.add(TableRef(), key, message)


def _suite_source(read: TableReader, name: str, base: Path) -> str | None:
    path = base / name
    if path.exists():
        return str(path.resolve())
    if name in builtin_suite_names():
        return name
    read.problem(
        "suite",
        f"no suite file or folder {str(path)!r} (paths are relative to the sweep file),"
        f" and no built-in suite {name!r} (built-in: {', '.join(builtin_suite_names())})",
    )
    return None


def _culprit(message: str, keys: Mapping[str, object] | tuple[str, ...]) -> str | None:
    """The key a library check's message is about (`--max-retries` -> `max_retries`)."""
    text = message.lower().replace("-", "_").replace(" ", "_")
    forms = {k: {k, k[:-3] + "y" if k.endswith("ies") else k.rstrip("s")} for k in keys}
    hits = [k for k, names in forms.items() if any(n in text for n in names)]
    return max(hits, key=len) if hits else None
