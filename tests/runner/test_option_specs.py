"""`OPTION_SPECS`: each run option declared once, and `RunOptions` built from the specs."""

from __future__ import annotations

import dataclasses
from typing import get_type_hints

import pytest

import toolgrade
from toolgrade.runner import OPTION_SPECS, OptionSpec, RunOptions, RunOptionSpecs
from toolgrade.runner._options import RequestSettings, RunKeywords


def test_run_options_defaults_are_the_specs() -> None:
    defaults = RunOptions()
    for spec in OPTION_SPECS:
        value = getattr(defaults, spec.name)
        assert value == spec.default, spec.name


def test_request_option_defaults_are_backend_settings_own() -> None:
    settings = toolgrade.BackendSettings()
    assert OPTION_SPECS.timeout.default == settings.timeout
    assert OPTION_SPECS.max_tokens.default == settings.max_tokens
    assert OPTION_SPECS.backend_options.default == settings.options == {}


def test_specs_are_named_as_their_attribute_and_flags_follow_names() -> None:
    names = [f.name for f in dataclasses.fields(RunOptionSpecs)]
    assert [spec.name for spec in OPTION_SPECS] == names
    assert OPTION_SPECS.max_retries.flag == "--max-retries"
    assert OPTION_SPECS.backend_options.flag == "--option"


def test_a_spec_under_another_name_is_refused() -> None:
    specs = {f.name: getattr(OPTION_SPECS, f.name) for f in dataclasses.fields(RunOptionSpecs)}
    specs["repeat"] = OPTION_SPECS.concurrency
    with pytest.raises(ValueError, match=r"\['repeat'\]"):
        RunOptionSpecs(**specs)


@pytest.mark.parametrize(
    ("spec", "value", "problem"),
    [
        (OPTION_SPECS.concurrency, 0, "must be at least 1, got 0"),
        (OPTION_SPECS.concurrency, 1, None),
        (OPTION_SPECS.max_retries, -1, "must be 0 or more, got -1"),
        (OPTION_SPECS.repeat, 1001, "must be 1 to 1,000, got 1001"),
        (OPTION_SPECS.seed, None, None),
        (OPTION_SPECS.profile, 3, None),
    ],
)
def test_spec_problem_names_the_bounds(spec: OptionSpec[object], value: int, problem: str) -> None:
    assert spec.problem(value) == problem


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"concurrency": 0}, "--concurrency must be at least 1, got 0"),
        ({"max_retries": -2}, "--max-retries must be 0 or more, got -2"),
        ({"mode": "chat"}, "--mode must be native or prompt, got 'chat'"),
        ({"timeout": 0.0}, "--timeout must be positive, got 0"),
    ],
)
def test_run_options_check_with_the_specs_bounds(keywords: dict[str, object], message: str) -> None:
    with pytest.raises(toolgrade.ConfigError) as caught:
        RunOptions(**keywords)  # type: ignore[arg-type]
    assert caught.value.message == message


def test_run_options_take_every_field_and_flat_setting_as_keyword() -> None:
    options = RunOptions(
        request=toolgrade.BackendSettings(seed=4),
        concurrency=2,
        selection=None,
        suite_dir="here",
        backend_options={"top_p": 1},
        temperature=0.5,
    )
    assert (options.concurrency, options.selection, options.suite_dir) == (2, {}, "here")
    assert (options.seed, options.temperature, options.backend_options) == (4, 0.5, {"top_p": 1})
    assert dataclasses.replace(options, repeat=3) == RunOptions(
        request=options.request, concurrency=2, suite_dir="here", repeat=3
    )


def test_run_options_refuse_an_unknown_keyword() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'speed'"):
        RunOptions(speed=2)  # type: ignore[call-arg]


def test_run_options_defaults_are_fresh_per_instance() -> None:
    assert RunOptions().selection is not RunOptions().selection


def test_run_keywords_are_the_fields_and_the_flat_settings() -> None:
    keywords = get_type_hints(RunKeywords)
    fields = get_type_hints(RunOptions)
    own = {k: v for k, v in keywords.items() if k not in RequestSettings.__optional_keys__}
    assert own.keys() == fields.keys() - {"request"}
    for name, hint in own.items():
        given = fields[name] | None if name == "selection" else fields[name]
        assert hint == given, name
