"""The Prometheus report: parseable text format, the documented metric names."""

from __future__ import annotations

import math

from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

import toolscore


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_prometheus_exposes_accuracy_categories_and_failures(run: toolscore.RunResult) -> None:
    samples = _samples(toolscore.render_report(run, "prometheus"))
    base = (("model", "ollama/qwen3:8b-q4_K_M"), ("suite", "coding-agent"))
    assert math.isclose(samples["toolscore_accuracy", base], 3 / 11)
    assert samples["toolscore_failures_total", base] == 8
    edge = (("category", "edge"), *base)
    assert math.isclose(samples["toolscore_category_accuracy", edge], 0.2)
    assert samples["toolscore_category_cases", edge] == 5
    timeout = (*base, ("status", "timeout"))
    assert samples["toolscore_cases", tuple(sorted(timeout))] == 1


def test_prometheus_failures_is_a_counter_without_created_sample(
    run: toolscore.RunResult,
) -> None:
    text = toolscore.render_report(run, "prometheus")
    assert "# TYPE toolscore_failures_total counter" in text
    assert "_created" not in text


def test_prometheus_uses_private_registry(run: toolscore.RunResult) -> None:
    before = {m.name for m in REGISTRY.collect()}
    toolscore.render_report(run, "prometheus")
    toolscore.render_report(run, "prometheus")
    assert {m.name for m in REGISTRY.collect()} == before
    assert not any(name.startswith("toolscore") for name in before)


def test_prometheus_empty_run_reports_nan_accuracy(run: toolscore.RunResult) -> None:
    samples = _samples(
        toolscore.render_report(run.model_copy(update={"results": ()}), "prometheus")
    )
    base = (("model", "ollama/qwen3:8b-q4_K_M"), ("suite", "coding-agent"))
    assert math.isnan(samples["toolscore_accuracy", base])
    assert samples["toolscore_failures_total", base] == 0
