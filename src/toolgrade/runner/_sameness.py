"""Is this the suite a run ran? Compare like with like: the run's cases, not the whole suite.

A run records the `content_hash` of the suite *as it ran*: after `--limit`, `--id`,
`--tag`, `--sample`... only the selected cases. Reloading the suite file gives every
case, whose hash never equals a selection's. So the check narrows the suite the same
way first: to the run's own case ids (resume knows them from `run.json`), or by
applying the recorded selection again (a stored run knows its selection).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from toolgrade._core.json_data import JsonValue
from toolgrade.errors import ConfigError
from toolgrade.results import RunResult
from toolgrade.suite import Selection, Suite, select_cases

__all__ = ["cases_of_run", "matches_run", "resumable_suite", "same_cases"]


def same_cases(suite: Suite, case_ids: Iterable[str]) -> Suite:
    """The suite narrowed to these cases, in suite order (as `select_cases` keeps them)."""
    wanted = set(case_ids)
    return suite.model_copy(update={"cases": tuple(c for c in suite.cases if c.id in wanted)})


def _selection(data: Mapping[str, JsonValue]) -> Selection | None:
    """The recorded selection (`Selection.to_dict()`), or None when unreadable."""
    try:
        return Selection.from_dict(data)
    except ConfigError:
        return None


def cases_of_run(run: RunResult, suite: Suite, *, case_ids: Iterable[str] = ()) -> Suite:
    """The part of `suite` that `run` ran, as well as it can be told.

    Tried in order, the first whose hash equals the run's wins: the whole suite (a run
    of everything), the run's case ids (`case_ids`, else those of its results), the
    recorded selection applied again. When none does, the case-id narrowing is
    returned (its hash then differs from the run's: the suite changed).
    """
    if suite.content_hash == run.suite_hash:
        return suite
    ids = list(case_ids) or [r.case_id for r in run.results]
    by_ids = same_cases(suite, ids)
    if by_ids.content_hash == run.suite_hash:
        return by_ids
    selection = _selection(run.selection) if run.selection else None
    if selection is not None:
        selected = select_cases(suite, selection)
        if selected.content_hash == run.suite_hash:
            return selected
    return by_ids


def matches_run(run: RunResult, suite: Suite, *, case_ids: Iterable[str] = ()) -> bool:
    """True when the suite holds exactly what the run ran (see `cases_of_run`)."""
    return cases_of_run(run, suite, case_ids=case_ids).content_hash == run.suite_hash


def resumable_suite(run: RunResult, suite: Suite, case_ids: Sequence[str]) -> Suite:
    """The part of `suite` that `run` ran, to resume it with.

    Raises:
        ConfigError: the run's cases, or the suite's tools or defaults, changed.
    """
    ran = cases_of_run(run, suite, case_ids=case_ids)
    if ran.content_hash != run.suite_hash:
        missing = sorted(set(case_ids) - {c.id for c in ran.cases})
        why = (
            f"; {len(missing)} of its cases are gone ({', '.join(missing[:3])})" if missing else ""
        )
        raise ConfigError(
            f"the suite changed since run {run.run_id} started"
            f" ({run.suite_hash[:19]} -> {ran.content_hash[:19]} for the same cases{why});"
            " start a new run"
        )
    return ran
