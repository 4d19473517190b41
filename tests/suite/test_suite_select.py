"""Selecting cases: filters, deterministic samples, limits, and the option checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolgrade import ConfigError, Selection, Suite, load_suite, parse_suite, select_cases

DATA = Path(__file__).parents[1] / "data" / "suite"


@pytest.fixture(scope="module")
def builtin() -> Suite:
    return load_suite("coding-agent")


def _ids(suite: Suite) -> list[str]:
    return [c.id for c in suite.cases]


def test_select_empty_selection_returns_suite_unchanged(builtin: Suite) -> None:
    assert select_cases(builtin, Selection()) is builtin
    assert Selection().is_everything


def test_select_tags_any_versus_all(builtin: Suite) -> None:
    any_ = select_cases(builtin, Selection(tags=("git", "parallel")))
    all_ = select_cases(builtin, Selection(tags=("git", "parallel"), all_tags=True))
    assert all(set(c.tags) & {"git", "parallel"} for c in any_.cases)
    assert all({"git", "parallel"} <= set(c.tags) for c in all_.cases)
    assert 0 < len(all_.cases) < len(any_.cases)


def test_select_category_and_difficulty_combine_with_and(builtin: Suite) -> None:
    picked = select_cases(builtin, Selection(categories=("edge",), difficulties=("hard",)))
    assert picked.cases and all(
        c.category == "edge" and c.difficulty == "hard" for c in picked.cases
    )


def test_select_id_globs_case_sensitive(builtin: Suite) -> None:
    assert _ids(select_cases(builtin, Selection(ids=("TC-00[1-3]", "TC-085")))) == [
        "TC-001",
        "TC-002",
        "TC-003",
        "TC-085",
    ]
    assert select_cases(builtin, Selection(ids=("tc-001",))).cases == ()


def test_select_keeps_tools_and_defaults(builtin: Suite) -> None:
    picked = select_cases(builtin, Selection(limit=1))
    assert picked.tools == builtin.tools and picked.defaults == builtin.defaults
    assert picked.content_hash != builtin.content_hash


def test_select_sample_same_seed_same_cases(builtin: Suite) -> None:
    first = select_cases(builtin, Selection(sample=10, seed=42))
    again = select_cases(load_suite("coding-agent"), Selection(sample=10, seed=42))
    assert _ids(first) == _ids(again) and len(first.cases) == 10


def test_select_sample_different_seeds_differ(builtin: Suite) -> None:
    samples = {tuple(_ids(select_cases(builtin, Selection(sample=10, seed=s)))) for s in range(5)}
    assert len(samples) == 5


def test_select_sample_keeps_suite_order(builtin: Suite) -> None:
    order = {c.id: i for i, c in enumerate(builtin.cases)}
    picked = _ids(select_cases(builtin, Selection(sample=15, seed=3)))
    assert picked == sorted(picked, key=order.__getitem__)


def test_select_sample_independent_of_file_order(builtin: Suite) -> None:
    data = builtin.to_dict()
    data["cases"] = list(reversed(data["cases"]))  # type: ignore[arg-type]
    shuffled = parse_suite(json.dumps(data))
    a = set(_ids(select_cases(builtin, Selection(sample=12, seed=9))))
    b = set(_ids(select_cases(shuffled, Selection(sample=12, seed=9))))
    assert a == b


def test_select_sample_stable_when_a_case_is_added(builtin: Suite) -> None:
    before = set(_ids(select_cases(builtin, Selection(sample=20, seed=1))))
    data = builtin.to_dict()
    data["cases"].append({"id": "TC-999", "prompt": "Hi!", "expected": None})  # type: ignore[union-attr]
    grown = parse_suite(json.dumps(data))
    after = set(_ids(select_cases(grown, Selection(sample=20, seed=1))))
    assert len(before ^ after) <= 2


def test_select_sample_larger_than_pool_keeps_all(builtin: Suite) -> None:
    picked = select_cases(builtin, Selection(categories=("edge",), sample=1000))
    assert len(picked.cases) == sum(c.category == "edge" for c in builtin.cases)


def test_select_sample_then_limit(builtin: Suite) -> None:
    sampled = _ids(select_cases(builtin, Selection(sample=10, seed=5)))
    limited = _ids(select_cases(builtin, Selection(sample=10, seed=5, limit=3)))
    assert limited == sampled[:3]


def test_select_no_match_gives_empty_suite(builtin: Suite) -> None:
    assert select_cases(builtin, Selection(tags=("no-such-tag",))).cases == ()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"difficulties": ("impossible",)}, "unknown difficulty 'impossible'"),
        ({"sample": 0}, "--sample must be at least 1, got 0"),
        ({"limit": -2}, "--limit must be at least 1, got -2"),
    ],
)
def test_selection_invalid_values_raise_config_error(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        Selection(**kwargs)  # type: ignore[arg-type]


def test_selection_to_dict_is_json() -> None:
    sel = Selection(tags=("a",), ids=("X-*",), sample=3, seed=7)
    assert json.loads(json.dumps(sel.to_dict())) == {
        "tags": ["a"],
        "all_tags": False,
        "categories": [],
        "difficulties": [],
        "ids": ["X-*"],
        "sample": 3,
        "seed": 7,
        "limit": None,
    }
