"""Shards: a deterministic partition of a selection's cases by a hash of each case id.

`--shard 2/4` keeps the cases whose id hashes to 1 modulo 4. The hash is the first 8
bytes of the SHA-256 of the UTF-8 id, read big-endian: it depends on the id alone, so
it is the same on every machine and Python version (unlike `hash()`, salted per
process), and adding or removing a case moves no other case to another shard.

A shard's run records where its cases stand in the unsharded selection as ranges of
0-based positions (`0-2,5,9-10`), so that merging the shards puts every result back in
the unsharded run's order without the suite file (`toolgrade runs merge`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator

from toolgrade.errors import ConfigError

__all__ = [
    "decode_positions",
    "encode_positions",
    "format_shard",
    "parse_shard",
    "position_count",
    "shard_of",
]

_SHARD = re.compile(r"\s*(\d{1,9})\s*/\s*(\d{1,9})\s*")
_RANGE = re.compile(r"(\d{1,12})(?:-(\d{1,12}))?")


def shard_of(case_id: str, count: int) -> int:
    """The shard (1 to `count`) a case id belongs to.

    Examples:
        >>> [shard_of(i, 4) for i in ("TC-001", "TC-002", "TC-003")]
        [3, 4, 2]
        >>> shard_of("anything", 1)
        1
    """
    digest = hashlib.sha256(case_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def check_shard(shard: tuple[int, int]) -> None:
    """Raise `ConfigError` unless `shard` is (i, n) with 1 <= i <= n.

    Raises:
        ConfigError: not two integers, or out of range.
    """
    ok = (
        isinstance(shard, tuple)
        and len(shard) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in shard)
    )
    if not ok:
        raise ConfigError(f"a shard is (i, n), two integers, got {shard!r}")
    index, count = shard
    if count < 1 or not 1 <= index <= count:
        raise ConfigError(
            f"--shard must be I/N with 1 <= I <= N (the I-th of N shards), got {index}/{count}"
        )


def parse_shard(text: str) -> tuple[int, int]:
    """Read `I/N` (`2/4`: the second of four shards), as `--shard` takes it.

    Raises:
        ConfigError: not `I/N`, or I outside 1..N.

    Examples:
        >>> parse_shard("2/4")
        (2, 4)
        >>> parse_shard(" 4/4 ")
        (4, 4)
    """
    found = _SHARD.fullmatch(text)
    if found is None:
        raise ConfigError(f"--shard must be I/N, e.g. 2/4 (the second of 4 shards), got {text!r}")
    shard = (int(found[1]), int(found[2]))
    check_shard(shard)
    return shard


def format_shard(shard: tuple[int, int]) -> str:
    """`(2, 4)` as `2/4`, as it is recorded with a run."""
    return f"{shard[0]}/{shard[1]}"


def encode_positions(positions: Iterable[int]) -> str:
    """Increasing positions as ranges: `[0, 1, 2, 5]` -> `0-2,5`.

    Examples:
        >>> encode_positions([0, 1, 2, 5, 9, 10])
        '0-2,5,9-10'
        >>> encode_positions([])
        ''
    """
    parts: list[str] = []
    start = end = -2
    for p in positions:
        if p == end + 1:
            end = p
            continue
        if start >= 0:
            parts.append(str(start) if start == end else f"{start}-{end}")
        start = end = p
    if start >= 0:
        parts.append(str(start) if start == end else f"{start}-{end}")
    return ",".join(parts)


def _ranges(text: str, total: int) -> list[tuple[int, int]]:
    """The ranges of `encode_positions`, checked: increasing, disjoint, below `total`."""
    ranges: list[tuple[int, int]] = []
    last = -1
    for part in text.split(",") if text else ():
        found = _RANGE.fullmatch(part)
        if found is None:
            raise ConfigError(f"unreadable shard positions {part!r}")
        low = int(found[1])
        high = int(found[2]) if found[2] is not None else low
        if not last < low <= high < total:
            raise ConfigError(
                f"shard positions {part!r} are out of order or beyond the {total} cases"
            )
        ranges.append((low, high))
        last = high
    return ranges


def position_count(text: str, total: int) -> int:
    """How many positions `text` holds, without expanding them.

    Raises:
        ConfigError: unreadable, not increasing, or a position not below `total`.
    """
    return sum(high - low + 1 for low, high in _ranges(text, total))


def decode_positions(text: str, total: int) -> Iterator[int]:
    """The positions of `encode_positions`, each below `total`.

    Raises:
        ConfigError: unreadable, not increasing, or a position not below `total` (all
            checked before the first position is given).

    Examples:
        >>> list(decode_positions("0-2,5", 6))
        [0, 1, 2, 5]
    """
    ranges = _ranges(text, total)
    return (p for low, high in ranges for p in range(low, high + 1))
