"""Selecting a subset of a suite's cases: by tag, category, difficulty, id, sample, limit."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import get_args

from toolgrade._json import JsonObject
from toolgrade.errors import ConfigError
from toolgrade.suite._models import Difficulty
from toolgrade.suite._suite_model import AnyCase, Suite

__all__ = ["Selection", "select_cases"]

_DIFFICULTIES: tuple[str, ...] = get_args(Difficulty)


@dataclass(frozen=True, slots=True)
class Selection:
    """Which cases of a suite to run. An empty selection keeps every case.

    Filters combine with AND; the values inside one filter combine with OR (except
    tags under `all_tags`). Sampling happens after filtering, the limit last.

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

    @property
    def is_everything(self) -> bool:
        """True when the selection keeps every case of any suite."""
        return not (self.tags or self.categories or self.difficulties or self.ids) and (
            self.sample is None and self.limit is None
        )

    def matches(self, case: AnyCase) -> bool:
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
        """The selection as JSON (recorded with a run so that it can be repeated)."""
        return {
            "tags": list(self.tags),
            "all_tags": self.all_tags,
            "categories": list(self.categories),
            "difficulties": list(self.difficulties),
            "ids": list(self.ids),
            "sample": self.sample,
            "seed": self.seed,
            "limit": self.limit,
        }


def _sample_key(seed: int, case_id: str) -> bytes:
    return hashlib.sha256(f"{seed}\x00{case_id}".encode()).digest()


def _sample(cases: Iterable[AnyCase], n: int, seed: int) -> list[AnyCase]:
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
        selection: the filters, sample and limit.

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
    cases: list[AnyCase] = [c for c in suite.cases if selection.matches(c)]
    if selection.sample is not None:
        cases = _sample(cases, selection.sample, selection.seed)
    if selection.limit is not None:
        cases = cases[: selection.limit]
    return suite.model_copy(update={"cases": tuple(cases)})
