"""The toolgrade pytest plugin, registered through the `pytest11` entry point.

Gives every test session, with no import:

- the fixtures `assert_tool_calls` and `assert_trajectory`: the functions
  `toolgrade.assert_tool_calls` and `toolgrade.assert_trajectory`;
- the marker `@pytest.mark.toolgrade(suite=..., model=..., min_accuracy=...)` with the
  fixture `toolgrade_suite`, which runs the suite (or a selection of it) through a
  backend as one test and fails with the report's failure list below the bound;
- with `baseline=REF` (a stored run: id, tag, run folder or exported JSON), the run is
  compared with that baseline (`toolgrade.compare_runs`, `threshold` and `alpha` as in
  `toolgrade compare`): a `regression` fails the test, and so does an `inconclusive`
  verdict with `fail_on_inconclusive=True` (a gate that must be sure); with
  `as_served=True` both decide on the verdict as served (only calls delivered as
  structured `tool_calls` count: a server-upgrade gate).

The suite runs while the fixture is set up, but the bound and the comparison are checked
when the test itself is called (`pytest_runtest_call`): a model below the bound or
behind its baseline is a test FAILURE, not a setup ERROR (which pytest keeps for a
broken fixture, e.g. a missing suite file, an unknown baseline or an unreachable server).

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
    from toolgrade.compare import Comparison
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

_COMPARE_KEYS = frozenset({"baseline", "threshold", "alpha", "fail_on_inconclusive", "as_served"})
"""The marker's keywords of a comparison with a baseline."""

_OWN_KEYS = frozenset({"suite", "model", "min_accuracy", "persist"}) | _COMPARE_KEYS
"""The marker's own keywords; the others are options of `toolgrade run` (see `_keys`)."""

_SHORTFALL = pytest.StashKey[str]()
"""The failure text of a suite below its `min_accuracy`, left by the fixture for the call."""


def pytest_configure(config: pytest.Config) -> None:
    """Declare the `toolgrade` marker."""
    config.addinivalue_line(
        "markers",
        "toolgrade(suite, model, min_accuracy=None, baseline=None, threshold=2.0, alpha=0.05,"
        " fail_on_inconclusive=False, as_served=False, **options): run a toolgrade suite as"
        " one test through"
        " the toolgrade_suite fixture",
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
    comparison: Comparison | None = None
    """The comparison with the marker's `baseline`, when it names one."""


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
    gate = _gate(options)
    baseline = _baseline(options["baseline"]) if "baseline" in options else None
    outcome = _run(options, selection_keys=tuple(selection_keys), run_keys=tuple(run_keys))
    shortfalls = []
    if bound is not None and outcome.metrics.accuracy.rate < bound:
        shortfalls.append(_failure_text(outcome, bound))
    if baseline is not None:
        from toolgrade.compare import compare_runs, gate_verdict

        comparison = compare_runs(baseline, outcome.run, **gate)
        outcome = SuiteOutcome(outcome.run, outcome.metrics, comparison)
        fails_on = ("regression", "inconclusive") if options.get("fail_on_inconclusive") else ()
        as_served = bool(options.get("as_served", False))
        if gate_verdict(comparison, as_served=as_served) in (fails_on or ("regression",)):
            shortfalls.append(_comparison_text(comparison, as_served=as_served))
    if shortfalls:
        # Failing here would make pytest report a setup ERROR: leave it for the call.
        request.node.stash[_SHORTFALL] = "\n".join(shortfalls)
    return outcome


def _gate(options: dict[str, Any]) -> dict[str, float]:
    """`threshold` (points, >= 0) and `alpha` (in (0, 1)) of the comparison; bad ones fail."""
    gate = {"threshold": options.get("threshold", 2.0), "alpha": options.get("alpha", 0.05)}
    threshold, alpha = gate["threshold"], gate["alpha"]
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in gate.values())
    if not numbers or threshold < 0 or not 0 < alpha < 1:
        pytest.fail(
            f"toolgrade marker option threshold={threshold!r} must be a number of points >= 0"
            f" and alpha={alpha!r} a number between 0 and 1",
            pytrace=False,
        )
    for key in ("fail_on_inconclusive", "as_served"):
        flag = options.get(key, False)
        if not isinstance(flag, bool):
            problem = f"toolgrade marker option {key}={flag!r} must be True or False"
            pytest.fail(problem, pytrace=False)
    return {"threshold": float(threshold), "alpha": float(alpha)}


def _baseline(ref: object) -> RunResult:
    """The stored run `baseline=` names; an unknown one fails the setup."""
    import toolgrade
    from toolgrade.errors import ToolgradeError

    if not isinstance(ref, str) or not ref:
        pytest.fail(f"toolgrade marker option baseline={ref!r} must name a run", pytrace=False)
    try:
        return toolgrade.resolve_run(ref)
    except ToolgradeError as exc:
        problem = str(exc)
    pytest.fail(f"toolgrade marker option baseline={ref!r}: {problem}", pytrace=False)


def _comparison_text(comparison: Comparison, *, as_served: bool = False) -> str:
    """The failure text of a run behind its baseline (or not shown to be level with it).

    With `as_served`, the figures as served and the flips by serving class lead.
    """
    c = comparison
    lines = [
        f"toolgrade: against baseline {c.baseline_label} ({c.baseline_id}): {c.status}",
        f"  accuracy {c.baseline_accuracy.rate:.1%} -> {c.candidate_accuracy.rate:.1%}"
        f" ({c.delta * 100:+.1f} points, 95% CI {c.delta_interval.low * 100:+.1f} to"
        f" {c.delta_interval.high * 100:+.1f}; McNemar p = {c.p_value:.3g})",
        f"  {c.detectable}",
    ]
    s = c.serving
    if as_served and s is not None:
        lines += [
            f"  as served: {s.status}; {s.baseline_accuracy.rate:.1%} ->"
            f" {s.candidate_accuracy.rate:.1%} ({s.delta * 100:+.1f} points,"
            f" McNemar p = {s.p_value:.3g}); serving: {s.change_text}",
            *(f"  {line}" for line in s.flip_lines()),
        ]
    if c.broken:
        shown = ", ".join(f.case_id for f in c.broken[:FAILURES_SHOWN])
        more = (
            f" and {len(c.broken) - FAILURES_SHOWN:,} more"
            if len(c.broken) > FAILURES_SHOWN
            else ""
        )
        lines.append(f"  broken: {shown}{more}")
    return "\n".join(lines)


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
    """Fail the test (in its call phase) below the bound or behind the baseline."""
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
