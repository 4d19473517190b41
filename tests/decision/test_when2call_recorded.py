"""A real model on When2Call cases: the decision section of its run, replayed.

Qwen2.5-Coder-0.5B calls a tool for 43 of 45 cases, whether the case asks for a call, for
a missing detail or for a refusal (tests/data/real/when2call-qwen/README.md).
"""

from __future__ import annotations

from pathlib import Path

import toolgrade
from toolgrade.metrics import compute_metrics

FOLDER = Path(__file__).resolve().parent.parent / "data" / "real" / "when2call-qwen"


def test_a_small_model_calls_where_it_should_ask_or_refuse() -> None:
    suite = toolgrade.load_suite(FOLDER / "suite.json")
    run = toolgrade.run_suite(
        suite,
        f"replay/{FOLDER / 'native.jsonl'}",
        options=toolgrade.RunOptions(mode="native", warmup=False),
        progress="none",
    )
    decisions = compute_metrics(run).decisions
    assert decisions is not None
    assert decisions.matrix["call"]["call"] == 15
    assert decisions.matrix["clarify"]["call"] == 15
    refuse = decisions.matrix["refuse"]
    assert (refuse["call"], refuse["refuse"], refuse["answer"]) == (13, 1, 1)
    assert (decisions.hallucination.passed, decisions.hallucination.n) == (28, 30)
    assert decisions.abstained == 0
