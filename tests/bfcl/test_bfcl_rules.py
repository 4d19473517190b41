"""The `bfcl` profile, rule by rule (tests/data/bfcl/rules.json; verdicts checked by BFCL).

Each row is a small BFCL entry in BFCL's own format (function docs, possible answer) and
an already-decoded model output; `make bfcl-verdicts` confirms every verdict with
bfcl-eval's checker before it rebuilds the corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolgrade.bfcl._data import BfclCategory, BfclEntry
from toolgrade.bfcl._import import entry_to_case
from toolgrade.judging._judge import judge

RULES = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "rules.json"
ROWS: list[dict[str, Any]] = json.loads(RULES.read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", ROWS, ids=[r["description"] for r in ROWS])
def test_bfcl_profile_rule_matches_bfcl_verdict(row: dict[str, Any]) -> None:
    entry = BfclEntry(
        id="rule",
        question=[[{"role": "user", "content": "?"}]],
        functions=tuple(row["functions"]),
        answer=None if row["answer"] is None else tuple(row["answer"]),
    )
    case = entry_to_case(entry, BfclCategory(row["category"]))
    result = judge(case, row["output"], tools=case.tool_definitions, profile="bfcl")
    assert (result.status.value == "correct") is row["valid"], result.details
    assert result.score == (1.0 if row["valid"] else 0.0)


def test_bfcl_profile_failure_names_bfcl_error_type() -> None:
    row = next(r for r in ROWS if r["description"] == "required argument missing")
    entry = BfclEntry(
        "r", [[{"role": "user", "content": "?"}]], tuple(row["functions"]), tuple(row["answer"])
    )
    case = entry_to_case(entry, BfclCategory.SIMPLE_PYTHON)
    result = judge(case, row["output"], tools=case.tool_definitions, profile="bfcl")
    assert result.status.value == "wrong_args"
    assert result.details[0].path == "$.height"
    assert result.details[0].reason == "missing"
    assert "missing_required" in result.details[0].message


def test_bfcl_profile_parse_error_fails_but_passes_irrelevance() -> None:
    from toolgrade.extract import Extraction, ExtractionProblem

    broken = Extraction(errors=(ExtractionProblem(reason="parse_error", message="bad"),))
    rows = {r["description"]: r for r in ROWS}
    for description, status in (
        ("ground truth passes", "parse_error"),
        ("irrelevance: no call passes", "correct"),
    ):
        row = rows[description]
        answer = None if row["answer"] is None else tuple(row["answer"])
        entry = BfclEntry(
            "r", [[{"role": "user", "content": "?"}]], tuple(row["functions"]), answer
        )
        case = entry_to_case(entry, BfclCategory(row["category"]))
        assert (
            judge(case, broken, tools=case.tool_definitions, profile="bfcl").status.value == status
        )
