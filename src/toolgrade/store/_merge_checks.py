"""Why shards cannot be merged: every reason at once, each naming the shards concerned.

Shards merge when they are the `1/N` ... `N/N` of one selection of one suite's content,
each complete, run with the same model and settings by the same toolgrade version. What
may differ is where they ran: the server's URL and endpoints, the concurrency (capped
to each server's slots; it changes how fast, not what is asked), the replay file's
path (its content is checked through the server identity's `file_sha256`), the
warm-up and the server's slots.

The server identity (server kind and version, model digest, ...) must agree: a newer
vLLM, llama.cpp or Ollama changes chat templates, tool-call parsers and kernels, hence
answers, and a merged run claims one configuration; `compare` would blame the model for
the difference. The `system_fingerprint`s and model names the servers answered with
are pooled instead, as one run pools those its server gave along the way.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from toolgrade._core.json_data import JsonValue
from toolgrade.errors import ConfigError
from toolgrade.results import RunResult
from toolgrade.store._manifest import resume_command
from toolgrade.store._shards import (
    ShardRun,
    disagreements,
    listing,
    read_shard,
    unsharded_selection,
)
from toolgrade.suite import Selection, Suite, select_cases, shard_of

__all__ = ["IGNORED_IDENTITY", "IGNORED_SETTINGS", "POOLED_IDENTITY", "check_shards"]

IGNORED_SETTINGS = frozenset(
    {"base_url", "endpoints", "concurrency", "endpoint_concurrency", "file"}
)
"""Backend settings that say where or how fast a shard ran, not what ran."""
IGNORED_IDENTITY = frozenset(
    {"base_url", "endpoints", "endpoints_down", "endpoint_fingerprints", "warmup", "parallel"}
)
"""Server identity that belongs to one machine (its URLs, its warm-up, its slots)."""
POOLED_IDENTITY = ("system_fingerprints", "response_models")
"""Server identity the merged run pools (sorted, distinct), as a run does over time."""

_HEADER: tuple[tuple[str, Callable[[ShardRun], JsonValue]], ...] = (
    ("suite names", lambda s: s.run.suite_name),
    ("suite versions", lambda s: s.run.suite_version),
    ("suite contents (hash of the unsharded selection)", lambda s: s.unsharded_hash),
    ("numbers of unsharded cases", lambda s: s.unsharded_cases),
    ("selections", lambda s: unsharded_selection(s.run.selection)),
    ("models", lambda s: s.run.model),
    ("rubrics", lambda s: s.run.rubric),
    ("profiles", lambda s: s.run.profile),
    ("repeats", lambda s: s.run.repeat),
    ("seeds", lambda s: s.run.seed),
    ("toolgrade versions (judging changes between versions)", lambda s: s.run.toolgrade_version),
)


def check_shards(
    runs: Sequence[RunResult], *, suite: Suite | None = None
) -> tuple[list[str], list[ShardRun], Suite | None]:
    """Every reason the runs cannot be merged, the shards read, and the suite's selection.

    Returns:
        (problems, shards, selected): `selected` is the unsharded selection of `suite`
        when a suite was given and the shards agree on it, else None.
    """
    problems: list[str] = [] if runs else ["no run to merge"]
    shards: list[ShardRun] = []
    seen: set[str] = set()
    for run in runs:
        if run.run_id in seen:
            problems.append(f"run {run.run_id} is given twice")
            continue
        seen.add(run.run_id)
        read = read_shard(run)
        if isinstance(read, str):
            problems.append(read)
        else:
            shards.append(read)
    problems += _layout(shards)
    problems += _agreement(shards)
    selected, why = _suite_selection(shards, suite)
    problems += why
    problems += _contents(shards, selected)
    if not problems and shards:
        # Checked last, on shards that agree: each recorded its positions on its own.
        planned, total = sum(s.planned for s in shards), shards[0].unsharded_cases
        if planned != total:
            problems.append(f"the shards place {planned} of the {total} unsharded cases")
    return problems, shards, selected


def _layout(shards: Sequence[ShardRun]) -> list[str]:
    """One count for all; each shard once; none missing."""
    counts = {s.count for s in shards}
    if len(counts) > 1:
        return disagreements("shard counts", shards, [s.count for s in shards])
    if not shards:
        return []
    problems: list[str] = []
    by_index: defaultdict[int, list[ShardRun]] = defaultdict(list)
    for s in shards:
        by_index[s.index].append(s)
    for index in sorted(by_index):
        twice = by_index[index]
        if len(twice) > 1:
            runs = ", ".join(s.run.run_id for s in twice)
            problems.append(f"shard {twice[0].shard} is given {len(twice)} times: runs {runs}")
    count = shards[0].count
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
    if missing:
        problems.append(f"missing shard{'s' if len(missing) > 1 else ''}: {listing(missing)}")
    return problems


def _agreement(shards: Sequence[ShardRun]) -> list[str]:
    """The same suite content, selection, model, settings, server and toolgrade."""
    problems: list[str] = []
    for what, get in _HEADER:
        problems += disagreements(what, shards, [get(s) for s in shards])
    settings = sorted({k for s in shards for k in s.run.backend} - IGNORED_SETTINGS)
    for key in settings:
        values = [s.run.backend.get(key) for s in shards]
        problems += disagreements(f"backend setting `{key}`", shards, values)
    ignored = IGNORED_IDENTITY | set(POOLED_IDENTITY)
    identity = sorted({k for s in shards for k in s.run.server} - ignored)
    for key in identity:
        values = [s.run.server.get(key) for s in shards]
        problems += [
            f"{p} (the shards must run on the same server software and model)"
            for p in disagreements(f"server `{key}`", shards, values)
        ]
    return problems


def _suite_selection(
    shards: Sequence[ShardRun], suite: Suite | None
) -> tuple[Suite | None, list[str]]:
    """The unsharded selection of `suite`, checked against the shards' recorded hash."""
    if suite is None or not shards:
        return None, []
    digests = {s.unsharded_hash for s in shards}
    first = shards[0]
    try:
        selection = Selection.from_dict(unsharded_selection(first.run.selection))
    except ConfigError as exc:
        return None, [f"shard {first.label} records an unreadable selection: {exc.message}"]
    selected = select_cases(suite, selection)
    if selected.content_hash not in digests:
        return None, [
            f"the suite given is not the one the shards ran: its selection hashes to"
            f" {selected.content_hash[:19]}..., the shards' to"
            f" {', '.join(sorted(d[:19] + '...' for d in digests))}"
        ]
    return selected, []


def _contents(shards: Sequence[ShardRun], selected: Suite | None) -> list[str]:
    """Each shard holds its own cases, all of them, once; no case is in two shards."""
    problems: list[str] = []
    owner: dict[str, str] = {}
    overlap: list[str] = []
    for s in shards:
        ids = list(dict.fromkeys(r.case_id for r in s.run.results))
        foreign = [i for i in ids if shard_of(i, s.count) != s.index]
        if foreign:
            problems.append(
                f"shard {s.label} holds cases that are not of shard {s.shard}:"
                f" {listing(foreign)} (it ran another selection than it records)"
            )
        for case_id in ids:
            if owner.setdefault(case_id, s.run.run_id) != s.run.run_id:
                overlap.append(case_id)
        problems += _completeness(s, ids, selected)
    if overlap:
        problems.append(f"{len(overlap)} cases are in more than one run: {listing(overlap)}")
    return problems


def _completeness(s: ShardRun, ids: Sequence[str], selected: Suite | None) -> list[str]:
    """A shard that did not finish, or that holds more cases than it planned."""
    repeats = Counter(r.case_id for r in s.run.results)
    done = [i for i in ids if repeats[i] >= s.run.repeat]
    if len(ids) > s.planned:
        return [f"shard {s.label} has results for {len(ids)} cases, but {s.planned} planned"]
    lacking = s.planned - len(done)
    if s.run.status == "complete" and not lacking:
        return []
    reason = f"shard {s.label} did not finish (status {s.run.status})"
    if lacking:
        reason += f": {lacking} of its {s.planned} cases lack a result"
        if selected is not None:
            have = set(done)
            wanted = (c.id for c in selected.cases if shard_of(c.id, s.count) == s.index)
            reason += f" ({listing(i for i in wanted if i not in have)})"
        else:
            reason += " (give the suite to list them)"
    return [f"{reason}; finish it with `{resume_command(s.run.run_id)}`"]
