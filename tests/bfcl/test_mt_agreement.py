"""toolgrade's `bfcl` profile on conversations against bfcl-eval's multi-turn checker.

The corpus (tests/data/bfcl/multi_turn_corpus.jsonl.gz, rebuilt byte for byte by `make
bfcl-verdicts`) holds ground-truth replays and perturbations of all 800 multi-turn
entries with the verdict bfcl-eval 2026.3.23 gave each. Judged through
`judge_conversation(profile="bfcl")` on the imported suite, at least 99.9% must get
BFCL's verdict and error type. The default profile's verdicts are reported beside,
counted by variant and cause.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

pytest.importorskip("bfcl_eval.eval_checker.multi_turn_eval.func_source_code.math_api")

import bfcl_mt_agreement as corpus

pytestmark = pytest.mark.slow  # the agreement corpus: `make test` runs it

VARIANTS = {
    "gt_fc",
    "gt_prompt",
    "wrong_value",
    "missing_call",
    "duplicated_call",
    "extra_read",
    "swapped_turns",
    "empty_turn",
    "text_steps",
    "unknown_name",
    "nested_call",
    "name_in_string",
    "fewer_turns",
    "extra_turn",
    "inference_error",
    "split_steps",
    "positional",
    "arithmetic",
    "bad_json",
    "early_calls",
}
ERROR_TYPES = {
    "",
    "multi_turn:inference_error",
    "multi_turn:force_terminated",
    "multi_turn:empty_turn_model_response",
    "multi_turn:instance_state_mismatch",
    "multi_turn:execution_response_mismatch",
}


@cache
def _items() -> tuple[corpus.Item, ...]:
    return tuple(corpus.load_items())


def test_mt_corpus_covers_every_entry_variant_and_error_type() -> None:
    items = _items()
    assert len({i.id for i in items}) == 800
    assert {i.variant for i in items} == VARIANTS
    assert {i.bfcl_error for i in items} == ERROR_TYPES
    assert {i.style for i in items} == {"fc", "prompt"}
    truths = [i for i in items if i.variant in ("gt_fc", "gt_prompt")]
    assert len(truths) == 1600
    assert all(i.bfcl_valid for i in truths)


def test_mt_bfcl_profile_agrees_with_bfcl_checker(report: list[str]) -> None:
    result = corpus.agreement(list(_items()), "bfcl")
    report.append(result.summary())
    report.extend(f"  disagreement: {line}" for line in result.disagreements)
    print(result.summary())
    for line in result.disagreements:
        print("  ", line)
    assert result.total == len(_items())
    assert result.rate >= 0.999, "\n".join([result.summary(), *result.disagreements])


def test_mt_default_profile_agreement_is_reported(report: list[str]) -> None:
    result = corpus.agreement(list(_items()), "default")
    report.append(result.summary() + "; the differences (variant: BFCL, toolgrade):")
    for cause, count in result.by_cause.most_common():
        report.append(f"  {count:4d}  {cause}")
    print("\n".join(report[-len(result.by_cause) - 1 :]))
    # Ground-truth replays pass both ways; the default profile differs elsewhere by design.
    assert not any(c.startswith(("gt_fc", "gt_prompt")) for c in result.by_cause)
    assert 0.5 < result.rate < 1.0


def test_mt_profile_verdict_carries_bfcl_failure() -> None:
    item = next(
        i
        for i in _items()
        if i.bfcl_error == "multi_turn:instance_state_mismatch" and i.variant == "missing_call"
    )
    verdict = corpus.judge_item(item, "bfcl")
    assert not isinstance(verdict, corpus.MultiTurnCheck)
    first = verdict.record.first_failure
    assert first is not None
    assert verdict.status.value == "state_mismatch" and verdict.score == 0.0
    assert first.check == "bfcl"
    assert first.message.startswith("multi_turn:instance_state_mismatch: Model instance for ")
    checks = {c.name: c for c in verdict.record.checks}
    assert checks["bfcl"].deciding and not checks["bfcl"].passed
    assert not checks["turns"].deciding
    assert len(verdict.record.turns) == len(item.result)


def test_mt_status_mapping_follows_error_types() -> None:
    wanted = {
        "": "correct",
        "multi_turn:inference_error": "error",
        "multi_turn:force_terminated": "step_limit",
        "multi_turn:empty_turn_model_response": "missed_call",
        "multi_turn:instance_state_mismatch": "state_mismatch",
        "multi_turn:execution_response_mismatch": "missed_call",
    }
    seen: Counter[str] = Counter()
    for item in _items():
        if seen[item.bfcl_error] >= 3 or item.variant == "extra_turn":
            continue
        verdict = corpus.judge_item(item, "bfcl")
        assert not isinstance(verdict, corpus.MultiTurnCheck)
        assert verdict.status.value == wanted[item.bfcl_error], item
        seen[item.bfcl_error] += 1
    assert set(seen) == set(wanted)
