"""The command line, a sweep file and the library give a run the same defaults.

Each option is declared once (`toolgrade.runner.OPTION_SPECS`); these tests build the
`RunOptions` each reader of options makes when nothing is given, and compare them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

import toolgrade
from toolgrade.cli import app
from toolgrade.cli._options import marker_options
from toolgrade.cli._run_options import RequestOptions, ScoringOptions, run_options
from toolgrade.cli._selection import SelectionOptions
from toolgrade.runner import OPTION_SPECS
from toolgrade.sweep import load_sweep, plan_sweep


def test_cli_defaults_give_run_options_defaults() -> None:
    built = run_options(ScoringOptions(), RequestOptions(), seed=None)
    assert built == toolgrade.RunOptions()


def test_sweep_defaults_give_run_options_defaults(tmp_path: Path) -> None:
    path = tmp_path / "sweep.toml"
    path.write_text(
        'name = "x"\n[[models]]\nlabel = "m"\nmodel = "ollama/qwen3:8b"\n'
        '[[suites]]\nsuite = "coding-agent"\n',
        encoding="utf-8",
    )
    (combo,) = plan_sweep(load_sweep(path))
    # The sweep's seed is its selection's (0, as `--seed` on the command line).
    expected = toolgrade.RunOptions(
        seed=0,
        selection=combo.suite.selection.to_dict(),
        suite_source="coding-agent",
        tags=combo.options.tags,
    )
    assert combo.options == expected


def test_every_run_option_is_an_option_of_run_with_the_specs_help() -> None:
    command = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    helps = {opt: param.help for param in command.params for opt in param.opts}
    for spec in OPTION_SPECS:
        assert spec.flag in helps, spec.flag
        if spec.name != "seed":  # `--seed` is the selection's, sent to the server too
            assert helps[spec.flag] == spec.help


def test_marker_keywords_have_the_specs_bounds() -> None:
    known = marker_options(ScoringOptions, RequestOptions)
    for key, marker in known.items():
        spec = getattr(OPTION_SPECS, key)
        assert (marker.low, marker.high) == (spec.low, spec.high), key
    seed = marker_options(SelectionOptions)["seed"]
    assert (seed.low, seed.high) == (OPTION_SPECS.seed.low, OPTION_SPECS.seed.high)


def test_option_groups_hold_the_specs_defaults() -> None:
    scoring = {f.name: f.default for f in dataclasses.fields(ScoringOptions)}
    for name, default in scoring.items():
        assert default == getattr(OPTION_SPECS, name).default, name
    request = RequestOptions()
    assert request.no_stream is not OPTION_SPECS.stream.default
    assert request.no_warmup is not OPTION_SPECS.warmup.default
    assert request.max_tokens == OPTION_SPECS.max_tokens.default
