"""Re-score a stored run from its raw outputs, without calling the model again."""

from __future__ import annotations

import logging
from functools import partial

from toolgrade._threads import default_pool
from toolgrade.backends import NameMap
from toolgrade.errors import InputError
from toolgrade.judge import case_result
from toolgrade.results import CaseResult, RunResult, Status, Verdict
from toolgrade.runner._case import judge_output, overrun_message
from toolgrade.runner._sameness import matches_run
from toolgrade.suite import Rubric, Suite

__all__ = ["rescore_run"]

logger = logging.getLogger("toolgrade.runner")


def rescore_run(
    run: RunResult,
    suite: Suite,
    *,
    profile: str | None = None,
    rubric: Rubric | None = None,
    timeout: float = 60.0,
) -> RunResult:
    """Extract and judge every stored raw output again, e.g. under another profile.

    Timeouts and errors stay as they were (they have no output to judge). Latency, time
    to first token, finish reason, repeat index and the raw output are kept; only the
    verdicts change. A run of a selection (`--limit`, `--id`, ...) is compared with the
    same cases of `suite`, not with all of it.

    Args:
        run: a stored run (from `resolve_run` or `load_run_folder`).
        suite: the suite it ran, for the cases' expectations and tools.
        profile: the matching profile (`default`, `bfcl`); None keeps the run's.
        rubric: a rubric override; None keeps the run's.
        timeout: seconds allowed to extract and judge one output; an output that takes
            longer (a reader that loops on it) becomes an `error` result.

    Returns:
        The run with new verdicts, its `profile` and `rubric` updated.

    Raises:
        InputError: a result's case is not in the suite.

    Examples:
        >>> bfcl_view = rescore_run(run, suite, profile="bfcl")  # doctest: +SKIP
    """
    cases = {case.id: case for case in suite.cases}
    missing = sorted({r.case_id for r in run.results} - cases.keys())
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise InputError(
            f"{len(missing)} case(s) of run {run.run_id} are not in the suite: {shown}"
        )
    # Like with like: a run of a selection recorded the hash of its cases only.
    if not matches_run(run, suite):
        logger.warning("suite %s differs from the one run %s used", suite.name, run.run_id)
    use_profile = profile or run.profile
    use_rubric = rubric or run.rubric
    results: list[CaseResult] = []
    for old in run.results:
        if not old.status.scored:
            results.append(old)
            continue
        case = cases[old.case_id]
        tools = suite.tools_for(case)
        # Outputs may carry server-safe names (uber_ride for uber.ride): map them back.
        names = NameMap.build((t.name for t in tools), enabled=True)
        try:
            # In a worker thread: a reader that loops costs this result, not the command.
            new = default_pool().call_sync(
                partial(
                    judge_output,
                    suite,
                    case,
                    old.raw_response,
                    names=names,
                    offered=tools,
                    rubric=use_rubric,
                    profile=use_profile,
                ),
                timeout=timeout,
            )
        except TimeoutError:
            message = overrun_message(timeout)
            logger.warning("case %s: %s", old.case_id, message)
            new = case_result(
                case,
                Verdict(Status.ERROR, 0.0),
                rubric=use_rubric or case.rubric or suite.defaults.rubric,
                error=message,
                repeat=old.repeat,
                latency_ms=old.latency_ms,
            )
        kept = {
            "raw_response": old.raw_response,
            "latency_ms": old.latency_ms,
            "ttft_ms": old.ttft_ms,
            "finish_reason": old.finish_reason,
            "repeat": old.repeat,
        }
        results.append(new.model_copy(update=kept))
    return run.model_copy(
        update={"results": tuple(results), "profile": use_profile, "rubric": use_rubric}
    )
