"""Selecting a suite's cases: by tag, category, difficulty, id, sample, limit and shard."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import get_args

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.errors import ConfigError
from toolgrade.suite._case import Case
from toolgrade.suite._models import Difficulty
from toolgrade.suite._shard import (
    check_shard,
    encode_positions,
    format_shard,
    parse_shard,
    shard_of,
)
from toolgrade.suite._suite_model import Suite

__all__ = ["Selection", "select_cases"]

_DIFFICULTIES: tuple[str, ...] = get_args(Difficulty)


@dataclass(frozen=True, slots=True)
class Selection:
    """Which cases of a suite to run. An empty selection keeps every case.

    Filters combine with AND; the values inside one filter combine with OR (except
    tags under `all_tags`). Sampling happens after filtering, then the limit, and the
    shard last: the shards of a selection partition exactly its cases.

    Examples:
        >>> Selection(tags=("git",), sample=5, seed=1).to_dict()["tags"]
        ['git']
    """

    tags: tuple[str, ...] = ()
    """Keep cases carrying any of these tags (all of them with `all_tags`)."""
    all_tags: bool = False
    """Require every tag in `tags` instead of any one."""
    categories: tuple[str, ...] = ()
    """Keep cases in any of these categories."""
    difficulties: tuple[str, ...] = ()
    """Keep cases of any of these difficulties (`easy`, `medium`, `hard`)."""
    ids: tuple[str, ...] = ()
    """Keep cases whose id matches any of these globs (`TC-0*`, case-sensitive)."""
    sample: int | None = None
    """Keep a deterministic pseudo-random sample of this many cases."""
    seed: int = 0
    """Seed of the sample: the same seed and suite always give the same cases."""
    limit: int | None = None
    """Keep at most this many cases (the first ones, in suite order)."""
    shard: tuple[int, int] | None = None
    """(i, n): keep the i-th of n shards (1-based, as `--shard 2/4`), the cases whose id
    hashes to i - 1 modulo n (see `toolgrade.suite._shard`)."""

    def __post_init__(self) -> None:
        bad = [d for d in self.difficulties if d not in _DIFFICULTIES]
        if bad:
            raise ConfigError(
                f"unknown difficulty {', '.join(map(repr, bad))};"
                f" choose from {', '.join(_DIFFICULTIES)}"
            )
        for name in ("sample", "limit"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ConfigError(f"--{name} must be at least 1, got {value}")
        if self.shard is not None:
            check_shard(self.shard)

    @property
    def is_everything(self) -> bool:
        """True when the selection keeps every case of any suite."""
        return not (self.tags or self.categories or self.difficulties or self.ids) and (
            self.sample is None and self.limit is None and self.shard is None
        )

    @property
    def unsharded(self) -> Selection:
        """The same selection without its shard: what the shards partition."""
        return self if self.shard is None else dataclasses.replace(self, shard=None)

    def matches(self, case: Case) -> bool:
        """True when the case passes the tag, category, difficulty and id filters."""
        if self.tags:
            have = set(case.tags)
            wanted = set(self.tags)
            if not (wanted <= have if self.all_tags else wanted & have):
                return False
        if self.categories and case.category not in self.categories:
            return False
        if self.difficulties and case.difficulty not in self.difficulties:
            return False
        return not self.ids or any(fnmatchcase(case.id, glob) for glob in self.ids)

    def to_dict(self) -> JsonObject:
        """The selection as JSON (`from_dict` reads it back).

        `shard` (`"2/4"`) is written only when set, so that the selections of unsharded
        runs read as they did before shards existed. A run records `for_run(suite)`.
        """
        recorded: JsonObject = {
            "tags": list(self.tags),
            "all_tags": self.all_tags,
            "categories": list(self.categories),
            "difficulties": list(self.difficulties),
            "ids": list(self.ids),
            "sample": self.sample,
            "seed": self.seed,
            "limit": self.limit,
        }
        if self.shard is not None:
            recorded["shard"] = format_shard(self.shard)
        return recorded

    def for_run(self, suite: Suite) -> JsonObject:
        """What a run of this selection of `suite` (the whole suite) records.

        `to_dict()`, plus for a shard what merging the shards needs without the suite
        file: `unsharded_hash` (the `content_hash` of the selection without the shard:
        the merged run's `suite_hash`), `unsharded_cases` (its number of cases) and
        `unsharded_positions` (where this shard's cases stand among them, as ranges
        such as `0-2,5`: the merged run's results come in the unsharded order).

        Args:
            suite: the whole suite, before selection.

        Returns:
            The JSON to pass as `RunOptions(selection=...)`.

        Examples:
            >>> from toolgrade import load_suite
            >>> record = Selection(shard=(2, 4)).for_run(load_suite("coding-agent"))
            >>> record["shard"], record["unsharded_cases"]
            ('2/4', 85)
        """
        recorded = self.to_dict()
        if self.shard is None:
            return recorded
        whole = select_cases(suite, self.unsharded)
        index, count = self.shard
        positions = (p for p, c in enumerate(whole.cases) if shard_of(c.id, count) == index)
        recorded["unsharded_hash"] = whole.content_hash
        recorded["unsharded_cases"] = len(whole.cases)
        recorded["unsharded_positions"] = encode_positions(positions)
        return recorded

    @classmethod
    def from_dict(cls, data: Mapping[str, JsonValue]) -> Selection:
        """Read a recorded selection (`to_dict`, `for_run`); unknown keys are ignored.

        Raises:
            ConfigError: a value is invalid (an unknown difficulty, a bad shard, ...).

        Examples:
            >>> picked = Selection.from_dict({"limit": 3, "shard": "1/2"})
            >>> picked.limit, picked.shard
            (3, (1, 2))
        """

        def strings(key: str) -> tuple[str, ...]:
            value = data.get(key)
            return tuple(str(v) for v in value) if isinstance(value, list) else ()

        def number(key: str) -> int | None:
            value = data.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        shard = data.get("shard")
        if shard is not None and not isinstance(shard, str):
            raise ConfigError(f"a recorded shard is written I/N, got {shard!r}")
        return cls(
            tags=strings("tags"),
            all_tags=data.get("all_tags") is True,
            categories=strings("categories"),
            difficulties=strings("difficulties"),
            ids=strings("ids"),
            sample=number("sample"),
            seed=number("seed") or 0,
            limit=number("limit"),
            shard=None if shard is None else parse_shard(shard),
        )


def _sample_key(seed: int, case_id: str) -> bytes:
    return hashlib.sha256(f"{seed}\x00{case_id}".encode()).digest()


def _sample(cases: Iterable[Case], n: int, seed: int) -> list[Case]:
    """Keep `n` cases ranked by a seeded hash of their id, in their original order.

    A keyed hash rather than `random.Random(seed).sample`: the choice depends only on
    the seed and each case's own id, so it is identical on every platform and Python
    version, and adding or removing one case changes the sample by at most one case.
    """
    pool = list(cases)
    if n >= len(pool):
        return pool
    chosen = {id(c) for c in sorted(pool, key=lambda c: _sample_key(seed, c.id))[:n]}
    return [c for c in pool if id(c) in chosen]


def select_cases(suite: Suite, selection: Selection) -> Suite:
    """Return the suite with only the selected cases (tools and defaults unchanged).

    Args:
        suite: the suite to select from.
        selection: the filters, sample, limit and shard.

    Returns:
        A suite holding the selected cases in their original order; it may be empty.
        Its `content_hash` covers exactly the selected cases.

    Examples:
        >>> from toolgrade import load_suite
        >>> suite = load_suite("coding-agent")
        >>> picked = select_cases(suite, Selection(categories=("edge",), sample=3, seed=7))
        >>> len(picked.cases)
        3
    """
    if selection.is_everything:
        return suite
    cases: list[Case] = [c for c in suite.cases if selection.matches(c)]
    if selection.sample is not None:
        cases = _sample(cases, selection.sample, selection.seed)
    if selection.limit is not None:
        cases = cases[: selection.limit]
    if selection.shard is not None:
        index, count = selection.shard
        cases = [c for c in cases if shard_of(c.id, count) == index]
    return suite.model_copy(update={"cases": tuple(cases)})
