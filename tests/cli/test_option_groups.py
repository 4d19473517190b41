"""Option groups (`cli/_options.py`) and the `RunOptions` the commands build from them."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import typer
from typer.testing import CliRunner

import toolgrade
from toolgrade._core.json_data import JsonObject
from toolgrade.cli._options import marker_options, option, with_options
from toolgrade.cli._run_options import RequestOptions, ScoringOptions
from toolgrade.cli._selection import SelectionOptions

# run.json's option keys, in their order, before the request settings were nested.
_RUN_JSON_KEYS = [
    "timeout", "concurrency", "repeat", "seed", "temperature", "mode", "base_url",
    "max_retries", "retry_base_delay", "max_tokens", "stream", "backend_options", "rubric",
    "profile", "tags", "selection", "suite_source", "persist", "warmup",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Group:
    count: int = field(default=2, metadata=option("--count", "-c", min=1, help="How many."))
    names: list[str] | None = field(
        default=None, metadata=option("--name", help="A name (repeatable).", marker="names")
    )


def test_with_options_hands_command_the_assembled_group() -> None:
    seen: list[object] = []
    app = typer.Typer()

    @app.command()
    @with_options(group=_Group)
    def cmd(*, word: str = "w", group: _Group) -> None:
        seen.append((word, group))

    result = CliRunner().invoke(app, ["--word", "x", "-c", "3", "--name", "a", "--name", "b"])
    assert result.exit_code == 0, result.output
    assert seen == [("x", _Group(count=3, names=["a", "b"]))]


def test_with_options_group_option_keeps_its_bounds() -> None:
    app = typer.Typer()

    @app.command()
    @with_options(group=_Group)
    def cmd(*, group: _Group) -> None:
        pass

    result = CliRunner().invoke(app, ["--count", "0"])
    assert result.exit_code == 2


def test_marker_options_are_the_markers_keywords_before_groups() -> None:
    assert sorted(marker_options(SelectionOptions)) == sorted(
        ["tags", "all_tags", "categories", "difficulties", "ids", "sample", "seed", "limit"]
    )
    assert sorted(marker_options(ScoringOptions, RequestOptions)) == sorted(
        [
            "timeout",
            "concurrency",
            "rubric",
            "profile",
            "mode",
            "base_url",
            "repeat",
            "temperature",
            "stream_check",
        ]
    )


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("concurrency", 0, "concurrency must be at least 1, got 0"),
        ("rubric", "strict", "rubric must be one of binary, partial, f1, got 'strict'"),
        ("mode", "chat", "mode must be one of native, prompt, got 'chat'"),
        ("concurrency", 2, None),
        ("rubric", None, None),
    ],
)
def test_marker_option_problem_uses_the_options_bounds(
    key: str, value: object, problem: str | None
) -> None:
    known = marker_options(ScoringOptions, RequestOptions)
    assert known[key].problem(key, value) == problem


def test_run_options_flat_keywords_fill_the_nested_request() -> None:
    options = toolgrade.RunOptions(timeout=5.0, mode="prompt", backend_options={"top_p": 1})
    assert options.request == toolgrade.BackendSettings(
        timeout=5.0, mode="prompt", options={"top_p": 1}
    )
    assert (options.timeout, options.mode, options.backend_options) == (5.0, "prompt", {"top_p": 1})


def test_run_options_flat_keyword_wins_over_request() -> None:
    request = toolgrade.BackendSettings(timeout=9.0, seed=1)
    options = toolgrade.RunOptions(request=request, timeout=2.0)
    assert (options.timeout, options.seed) == (2.0, 1)


def test_run_options_to_dict_keeps_the_flat_run_json_keys() -> None:
    assert list(toolgrade.RunOptions().to_dict()) == _RUN_JSON_KEYS


def test_run_options_from_dict_reads_flat_and_nested_dicts() -> None:
    options = toolgrade.RunOptions(
        timeout=5.0, seed=3, max_tokens=None, stream=False, concurrency=2, tags=("x",)
    )
    assert toolgrade.RunOptions.from_dict(options.to_dict()) == options
    nested: JsonObject = {
        "request": {"timeout": 5.0, "seed": 3, "max_tokens": None, "stream": False}
    }
    rebuilt = toolgrade.RunOptions.from_dict({**nested, "concurrency": 2, "tags": ["x"]})
    assert rebuilt.to_dict() == options.to_dict()


def test_run_options_from_dict_bad_value_is_config_error() -> None:
    with pytest.raises(toolgrade.ConfigError, match="invalid recorded run options"):
        toolgrade.RunOptions.from_dict({"timeout": "soon"})


def test_run_options_backend_settings_use_concurrency_as_connections() -> None:
    settings = toolgrade.RunOptions(concurrency=6).backend_settings(api_key="k")
    assert (settings.connections, settings.api_key) == (6, "k")


def test_request_options_defaults_give_run_options_defaults() -> None:
    built = toolgrade.RunOptions(request=RequestOptions().settings(seed=None))
    assert built == toolgrade.RunOptions()
