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
