"""The recorded real-model runs compared: native vs prompt mode cannot be told apart.

Qwen2.5-Coder 0.5B answered the built-in suite's 85 cases in native and in prompt mode
(tests/data/real). Prompt mode passed 5 more cases (8 fixed, 3 broken): +5.9 points with
a 95% interval from -1.7 to +13.5. That is neither a significant change nor one shown to
stay within 2 points: the suite is too small to tell, and the comparison says so.
"""

from __future__ import annotations

import pytest

import toolgrade
from runner.real_recordings import replayed
from toolgrade.cli._compare_text import format_comparison

QWEN = "qwen2.5-coder-0.5b"


@pytest.fixture(scope="module")
def comparison() -> toolgrade.Comparison:
    return toolgrade.compare_runs(replayed(QWEN, "native"), replayed(QWEN, "prompt"))


def test_native_vs_prompt_is_inconclusive(comparison: toolgrade.Comparison) -> None:
    assert (comparison.shared_cases, len(comparison.fixed), len(comparison.broken)) == (85, 8, 3)
    assert comparison.delta == pytest.approx(5 / 85)
    assert comparison.p_value == pytest.approx(0.2266, abs=1e-4)
    assert comparison.verdict == "inconclusive"
    assert comparison.mde == pytest.approx(0.109, abs=1e-3)
    assert comparison.cases_to_tell == 312


def test_native_vs_prompt_text_prints_the_verdict_and_the_mde(
    comparison: toolgrade.Comparison,
) -> None:
    text = format_comparison(comparison)
    assert (
        "Status: Inconclusive: the suite cannot tell at this size; about 312 paired cases would"
        in text
    )
    assert "This suite can detect changes of about 10.9 points" in text
    assert "11 of 85 cases flipped" in text
    assert "within acceptable variance" not in text.lower()


def test_native_vs_prompt_as_served_explains_the_fixed_cases(
    comparison: toolgrade.Comparison,
) -> None:
    # Native mode on llama-cpp-python left the calls in the text: 6/85 as served against
    # 23/85 as the model's. Prompt mode reads the text by design, so as served it is 28/85.
    serving = comparison.serving
    assert serving is not None
    assert serving.changes == ("mode native → prompt",)
    assert (serving.baseline_accuracy.passed, serving.candidate_accuracy.passed) == (6, 28)
    assert serving.lost == (17, 0)
    assert serving.verdict == "improvement"
    assert comparison.verdict == "inconclusive"  # the model's own change cannot be told
    fixed = {g.kind: (len(g.flips), g.server, g.model) for g in serving.fixed_as_served}
    # 16 cases the model already got right in native mode: only their delivery was fixed.
    assert fixed == {"calls_in_text": (23, 16, 7), "text_only": (1, 0, 1)}
    # The model's own fixed cases are the model's doing: its calls changed.
    assert all(g.reading == "the model's" for g in serving.fixed)
    text = format_comparison(comparison)
    assert "Serving: mode native → prompt" in text
    assert "As served, fixed 24 cases: 23 calls_in_text (TC-001, TC-002, TC-004, …)" in text
