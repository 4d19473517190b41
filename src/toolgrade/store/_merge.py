"""Merging the shards of a run (`--shard I/N`) into the run an unsharded run would be.

The merged run has the unsharded selection and its suite hash, every result once, in
the order an unsharded run keeps them (suite order, then repetition), the settings and
server identity the shards share, and a run id of its own. Nothing else marks it as
merged, so that every report and `compare` read it exactly as the unsharded run: run
id, start and finish time aside, they are the same.

Shards from anywhere merge: run ids and tags from the history, run folders, exports
(`toolgrade runs export`) copied from other machines. The suite file is not needed;
given, it is checked against the shards and names the cases an unfinished shard lacks.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolgrade._core.json_data import JsonObject
from toolgrade.errors import ConfigError
from toolgrade.results import RunResult
from toolgrade.store._manifest import new_run_id, sort_results
from toolgrade.store._merge_checks import POOLED_IDENTITY, check_shards
from toolgrade.store._shards import ShardRun, unsharded_selection
from toolgrade.suite import Suite, decode_positions

__all__ = ["merge_problems", "merge_runs"]


def merge_problems(runs: Sequence[RunResult], *, suite: Suite | None = None) -> tuple[str, ...]:
    """Every reason `merge_runs` would refuse these runs (empty: they merge).

    Args:
        runs: the shards, in any order.
        suite: the suite, to check the shards against it and to list the cases an
            unfinished shard lacks; None checks what the shards record.

    Returns:
        One sentence per problem, naming the runs or cases concerned.
    """
    return tuple(check_shards(runs, suite=suite)[0])


def merge_runs(
    runs: Sequence[RunResult],
    *,
    suite: Suite | None = None,
    tags: Sequence[str] = (),
    run_id: str | None = None,
) -> RunResult:
    """Build one run from the shards of a run (`toolgrade run --shard I/N`).

    Args:
        runs: every shard `1/N` ... `N/N`, each complete, in any order.
        suite: the suite the shards ran; optional (see `merge_problems`).
        tags: the merged run's tags (the shards' own are not carried over: a tag names
            one run).
        run_id: the merged run's id (default: a new one, as a run gets).

    Returns:
        The merged run, status `complete`; it is not saved (`save_run` saves it).

    Raises:
        ConfigError: the runs cannot be merged; the message lists every reason
            (different suite content, model or settings, missing, repeated or
            unfinished shards, overlapping cases, a run that is not a shard), or a
            tag is empty or holds whitespace.

    Examples:
        >>> shards = [resolve_run(f"shard-{i}") for i in (1, 2, 3, 4)]  # doctest: +SKIP
        >>> merged = merge_runs(shards, tags=["nightly"])  # doctest: +SKIP
        >>> merged.selection.get("shard") is None  # doctest: +SKIP
        True
    """
    bad_tags = [t for t in tags if not t or any(ch.isspace() for ch in t)]
    if bad_tags:
        raise ConfigError(f"invalid tag {bad_tags[0]!r}: use a non-empty name without spaces")
    problems, shards, selected = check_shards(runs, suite=suite)
    if problems:
        raise ConfigError(_refusal(problems))
    shards = sorted(shards, key=lambda s: s.index)
    order = [c.id for c in selected.cases] if selected is not None else _unsharded_order(shards)
    results = sort_results((r for s in shards for r in s.run.results), order)
    return _header(shards, tags=tuple(tags), run_id=run_id).model_copy(update={"results": results})


def _refusal(problems: Sequence[str]) -> str:
    return "cannot merge these runs:\n" + "\n".join(f"  - {p}" for p in problems)


def _unsharded_order(shards: Sequence[ShardRun]) -> list[str]:
    """The unsharded run's case order: each shard's cases put back at their positions.

    A shard's results are in its run order, which is the suite's; its recorded
    positions, increasing, say where each of its cases stands in the unsharded one.

    Raises:
        ConfigError: the positions do not place every case exactly once.
    """
    total = shards[0].unsharded_cases
    order: list[str | None] = [None] * total
    for s in shards:
        ids = dict.fromkeys(r.case_id for r in s.run.results)
        for position, case_id in zip(decode_positions(s.positions, total), ids, strict=True):
            if order[position] is not None:
                raise ConfigError(f"shards place two cases at position {position}")
            order[position] = case_id
    placed = [case_id for case_id in order if case_id is not None]
    if len(placed) != total:
        raise ConfigError(f"the shards place {len(placed)} of {total} cases")
    return placed


def _header(shards: Sequence[ShardRun], *, tags: tuple[str, ...], run_id: str | None) -> RunResult:
    """The first shard's header, made the unsharded run's (the checks made them agree)."""
    first = shards[0].run
    finished = [s.run.finished_at or s.run.started_at for s in shards]
    return first.model_copy(
        update={
            "run_id": run_id or new_run_id(),
            "suite_hash": shards[0].unsharded_hash,
            "selection": unsharded_selection(first.selection),
            "backend": _pooled_backend(shards),
            "server": _pooled_server(shards),
            "started_at": min(s.run.started_at for s in shards),
            "finished_at": max(finished),
            "status": "complete",
            "tags": tags,
            "results": (),
        }
    )


def _pooled_server(shards: Sequence[ShardRun]) -> JsonObject:
    """The first shard's server identity, with what every server answered pooled."""
    server: JsonObject = dict(shards[0].run.server)
    for key in POOLED_IDENTITY:
        seen: set[str] = set()
        for s in shards:
            values = s.run.server.get(key)
            if isinstance(values, list):
                seen.update(str(v) for v in values)
        if seen:
            server[key] = [v for v in sorted(seen)]
    by_url: dict[str, set[str]] = {}
    for s in shards:
        told = s.run.server.get("endpoint_fingerprints")
        for url, values in told.items() if isinstance(told, dict) else ():
            if isinstance(values, list):
                by_url.setdefault(url, set()).update(str(v) for v in values)
    if by_url:
        server["endpoint_fingerprints"] = {url: [*sorted(v)] for url, v in by_url.items()}
    return server


def _pooled_backend(shards: Sequence[ShardRun]) -> JsonObject:
    """The first shard's settings; `endpoints`: every server of every shard, when several.

    As a resumed run records them: `base_url` stays the first shard's, for readers that
    know no other.
    """
    backend: JsonObject = dict(shards[0].run.backend)
    urls: list[str] = []
    for s in shards:
        listed = s.run.backend.get("endpoints")
        url = s.run.backend.get("base_url")
        mine = listed if isinstance(listed, list) else [url] if isinstance(url, str) else []
        urls += [str(u) for u in mine if str(u) not in urls]
    if len(urls) > 1:
        backend["endpoints"] = [*urls]
    return backend
