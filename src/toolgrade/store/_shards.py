"""What a shard's run records about its shard, read back and checked (`toolgrade runs merge`).

A run of `--shard I/N` records, in its selection (`Selection.for_run`): `shard` (`I/N`),
`unsharded_hash` and `unsharded_cases` (the selection without the shard: what the
merged run ran), and `unsharded_positions` (where the shard's cases stand in it). The
merge needs nothing else: not the suite file, not the run folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.errors import ConfigError
from toolgrade.results import RunResult
from toolgrade.suite import parse_shard, position_count

__all__ = [
    "SHARD_KEYS",
    "ShardRun",
    "disagreements",
    "listing",
    "read_shard",
    "unsharded_selection",
]

SHARD_KEYS = ("shard", "unsharded_hash", "unsharded_cases", "unsharded_positions")
"""The keys a shard adds to its run's selection; without them it is the unsharded one."""

_SHOWN = 10
"""Ids listed in a message before `... and N more`."""


@dataclass(frozen=True, slots=True)
class ShardRun:
    """A run that is one shard, with what its selection records about the shard."""

    run: RunResult
    """The run."""
    index: int
    """Which shard (1 to `count`)."""
    count: int
    """Of how many."""
    unsharded_hash: str
    """The `content_hash` of the selection without the shard."""
    unsharded_cases: int
    """How many cases that selection has."""
    positions: str
    """Where this shard's cases stand among them (ranges, `0-2,5`)."""
    planned: int
    """How many cases the shard has (the positions recorded)."""

    @property
    def label(self) -> str:
        """`2/4 (run 20260101T000000Z-3fa2c1)`: how messages name the shard."""
        return f"{self.index}/{self.count} (run {self.run.run_id})"

    @property
    def shard(self) -> str:
        """`2/4`."""
        return f"{self.index}/{self.count}"


def unsharded_selection(selection: Mapping[str, JsonValue]) -> JsonObject:
    """A shard's recorded selection without the shard: the merged run's selection."""
    return {k: v for k, v in selection.items() if k not in SHARD_KEYS}


def read_shard(run: RunResult) -> ShardRun | str:
    """The run as a shard, or why it is not one (a sentence naming the run)."""
    selection = run.selection
    name = f"run {run.run_id}"
    shard = selection.get("shard")
    if shard is None:
        return f"{name} is not a shard (its selection records no `shard`: it ran every case)"
    try:
        if not isinstance(shard, str):
            raise ConfigError("not I/N")
        index, count = parse_shard(shard)
    except ConfigError:
        return f"{name} records an unreadable shard {shard!r}"
    where = f"{name} (shard {index}/{count})"
    digest = selection.get("unsharded_hash")
    total = selection.get("unsharded_cases")
    positions = selection.get("unsharded_positions")
    if not (
        isinstance(digest, str)
        and isinstance(total, int)
        and not isinstance(total, bool)
        and total >= 0
        and isinstance(positions, str)
    ):
        return (
            f"{where} does not record what merging needs (unsharded_hash, unsharded_cases,"
            " unsharded_positions): run it with `toolgrade run --shard`, or record"
            " `Selection.for_run(suite)` as its selection"
        )
    try:
        planned = position_count(positions, total)
    except ConfigError as exc:
        return f"{where}: {exc.message}"
    return ShardRun(
        run=run,
        index=index,
        count=count,
        unsharded_hash=digest,
        unsharded_cases=total,
        positions=positions,
        planned=planned,
    )


def listing(ids: Iterable[str], *, limit: int = _SHOWN) -> str:
    """`a, b, c` or `a, b, ... and 8 more`."""
    items = list(ids)
    shown = ", ".join(items[:limit])
    return shown + (f", ... and {len(items) - limit} more" if len(items) > limit else "")


def _show(value: JsonValue) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def disagreements(what: str, shards: Sequence[ShardRun], values: Sequence[JsonValue]) -> list[str]:
    """One sentence when the shards' values differ: each value with the shards holding it."""
    groups: dict[str, list[str]] = {}
    for shard, value in zip(shards, values, strict=True):
        groups.setdefault(_show(value), []).append(shard.shard)
    if len(groups) < 2:
        return []
    parts = "; ".join(f"{value} ({', '.join(names)})" for value, names in groups.items())
    return [f"different {what}: {parts}"]
