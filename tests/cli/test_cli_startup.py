"""The command line starts with only what the command needs (issue 18).

`toolgrade --version` is answered before typer is imported; every command's module is
imported when the command is looked up (`cli/_lazy.py`). The lazily built command line
must be the one typer builds from eager registrations: same commands in the same order,
same help texts, same completions. Which modules a path imports is read in a fresh
interpreter (`sys.modules` after the same code path the console script takes).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

import toolgrade
from toolgrade.cli import _app, _main, app
from toolgrade.cli._lazy import LazyCommands, build_command

EXAMPLE = Path(__file__).parents[2] / "examples" / "score-example.json"
COMMAND_MODULES = sorted({target.partition(":")[0] for target in _app.COMMANDS.values()})
HEAVY = ("aiohttp", "jsonschema", "rich")
"""Packages no path below may import (the HTTP client, suite validation, rich help)."""

_MODULES_AFTER = """
import json, sys
sys.argv = ["toolgrade", *json.loads(sys.argv[1])]
from toolgrade.cli import main
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
sys.stdout.flush()
sys.stderr.write(json.dumps(sorted(sys.modules)))
"""


def _run_main(*args: str) -> tuple[str, set[str]]:
    """Run `toolgrade ARGS` through `main` in a new interpreter: (stdout, modules imported)."""
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER, json.dumps(args)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout, set(json.loads(done.stderr))


def _packages(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in names)


def test_cli_version_imports_no_typer_nor_heavy_package() -> None:
    out, modules = _run_main("--version")
    assert out == f"toolgrade {toolgrade.__version__}\n"
    heavy = ("typer", "click", "pydantic", "pydantic_core", *HEAVY)
    assert _packages(modules, heavy) == []
    allowed = {"toolgrade.cli._main", "toolgrade.cli._process"}
    assert not {m for m in modules if m.startswith("toolgrade.cli._")} - allowed


def test_cli_python_m_version_imports_no_typer() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "toolgrade", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == f"toolgrade {toolgrade.__version__}\n"
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "toolgrade.cli._main" in imported
    assert _packages(imported, ("typer", "click", "pydantic", *HEAVY)) == []


def test_cli_score_imports_only_its_own_command() -> None:
    out, modules = _run_main("score", str(EXAMPLE))
    assert out.startswith("Accuracy Score: 40.0%")
    assert _packages(modules, HEAVY) == []
    assert [m for m in COMMAND_MODULES if m in modules] == ["toolgrade.cli._score"]
    # Neither the runner, the suites, the backends nor the reports.
    for package in ("runner", "suite", "backends", "report", "store", "judging", "extract"):
        assert f"toolgrade.{package}" not in modules, package


_FIRST_MATCHER = """
import json, sys
from toolgrade.match import compare_arguments, compare_values
from toolgrade.match import _values
from toolgrade.match._values import DEEP_EQUALITY, SEMANTIC
plain = compare_values({"a": {"$regex": "x"}}, {"a": {"$regex": "x"}}, options=DEEP_EQUALITY)
before = "toolgrade.match._matchers" in sys.modules
first = [m.reason for m in compare_arguments(
    {"q": {"$regex": "a+"}, "z": {"$absent": True}, "w": {"$present": True}},
    {"q": "b", "z": 1}, options=SEMANTIC)]
from toolgrade.match import _evaluate, _matchers
real = [_values.parse_matcher is _matchers.parse_matcher, _values.evaluate is _evaluate.evaluate,
        _values.accepts_absent is _evaluate.accepts_absent]
print(json.dumps([plain == [], before, first, real]))
"""


def test_plain_equality_leaves_matchers_unimported_and_the_first_matcher_works() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_MATCHER], capture_output=True, text=True, check=True
    )
    plain_equal, imported_before, first, real = json.loads(done.stdout)
    assert plain_equal and not imported_before
    # The same comparison in this process, where the matchers were loaded long ago.
    from toolgrade.match import compare_arguments
    from toolgrade.match._values import SEMANTIC

    expected = {"q": {"$regex": "a+"}, "z": {"$absent": True}, "w": {"$present": True}}
    again = compare_arguments(expected, {"q": "b", "z": 1}, options=SEMANTIC)
    assert first == [m.reason for m in again] and len(first) == 3
    assert real == [True, True, True]


def test_cli_building_the_app_imports_no_command() -> None:
    code = (
        "import json, sys, typer; from toolgrade.cli import app; "
        "group = typer.main.get_command(app); "
        "names = group.list_commands(None); len(group.commands); 'score' in group.commands; "
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout))
    assert loaded.isdisjoint(COMMAND_MODULES)


# The reference: the same command line with every command registered eagerly, as typer
# builds it (and as `cli/_app.py` did before the commands became lazy).


class _EagerGroup(TyperGroup):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _app._hide_flag_types()  # as the real root group does


def _eager_app() -> typer.Typer:
    eager = typer.Typer(
        cls=_EagerGroup,
        name="toolgrade",
        help="Measure how correctly a language model or an agent calls tools.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    eager.callback()(_app._root)
    for name, target in _app.COMMANDS.items():
        module, _, attribute = target.partition(":")
        obj = getattr(__import__(module, fromlist=[attribute]), attribute)
        if isinstance(obj, typer.Typer):
            eager.add_typer(obj, name=name)
        else:
            eager.command(name)(obj)
    return eager


@pytest.fixture(scope="module")
def groups() -> tuple[Any, Any]:
    """(lazy, eager) root click groups."""
    return typer.main.get_command(app), typer.main.get_command(_eager_app())


def _paths(group: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name in group.list_commands(None):
        yield (*prefix, name)
        command = group.get_command(None, name)
        if isinstance(command, TyperGroup):
            yield from _paths(command, (*prefix, name))


def test_lazy_group_lists_the_eager_commands_in_order(groups: tuple[Any, Any]) -> None:
    lazy, eager = groups
    assert lazy.list_commands(None) == eager.list_commands(None) == list(_app.COMMANDS)
    assert list(_paths(lazy)) == list(_paths(eager))


def _help(target: typer.Typer | Any, args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(target, args, env={"COLUMNS": "120", "TERM": "dumb"})
    return result.exit_code, result.output


def test_lazy_root_help_same_as_eager() -> None:
    assert _help(app, ["--help"]) == _help(_eager_app(), ["--help"])
    assert _help(app, []) == _help(_eager_app(), [])


@pytest.mark.parametrize("path", list(_paths(typer.main.get_command(_eager_app()))), ids=" ".join)
def test_lazy_command_loads_with_the_eager_help(path: tuple[str, ...]) -> None:
    code, lazy = _help(app, [*path, "--help"])
    assert code == 0, lazy
    assert (code, lazy) == _help(_eager_app(), [*path, "--help"])


@pytest.mark.parametrize("incomplete", ["", "s", "r", "i", "x"])
def test_lazy_group_completes_like_eager(groups: tuple[Any, Any], incomplete: str) -> None:
    def complete(group: Any) -> list[tuple[str, str | None]]:
        ctx = group.make_context("toolgrade", [], resilient_parsing=True)
        return [(item.value, item.help) for item in group.shell_complete(ctx, incomplete)]

    lazy, eager = groups
    assert complete(lazy) == complete(eager)


def test_lazy_group_misspelt_command_suggests_like_eager() -> None:
    assert _help(app, ["sco"]) == _help(_eager_app(), ["sco"])


def test_lazy_commands_build_only_what_is_read() -> None:
    built: list[str] = []

    def build(name: str, target: str) -> Any:
        built.append(name)
        return build_command(name, target, rich_markup_mode="rich", suggest_commands=True)

    commands = LazyCommands({"score": "toolgrade.cli._score:score", "x": "no.such:module"}, build)
    assert list(commands) == ["score", "x"] and len(commands) == 2
    assert "score" in commands and "y" not in commands and commands.get("y") is None
    assert built == []
    assert commands["score"] is commands["score"] and built == ["score"]
    commands["y"] = commands["score"]
    del commands["x"]
    assert list(commands) == ["score", "y"]


# `--version`: answered by `main` itself, like typer would.


@pytest.fixture(autouse=True)
def _program_named_toolgrade(monkeypatch: pytest.MonkeyPatch) -> None:
    """click names the program (and typer the completion variable) after `__main__`'s
    package: under `python -m pytest` (as `make test` runs) that would be `python -m
    pytest.toolgrade`, not `toolgrade`, as the console script is named."""
    monkeypatch.setattr(sys.modules["__main__"], "__package__", None, raising=False)


@pytest.mark.parametrize(
    "args", [["--version"], ["--version", "--help"], ["--help", "--version"], ["--vers"]]
)
def test_main_version_same_as_typer(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["toolgrade", *args])
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("TERM", "dumb")
    try:
        _main.main()  # the fast path returns
        code = 0
    except SystemExit as exc:  # typer exits
        code = int(exc.code or 0)
    out = capsys.readouterr()
    assert (code, out.out + out.err) == _help(app, args)


@pytest.mark.parametrize("args", [["--version"], ["--version", "--version"]], ids=["fast", "typer"])
def test_main_version_into_a_closed_pipe_exits_1_quietly(args: list[str]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        done = subprocess.run(
            [sys.executable, "-m", "toolgrade", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            check=False,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (1, b"")


def test_main_fast_version_leaves_completion_to_typer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["toolgrade", "--version"])
    monkeypatch.setenv("_TOOLGRADE_COMPLETE", "complete_bash")
    with pytest.raises(SystemExit):  # typer answers the shell, and exits
        _main.main()
    assert "toolgrade " not in capsys.readouterr().out


# The garbage collector, paused while the command line starts, runs the command.


@pytest.fixture
def probe_command(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[bool, bool]]]:
    """`toolgrade score` replaced by a command recording (collector on, objects frozen)."""
    seen: list[tuple[bool, bool]] = []

    def score() -> None:
        seen.append((gc.isenabled(), gc.get_freeze_count() > 0))

    import toolgrade.cli._score as module

    monkeypatch.setattr(module, "score", score)
    monkeypatch.setattr(sys, "argv", ["toolgrade", "score"])
    yield seen
    gc.unfreeze()  # the test session goes on: let the collector see everything again


def test_main_command_runs_with_the_collector_on(
    probe_command: list[tuple[bool, bool]],
) -> None:
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with pytest.raises(SystemExit) as exited:
        _main.main()
    assert exited.value.code == 0
    assert probe_command == [(True, True)] and gc.isenabled()


def test_main_leaves_a_disabled_collector_disabled(
    probe_command: list[tuple[bool, bool]],
) -> None:
    gc.disable()
    try:
        with pytest.raises(SystemExit):
            _main.main()
        assert probe_command == [(False, False)] and not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("args", [["no-such-command"], ["--help"], []])
def test_main_without_a_command_turns_the_collector_back_on(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["toolgrade", *args])
    try:
        with pytest.raises(SystemExit):
            _main.main()
        assert gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
