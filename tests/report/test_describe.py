"""describe_failure: one line per failure, table-driven from tests/data/report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolgrade
from toolgrade.report._describe import argument_name

CASES = json.loads(
    (
        Path(__file__).resolve().parent.parent / "data" / "report" / "describe_failure.json"
    ).read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_describe_failure_table_gives_expected_sentence(case: dict[str, object]) -> None:
    result = toolgrade.CaseResult.model_validate(case["result"])
    assert toolgrade.describe_failure(result) == case["expected"]


def test_describe_failure_covers_every_status() -> None:
    covered = {c["result"]["status"] for c in CASES}
    assert covered == {s.value for s in toolgrade.Status}


@pytest.mark.parametrize(
    ("path", "name"),
    [("$.pattern", "pattern"), ("$.a.b", "a.b"), ("$[0]", "[0]"), ("$", "$"), ("x", "x")],
)
def test_argument_name_strips_root(path: str, name: str) -> None:
    assert argument_name(path) == name
