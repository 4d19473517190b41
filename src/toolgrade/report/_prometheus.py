"""The Prometheus report: a text-format file for node_exporter's textfile collector.

The metrics are built in a private `CollectorRegistry`, never the process-wide default
one, so rendering a report cannot clash with (or leak into) an application's own metrics.

Every metric is a gauge: each file describes one run, so each value (the number of
failures included) can go down in the next run's file. A counter must never decrease,
and `rate()` over one would read a better run as a counter reset.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from toolgrade.metrics import Breakdown, RunMetrics
from toolgrade.report._view import ReportInput

__all__ = ["render_prometheus"]


class _Families:
    """A collector that yields metric families built in advance."""

    def __init__(self, families: Sequence[Metric]) -> None:
        self._families = tuple(families)

    def collect(self) -> Iterator[Metric]:
        return iter(self._families)

    def describe(self) -> Iterator[Metric]:
        return iter(self._families)


def render_prometheus(data: ReportInput) -> str:
    """Render the run's metrics in the Prometheus text exposition format."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(_families(data)))
    text: bytes = generate_latest(registry)
    return text.decode("utf-8")


def _gauge(name: str, doc: str, value: float | None, base: list[str]) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, doc, labels=["suite", "model"])
    family.add_metric(base, math.nan if value is None else value)
    return family


def _families(data: ReportInput) -> list[Metric]:
    m = data.metrics
    run = data.run
    base = [run.suite_name, run.model]
    accuracy = m.accuracy.rate if m.accuracy.n else None
    low = m.accuracy.interval.low if m.accuracy.n else None
    high = m.accuracy.interval.high if m.accuracy.n else None
    families: list[Metric] = [
        _gauge("toolgrade_accuracy", "Correct cases / scored cases (0-1).", accuracy, base),
        _gauge("toolgrade_accuracy_ci_low", "Lower bound of the accuracy's 95% CI.", low, base),
        _gauge("toolgrade_accuracy_ci_high", "Upper bound of the accuracy's 95% CI.", high, base),
        _gauge("toolgrade_mean_score", "Mean rubric score (0-1).", m.mean_score, base),
        _gauge("toolgrade_f1", "Call-level F1 (0-1).", m.f1, base),
        _gauge("toolgrade_scored_cases", "Cases that count towards accuracy.", m.scored, base),
        _gauge("toolgrade_latency_p50_seconds", "Median answer time.", _s(m.latency_p50_ms), base),
        _gauge(
            "toolgrade_latency_p95_seconds", "95th pct answer time.", _s(m.latency_p95_ms), base
        ),
        _gauge(
            "toolgrade_detectable_change",
            "Smallest accuracy change (0-1) a comparison of this run detects (power 0.8,"
            " alpha 0.05); NaN when none is detected reliably.",
            data.detectable.mde if data.detectable is not None else None,
            base,
        ),
    ]
    families.append(
        _gauge(
            "toolgrade_cut_off_cases",
            "Answers the server stopped at the token limit (finish_reason length).",
            data.cut_off,
            base,
        )
    )
    if data.ttft_ms is not None:  # only streamed answers have a time to first token
        families += [
            _gauge(
                "toolgrade_ttft_p50_seconds",
                "Median time to first token.",
                _s(data.ttft_ms[0]),
                base,
            ),
            _gauge(
                "toolgrade_ttft_p95_seconds",
                "95th pct time to first token.",
                _s(data.ttft_ms[1]),
                base,
            ),
        ]
    families.append(
        _gauge("toolgrade_failures", "Scored cases that did not pass (this run).", m.failed, base)
    )
    statuses = GaugeMetricFamily(
        "toolgrade_cases", "Cases by status.", labels=["suite", "model", "status"]
    )
    for status, count in sorted(m.status_counts.items()):
        statuses.add_metric([*base, status], count)
    families.append(statuses)
    families += _serving(m, base)
    families += _decisions(m, base)
    families += _noise(m, base)
    families += _breakdown("category", m.by_category, base)
    families += _breakdown("tool", m.by_tool, base)
    families += _baseline(data, base)
    when = run.finished_at or run.started_at
    families.append(
        _gauge("toolgrade_run_timestamp_seconds", "When the run ended.", when.timestamp(), base)
    )
    info = GaugeMetricFamily(
        "toolgrade_run_info",
        "The run these metrics come from (value 1).",
        labels=["suite", "model", "run_id", "suite_version", "suite_hash"],
    )
    info.add_metric([*base, run.run_id, run.suite_version, run.suite_hash], 1)
    families.append(info)
    return families


_VERDICTS = ("regression", "improvement", "equivalent", "inconclusive")


def _baseline(data: ReportInput, base: list[str]) -> list[Metric]:
    """The comparison with a baseline (none without one): delta, p-value, MDE, verdict."""
    c = data.comparison
    if c is None:
        return []
    verdict = GaugeMetricFamily(
        "toolgrade_baseline_verdict",
        "The verdict against the baseline (1 for the verdict given, 0 for the others).",
        labels=["suite", "model", "verdict"],
    )
    for name in _VERDICTS:
        verdict.add_metric([*base, name], 1.0 if c.verdict == name else 0.0)
    return [
        _gauge("toolgrade_baseline_delta", "Accuracy minus the baseline's (-1..1).", c.delta, base),
        _gauge("toolgrade_baseline_p_value", "McNemar's exact p-value.", c.p_value, base),
        _gauge(
            "toolgrade_baseline_mde",
            "Smallest change detected at the comparison's power (0-1; NaN: none).",
            c.mde,
            base,
        ),
        verdict,
    ]


def _serving(m: RunMetrics, base: list[str]) -> list[Metric]:
    """The accuracy as served with its interval, and the results of every serving class."""
    s = m.serving
    if s is None:
        return []
    served = s.as_served
    known = served.n > 0
    results = GaugeMetricFamily(
        "toolgrade_serving_results",
        "Results by serving class: how the answer reached the client (docs/serving.md).",
        labels=["suite", "model", "class"],
    )
    for kind, count in s.counts.items():
        results.add_metric([*base, kind], count)
    return [
        _gauge(
            "toolgrade_accuracy_as_served",
            "Correct cases whose calls all came as tool_calls / scored cases (0-1).",
            served.rate if known else None,
            base,
        ),
        _gauge(
            "toolgrade_accuracy_as_served_ci_low",
            "Lower bound of the accuracy as served's 95% CI.",
            served.interval.low if known else None,
            base,
        ),
        _gauge(
            "toolgrade_accuracy_as_served_ci_high",
            "Upper bound of the accuracy as served's 95% CI.",
            served.interval.high if known else None,
            base,
        ),
        results,
    ]


def _decisions(m: RunMetrics, base: list[str]) -> list[Metric]:
    """The decisions section (only when the suite states outcomes): the matrix and rates."""
    d = m.decisions
    if d is None:
        return []
    matrix = GaugeMetricFamily(
        "toolgrade_decisions",
        "Items by expected outcome and what the model did (docs/decisions.md).",
        labels=["suite", "model", "expected", "did"],
    )
    for expected, row in d.matrix.items():
        for did, count in row.items():
            matrix.add_metric([*base, expected, did], count)
    rates = (
        (
            "toolgrade_decision_accuracy",
            "Classified items that did what they expected (0-1).",
            d.accuracy,
        ),
        ("toolgrade_call_rate", "Items that called a tool (0-1).", d.call_rate),
        (
            "toolgrade_tool_hallucination_rate",
            "Items that called where no call was right (0-1).",
            d.hallucination,
        ),
    )
    gauges = [_gauge(name, doc, r.rate if r.n else None, base) for name, doc, r in rates]
    return [matrix, *gauges]


def _noise(m: RunMetrics, base: list[str]) -> list[Metric]:
    """With repeats, the noise floor (none without).

    The share of cases that flipped between tries, their count, the flip rate, and the
    temperature-0 mark.
    """
    noise = m.noise
    if noise is None:
        return []
    return [
        _gauge(
            "toolgrade_noise_floor",
            "Share of cases whose tries gave different verdicts with nothing changed (0-1).",
            noise.share,
            base,
        ),
        _gauge(
            "toolgrade_noise_flipped_cases",
            "Cases whose tries disagreed.",
            len(noise.flipped),
            base,
        ),
        _gauge(
            "toolgrade_flip_rate",
            "Chance that two tries of a case disagree, averaged over the cases (0-1).",
            noise.flip_rate,
            base,
        ),
        _gauge(
            "toolgrade_not_deterministic",
            "1 when the run was made at temperature 0 and cases still flipped.",
            float(noise.not_deterministic),
            base,
        ),
    ]


def _breakdown(kind: str, rows: Sequence[Breakdown], base: list[str]) -> list[Metric]:
    """Per row: accuracy, its 95% interval, the scored cases, and the too-few-to-tell mark."""
    labels = ["suite", "model", kind]
    accuracy = GaugeMetricFamily(
        f"toolgrade_{kind}_accuracy", f"Accuracy per {kind} (0-1).", labels=labels
    )
    low = GaugeMetricFamily(
        f"toolgrade_{kind}_accuracy_ci_low",
        f"Lower bound of the accuracy's 95% CI per {kind}.",
        labels=labels,
    )
    high = GaugeMetricFamily(
        f"toolgrade_{kind}_accuracy_ci_high",
        f"Upper bound of the accuracy's 95% CI per {kind}.",
        labels=labels,
    )
    cases = GaugeMetricFamily(f"toolgrade_{kind}_cases", f"Scored cases per {kind}.", labels=labels)
    too_few = GaugeMetricFamily(
        f"toolgrade_{kind}_too_few_to_tell",
        f"1 when the {kind}'s interval is wider than 40 points (too few cases to tell).",
        labels=labels,
    )
    for b in rows:
        key = [*base, b.key]
        accuracy.add_metric(key, b.rate.rate if b.rate.n else math.nan)
        low.add_metric(key, b.rate.interval.low if b.rate.n else math.nan)
        high.add_metric(key, b.rate.interval.high if b.rate.n else math.nan)
        cases.add_metric(key, b.rate.n)
        too_few.add_metric(key, float(b.too_few_to_tell))
    return [accuracy, low, high, cases, too_few]


def _s(ms: float | None) -> float | None:
    return None if ms is None else ms / 1000
