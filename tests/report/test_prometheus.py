"""The Prometheus report: parseable text format, the documented metric names."""

from __future__ import annotations

import math

from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

import toolgrade


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_prometheus_exposes_accuracy_categories_and_failures(run: toolgrade.RunResult) -> None:
    samples = _samples(toolgrade.render_report(run, "prometheus"))
    base = (("model", "ollama/qwen3:8b-q4_K_M"), ("suite", "coding-agent"))
    assert math.isclose(samples["toolgrade_accuracy", base], 3 / 11)
    assert samples["toolgrade_failures", base] == 8
    edge = (("category", "edge"), *base)
    assert math.isclose(samples["toolgrade_category_accuracy", edge], 0.2)
    assert samples["toolgrade_category_cases", edge] == 5
    timeout = (*base, ("status", "timeout"))
    assert samples["toolgrade_cases", tuple(sorted(timeout))] == 1


def test_prometheus_every_metric_is_a_gauge_named_without_total(
    run: toolgrade.RunResult, server_run: toolgrade.RunResult
) -> None:
    # Each file describes one run: every value, failures included, can go down next
    # run, which a counter must never do (and `_total` is the counter suffix).
    for each in (run, server_run):
        text = toolgrade.render_report(each, "prometheus")
        families = list(text_string_to_metric_families(text))
        assert {f.type for f in families} == {"gauge"}
        assert not any(s.name.endswith(("_total", "_created")) for f in families for s in f.samples)
    assert "# TYPE toolgrade_failures gauge" in text


def test_prometheus_uses_private_registry(run: toolgrade.RunResult) -> None:
    before = {m.name for m in REGISTRY.collect()}
    toolgrade.render_report(run, "prometheus")
    toolgrade.render_report(run, "prometheus")
    assert {m.name for m in REGISTRY.collect()} == before
    assert not any(name.startswith("toolgrade") for name in before)


def test_prometheus_empty_run_reports_nan_accuracy(run: toolgrade.RunResult) -> None:
    samples = _samples(
        toolgrade.render_report(run.model_copy(update={"results": ()}), "prometheus")
    )
    base = (("model", "ollama/qwen3:8b-q4_K_M"), ("suite", "coding-agent"))
    assert math.isnan(samples["toolgrade_accuracy", base])
    assert samples["toolgrade_failures", base] == 0


def test_prometheus_baseline_gauges(
    run: toolgrade.RunResult, comparison: toolgrade.Comparison
) -> None:
    samples = _samples(toolgrade.render_report(run, "prometheus", comparison=comparison))
    base = (("model", run.model), ("suite", run.suite_name))
    assert samples[("toolgrade_baseline_delta", base)] == comparison.delta
    assert math.isnan(samples[("toolgrade_baseline_mde", base)])
    verdicts = {
        dict(labels)["verdict"]: value
        for (name, labels), value in samples.items()
        if name == "toolgrade_baseline_verdict"
    }
    assert verdicts == {"regression": 0, "improvement": 0, "equivalent": 0, "inconclusive": 1}
    assert not any(
        name.startswith("toolgrade_baseline")
        for name, _ in _samples(toolgrade.render_report(run, "prometheus"))
    )
