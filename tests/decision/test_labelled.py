"""The classifier against replies of real models, labelled by hand.

tests/data/decisions/labelled.jsonl holds every reply of the recordings in tests/data/real
(Qwen2.5-Coder 0.5B native, prompt and conversations; Gemma 3 270M; Qwen2.5-Coder on the
`chatml-function-calling` handler), each with its label (`unclear` where a person cannot
tell). Every fourth reply is held out: the rules were written against the others. On the
replies it does not abstain on, the classifier must agree with the label on ≥ 95%, in
each part. Reproduce the numbers of docs/decisions.md with
`pytest tests/decision/test_labelled.py -s`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from toolgrade.decision import Decision, classify_reply

LABELLED = Path(__file__).resolve().parent.parent / "data" / "decisions" / "labelled.jsonl"
LABELS = ("call", "clarify", "refuse", "answer", "unclear")
DID = tuple(d.value for d in Decision)


def _rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]


def _summary(part: str, rows: list[dict[str, object]]) -> tuple[float, str]:
    table: Counter[tuple[str, str]] = Counter()
    for row in rows:
        verdict = classify_reply(
            str(row["text"]),
            calls=int(str(row["calls"])),
            parse_errors=int(str(row["parse_errors"])),
            prompt=row["prompt"] if isinstance(row["prompt"], str) else None,
        )
        table[str(row["label"]), verdict.kind.value] += 1
    labelled = sum(n for (_, did), n in table.items() if did != "unclassified")
    agreed = sum(n for (label, did), n in table.items() if label == did)
    agreement = agreed / labelled if labelled else 0.0
    lines = [
        f"{part}: {len(rows)} replies; agreement {agreed}/{labelled} = {agreement:.1%} "
        f"of the labelled; coverage {labelled}/{len(rows)} = {labelled / len(rows):.1%}",
        "label \\ did | " + " | ".join(DID),
    ]
    lines += [f"{label} | " + " | ".join(str(table[label, d]) for d in DID) for label in LABELS]
    return agreement, "\n".join(lines)


@pytest.mark.parametrize("part", ["development", "held_out"])
def test_classifier_agrees_with_hand_labels(part: str) -> None:
    rows = [r for i, r in enumerate(_rows()) if (i % 4 == 3) == (part == "held_out")]
    agreement, summary = _summary(part, rows)
    print("\n" + summary)
    assert agreement >= 0.95, summary


def test_labelled_set_is_real_replies_of_more_than_one_family() -> None:
    rows = _rows()
    assert len(rows) >= 200
    assert {str(r["label"]) for r in rows} <= set(LABELS)
    assert any("gemma3-270m" in str(r["source"]) for r in rows)
    assert any("gemma3-270m" not in str(r["source"]) for r in rows)
    assert all(Path(str(r["source"]).split("#")[0]).name.endswith(".jsonl") for r in rows)
