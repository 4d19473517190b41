"""Re-score a stored run from its raw outputs, without calling the model again.

A conversation is judged again by running the run's loop once more against its
recorded replies (every step's `raw_response`, in memory): the calls are extracted and
executed in a fresh environment as they were in the run, then judged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from toolgrade._core.json_data import JsonObject
from toolgrade._core.threads import default_pool
from toolgrade._core.transcript import Step
from toolgrade.backends import NO_RECORDED_RESPONSE, ChatReply, ChatRequest, NameMap, ServerInfo
from toolgrade.errors import InputError
from toolgrade.judging import case_result
from toolgrade.results import CaseResult, RunResult, Status, Verdict
from toolgrade.runner._loop import Runner
from toolgrade.runner._sameness import matches_run
from toolgrade.runner._signals import run_main
from toolgrade.runner._verdicts import judge_output, overrun_message
from toolgrade.suite import Rubric, Suite

__all__ = ["rescore_run"]

logger = logging.getLogger("toolgrade.runner")

_T = TypeVar("_T")


def rescore_run(
    run: RunResult,
    suite: Suite,
    *,
    profile: str | None = None,
    rubric: Rubric | None = None,
    timeout: float = 60.0,
    base_dir: Path | None = None,
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
        base_dir: where the suite's Python environments are found (conversations).

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
    conversations = _run_blocking(
        rerun_conversations(
            suite,
            [r for r in run.results if r.status.scored and r.conversation is not None],
            profile=use_profile,
            rubric=rubric,
            timeout=timeout,
            base_dir=base_dir or suite.source_dir,
            prompt_mode=run.backend.get("mode") == "prompt",
        )
    )
    results: list[CaseResult] = []
    for old in run.results:
        if not old.status.scored:
            results.append(old)
            continue
        again = conversations.get((old.case_id, old.repeat))
        if again is not None:
            results.append(again)
            continue
        case = cases[old.case_id]
        if not case.single:  # a conversation result without its record
            results.append(old)
            continue
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
                Verdict.not_scored(Status.ERROR, message),
                rubric=use_rubric or case.rubric or suite.defaults.rubric,
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


def _run_blocking(work: Coroutine[Any, Any, _T]) -> _T:
    """Run a coroutine to the end from sync code, even when an event loop is running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run_main(work)
    with ThreadPoolExecutor(max_workers=1) as pool:  # not the running loop's thread
        return pool.submit(run_main, work).result()


_StepKey = tuple[str, int, int, int]
"""(case id, repeat, turn, step)."""


class _RecordedReplies:
    """A backend answering each conversation step with its recorded reply (no model)."""

    provider = "recorded"
    model = "recorded"
    safe_names = True  # recorded outputs may carry server-safe names: map them back

    def __init__(self, steps: dict[_StepKey, Step]) -> None:
        self._steps = steps

    async def server_info(self) -> ServerInfo:
        """Nothing to check."""
        return ServerInfo()

    async def complete(self, request: ChatRequest) -> ChatReply:
        """The reply recorded at this step (an error reply when none was)."""
        step = self._steps.get((request.case_id, request.repeat, request.turn, request.step))
        if step is None:
            return ChatReply(raw=None, error=NO_RECORDED_RESPONSE)
        return ChatReply(
            raw=step.raw_response,
            latency_ms=step.latency_ms,
            error=step.error,
            ttft_ms=step.ttft_ms,
            finish_reason=step.finish_reason,
        )

    def settings(self) -> JsonObject:
        """Nothing to record."""
        return {}

    async def aclose(self) -> None:
        """Nothing to release."""


async def rerun_conversations(
    suite: Suite,
    results: Sequence[CaseResult],
    *,
    profile: str,
    rubric: Rubric | None,
    timeout: float,
    base_dir: Path | None,
    prompt_mode: bool = False,
) -> dict[tuple[str, int], CaseResult]:
    """Run the conversation loop again over stored conversations' recorded replies.

    Returns:
        The new result of each (case id, repeat), judged as `profile` and `rubric` say;
        the mode (on-policy or teacher-forced) is the one each was run in, and the text
        read as in `prompt_mode` when the run had its tools in the system prompt.
    """
    by_id = {c.id: c for c in suite.conversations}
    steps: dict[_StepKey, Step] = {}
    for result in results:
        record = result.conversation
        for turn in record.turns if record is not None else ():
            for index, step in enumerate(turn.steps):
                steps[result.case_id, result.repeat, turn.index, index] = step
    backend = _RecordedReplies(steps)
    runners = {
        forced: Runner(
            suite=suite,
            backend=backend,
            timeout=timeout,
            rubric=rubric,
            profile=profile,
            teacher_forcing=forced,
            prompt_mode=prompt_mode,
            base_dir=base_dir,
        )
        for forced in (False, True)
    }
    again: dict[tuple[str, int], CaseResult] = {}
    for result in results:
        conversation = by_id.get(result.case_id)
        record = result.conversation
        if conversation is None or conversation.single or record is None:
            continue
        runner = runners[record.mode == "teacher_forced"]
        outcome = await runner.run(conversation, result.repeat)
        again[result.case_id, result.repeat] = outcome.result
    return again
