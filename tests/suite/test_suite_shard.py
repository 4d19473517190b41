"""Shards of a selection: a stable partition by case id, recorded so that shards merge."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolgrade import ConfigError, Selection, Suite, load_suite, select_cases
from toolgrade.suite import parse_shard
from toolgrade.suite._shard import (
    decode_positions,
    encode_positions,
    position_count,
    shard_of,
)

IDS = [f"case-{i:04d}" for i in range(2000)]


def _suite(ids: list[str], **extra: Any) -> Suite:
    return Suite.model_validate(
        {
            "name": "shards",
            "cases": [
                {
                    "id": i,
                    "prompt": f"p {i}",
                    "expected": None,
                    "tags": ["odd" if n % 2 else "even"],
                }
                for n, i in enumerate(ids)
            ],
            **extra,
        }
    )


@pytest.fixture(scope="module")
def big() -> Suite:
    return _suite(IDS)


@pytest.mark.parametrize("count", range(1, 9))
def test_shard_partition_every_case_in_exactly_one_shard(big: Suite, count: int) -> None:
    shards = [select_cases(big, Selection(shard=(i, count))) for i in range(1, count + 1)]
    ids = [c.id for s in shards for c in s.cases]
    assert sorted(ids) == sorted(IDS)
    assert len(ids) == len(set(ids))
    for shard in shards:  # each in suite order
        got = [c.id for c in shard.cases]
        assert got == sorted(got)
    # The hash spreads 2,000 ids evenly: each shard within 15% of its share.
    share = len(IDS) / count
    assert all(abs(len(s.cases) - share) <= 0.15 * share for s in shards)


@pytest.mark.parametrize("count", [2, 3, 4, 7])
def test_shard_adding_a_case_moves_no_other_case(big: Suite, count: int) -> None:
    grown = _suite([*IDS[:1000], "new-case", *IDS[1000:]])
    for i in range(1, count + 1):
        before = {c.id for c in select_cases(big, Selection(shard=(i, count))).cases}
        after = {c.id for c in select_cases(grown, Selection(shard=(i, count))).cases}
        assert after - {"new-case"} == before


@pytest.mark.parametrize(
    ("case_id", "expected"),
    [
        ("TC-001", [1, 2, 3, 4]),
        ("TC-002", [2, 3, 4, 4]),
        ("case-0", [2, 2, 4, 1]),
        ("é-ünïcode", [2, 2, 2, 2]),
        ("", [1, 2, 1, 2]),
    ],
)
def test_shard_of_values_are_pinned(case_id: str, expected: list[int]) -> None:
    # Pinned: a change here moves cases between shards of runs already made.
    assert [shard_of(case_id, n) for n in (2, 3, 4, 7)] == expected


def test_shard_of_is_sha256_prefix_big_endian() -> None:
    value = int.from_bytes(hashlib.sha256(b"TC-001").digest()[:8], "big")
    assert value == 17311469058683747650
    assert shard_of("TC-001", 1000) == value % 1000 + 1


def test_shard_applies_after_filters_sample_and_limit(big: Suite) -> None:
    base = Selection(tags=("odd",), sample=300, seed=3, limit=200)
    unsharded = [c.id for c in select_cases(big, base).cases]
    parts = [
        [c.id for c in select_cases(big, Selection(**{**_fields(base), "shard": (i, 3)})).cases]
        for i in (1, 2, 3)
    ]
    assert sorted(c for part in parts for c in part) == sorted(unsharded)
    assert all(shard_of(c, 3) == i + 1 for i, part in enumerate(parts) for c in part)


def _fields(selection: Selection) -> dict[str, Any]:
    return {
        "tags": selection.tags,
        "sample": selection.sample,
        "seed": selection.seed,
        "limit": selection.limit,
    }


@pytest.mark.parametrize(
    ("text", "expected"), [("2/4", (2, 4)), (" 1 / 1 ", (1, 1)), ("8/8", (8, 8))]
)
def test_parse_shard_reads_i_of_n(text: str, expected: tuple[int, int]) -> None:
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["", "2", "2/", "/4", "0/4", "5/4", "1/0", "-1/4", "a/b", "2/4/8"])
def test_parse_shard_bad_text_raises_config_error(text: str) -> None:
    with pytest.raises(ConfigError, match="--shard must be I/N"):
        parse_shard(text)


@pytest.mark.parametrize("shard", [(0, 4), (5, 4), (1, 0), (True, 2), (1,), ("1", "2")])
def test_selection_bad_shard_raises_config_error(shard: Any) -> None:
    with pytest.raises(ConfigError):
        Selection(shard=shard)


def test_selection_round_trip_with_and_without_shard() -> None:
    plain = Selection(tags=("git",), sample=5, seed=2, limit=3)
    assert "shard" not in plain.to_dict()  # unsharded runs record what they always did
    assert Selection.from_dict(plain.to_dict()) == plain
    sharded = Selection(categories=("edge",), difficulties=("hard",), shard=(3, 4))
    assert sharded.to_dict()["shard"] == "3/4"
    assert Selection.from_dict(sharded.to_dict()) == sharded
    assert not sharded.is_everything
    assert sharded.unsharded == Selection(categories=("edge",), difficulties=("hard",))


def test_selection_from_dict_bad_shard_raises_config_error() -> None:
    with pytest.raises(ConfigError):
        Selection.from_dict({"shard": "9/4"})
    with pytest.raises(ConfigError):
        Selection.from_dict({"shard": [2, 4]})


def test_for_run_records_what_merge_needs() -> None:
    suite = load_suite("coding-agent")
    unsharded = select_cases(suite, Selection(categories=("edge", "simple")))
    total = 0
    positions: list[int] = []
    for i in (1, 2, 3):
        selection = Selection(categories=("edge", "simple"), shard=(i, 3))
        record = selection.for_run(suite)
        assert record["shard"] == f"{i}/3"
        assert record["unsharded_hash"] == unsharded.content_hash
        assert record["unsharded_cases"] == len(unsharded.cases)
        mine = list(decode_positions(str(record["unsharded_positions"]), len(unsharded.cases)))
        shard_ids = [c.id for c in select_cases(suite, selection).cases]
        assert [unsharded.cases[p].id for p in mine] == shard_ids
        positions += mine
        total += len(mine)
    assert sorted(positions) == list(range(len(unsharded.cases)))
    plain = Selection(limit=3)
    assert plain.for_run(suite) == plain.to_dict()


@given(st.sets(st.integers(min_value=0, max_value=300)))
def test_positions_encode_decode_round_trip(values: set[int]) -> None:
    ordered = sorted(values)
    text = encode_positions(ordered)
    assert list(decode_positions(text, 301)) == ordered
    assert position_count(text, 301) == len(ordered)


@pytest.mark.parametrize(
    "text", ["5-3", "1,1", "3,2", "0-10", "x", "1-", "-1", "1,,2", "99999999999999"]
)
def test_positions_unreadable_or_out_of_range_raise(text: str) -> None:
    with pytest.raises(ConfigError):
        position_count(text, 10)
