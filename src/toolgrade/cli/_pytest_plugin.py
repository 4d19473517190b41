"""The toolgrade pytest plugin, registered through the `pytest11` entry point.

Gives every test session, with no import:

- the fixtures `assert_tool_calls` and `assert_trajectory`: the functions
  `toolgrade.assert_tool_calls` and `toolgrade.assert_trajectory`;
- the marker `@pytest.mark.toolgrade(suite=..., model=..., min_accuracy=...)` with the
  fixture `toolgrade_suite`, which runs the suite (or a selection of it) through a
  backend as one test and fails with the report's failure list below the bound.

The suite runs while the fixture is set up, but the accuracy bound is checked when the
test itself is called (`pytest_runtest_call`): a model below the bound is a test
FAILURE, not a setup ERROR (which pytest keeps for a broken fixture, e.g. a missing
suite file or an unreachable server).

Imports of toolgrade itself are deferred so the plugin costs nothing to sessions that
do not use it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from toolgrade.cli._options import MarkerOption
    from toolgrade.metrics import RunMetrics
    from toolgrade.results import RunResult

__all__ = [
    "FAILURES_SHOWN",
    "SuiteOutcome",
    "assert_tool_calls",
    "pytest_configure",
    "pytest_runtest_call",
    "toolgrade_suite",
]

FAILURES_SHOWN = 50
"""Failures listed in the message of a suite below its `min_accuracy`; a count follows."""

_OWN_KEYS = frozenset({"suite", "model", "min_accuracy", "persist"})
"""The marker's own keywords; the others are options of `toolgrade run` (see `_keys`)."""

_SHORTFALL = pytest.StashKey[str]()
"""The failure text of a suite below its `min_accuracy`, left by the fixture for the call."""


def pytest_configure(config: pytest.Config) -> None:
    """Declare the `toolgrade` marker."""
    config.addinivalue_line(
        "markers",
        "toolgrade(suite, model, min_accuracy=None, **options): run a toolgrade suite as one "
        "test through the toolgrade_suite fixture",
    )


@pytest.fixture
def assert_tool_calls() -> Callable[..., Any]:
    """`toolgrade.assert_tool_calls`, with no import needed."""
    from toolgrade.agent import assert_tool_calls as check

    return check


@pytest.fixture
def assert_trajectory() -> Callable[..., Any]:
    """`toolgrade.assert_trajectory`, with no import needed."""
    from toolgrade.agent import assert_trajectory as check

    return check


@dataclass(frozen=True, slots=True)
class SuiteOutcome:
    """What the `toolgrade_suite` fixture gives the test: the run and its metrics."""

    run: RunResult
    metrics: RunMetrics


@pytest.fixture
def toolgrade_suite(request: pytest.FixtureRequest) -> SuiteOutcome:
    """Run the suite named by the test's `toolgrade` marker; fail below `min_accuracy`."""
    marker = request.node.get_closest_marker("toolgrade")
    if marker is None or "suite" not in marker.kwargs or "model" not in marker.kwargs:
        pytest.fail(
            "toolgrade_suite needs @pytest.mark.toolgrade(suite=..., model=...)", pytrace=False
        )
    options = dict(marker.kwargs)
    selection_keys, run_keys = _keys()
    known = {**selection_keys, **run_keys}
    unknown = set(options) - known.keys() - _OWN_KEYS
    if unknown:
        pytest.fail(f"unknown toolgrade marker options: {sorted(unknown)}", pytrace=False)
    for key, value in options.items():
        problem = known[key].problem(key, value) if key in known else None
        if problem is not None:
            pytest.fail(f"toolgrade marker option {problem}", pytrace=False)
    bound = _bound(options.get("min_accuracy"))  # checked before the suite runs
    outcome = _run(options, selection_keys=tuple(selection_keys), run_keys=tuple(run_keys))
    if bound is not None and outcome.metrics.accuracy.rate < bound:
        # Failing here would make pytest report a setup ERROR: leave it for the call.
        request.node.stash[_SHORTFALL] = _failure_text(outcome, bound)
    return outcome


def _bound(value: object) -> float | None:
    """`min_accuracy`: None, or a fraction from 0 to 1; anything else fails the setup."""
    if value is None:
        return None
    from toolgrade.agent import fraction_bound
    from toolgrade.errors import ConfigError

    try:
        return fraction_bound("min_accuracy", value)
    except ConfigError as exc:
        pytest.fail(f"toolgrade marker option {exc}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Fail the test (in its call phase) when its suite's accuracy is below the bound."""
    shortfall = item.stash.get(_SHORTFALL, None)
    if shortfall is not None:
        del item.stash[_SHORTFALL]  # a rerun sets it again only if it falls short again
        pytest.fail(shortfall, pytrace=False)
    return (yield)


def _keys() -> tuple[dict[str, MarkerOption], dict[str, MarkerOption]]:
    """The marker keywords that are options of `toolgrade run`: selection, then run.

    They are declared with the options themselves (`option(..., marker=KEY)`), under the
    name `Selection` and `RunOptions` give them, with the options' bounds and choices.
    """
    from toolgrade.cli._options import marker_options
    from toolgrade.cli._run_options import RequestOptions, ScoringOptions
    from toolgrade.cli._selection import SelectionOptions

    return marker_options(SelectionOptions), marker_options(ScoringOptions, RequestOptions)


def _run(
    options: dict[str, Any], *, selection_keys: tuple[str, ...], run_keys: tuple[str, ...]
) -> SuiteOutcome:
    import toolgrade

    selection = toolgrade.Selection(
        **{k: _tuple(options[k]) for k in selection_keys if k in options}
    )
    suite = toolgrade.select_cases(toolgrade.load_suite(options["suite"]), selection)
    # A test run leaves no run folder behind unless asked to (persist=True).
    run_options = {
        "persist": options.get("persist", False),
        **{k: options[k] for k in run_keys if k in options},
    }
    run = toolgrade.run_suite(suite, options["model"], options=toolgrade.RunOptions(**run_options))
    return SuiteOutcome(run=run, metrics=toolgrade.compute_metrics(run))


def _tuple(value: Any) -> Any:
    """Marker options may give one tag or id as a string; selections take tuples."""
    if isinstance(value, str):
        return (value,)
    return tuple(value) if isinstance(value, list) else value


def _failure_text(outcome: SuiteOutcome, bound: float) -> str:
    import json

    import toolgrade

    acc = outcome.metrics.accuracy
    lines = [
        f"toolgrade: accuracy {acc.rate:.1%} ({acc.passed}/{acc.n}) is below min_accuracy "
        f"{bound:.1%} for {outcome.run.model} on {outcome.run.suite_name}",
        "Failures:",
    ]
    failed = [r for r in outcome.run.results if r.status is not toolgrade.Status.CORRECT]
    for result in failed[:FAILURES_SHOWN]:
        lines.append(f"  {result.case_id}: {toolgrade.describe_failure(result)}")
        lines.append(f"    prompt:   {json.dumps(result.prompt, ensure_ascii=False)[:300]}")
        lines.append(f"    expected: {[c.to_dict() for c in result.expected]}")
        lines.append(f"    actual:   {[c.to_dict() for c in result.actual]}")
    if len(failed) > FAILURES_SHOWN:
        lines.append(
            f"  ... and {len(failed) - FAILURES_SHOWN:,} more failures (persist=True in the"
            " marker keeps the run folder, which `toolgrade report FOLDER` shows in full)"
        )
    return "\n".join(lines)
