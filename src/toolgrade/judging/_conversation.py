"""Judging a conversation: each turn, each end check, the score and the first failure.

A turn that states calls is judged like a single case (`toolgrade.judging._judge.judge`, with
the tools offered in that turn); its `reply` is compared with the turn's final text.
A turn fails on a failed request, on reaching its step limit, or on what it stated.
The conversation passes when every deciding check holds (`Case.deciding`);
its score is 1/0 under the binary rubric, otherwise the share of deciding checks
held, where `turns` counts once per turn that states something. The first failure is
the earliest failed turn's cause, else the first failing deciding end check's.

A profile may judge whole conversations of its own kind (its conversation part,
`Profile.conversation`, in `toolgrade.judging._profiles`): the built-in `bfcl` profile
gives BFCL's multi-turn verdict on conversations imported from BFCL. The record is built as usual
(turns judged with the default rules, for reading), its checks made non-deciding, and
one deciding check named after the profile holds the profile's verdict; the score is 1
or 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.transcript import (
    CheckResult,
    ConversationMode,
    ConversationRecord,
    FailureCause,
    FirstFailure,
    TurnResult,
)
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import Rubric, Status, ToolCall
from toolgrade.environments import TurnRun, environment_factory
from toolgrade.errors import SuiteError
from toolgrade.judging._end_checks import (
    ForbiddenHit,
    check_final_state,
    check_max_calls,
    check_turns,
    check_unchanged,
    find_forbidden,
    forbidden_result,
    trajectory_result,
)
from toolgrade.judging._other_calls import blamed_pairs
from toolgrade.judging._profiles import DEFAULT_PROFILE, find_profile
from toolgrade.judging._reference import reference_final_state
from toolgrade.judging._result import conversation_result, decided_record
from toolgrade.judging._trajectory import compare_trajectory, trajectory_prf
from toolgrade.judging._turn import judge_turn
from toolgrade.match import MatcherError
from toolgrade.suite import (
    CHECK_NAMES,
    Case,
    CheckName,
    FinalStateCheck,
    Suite,
    ToolSpec,
)

__all__ = ["conversation_result", "judge_conversation"]
# conversation_result lives in `_result`; it is re-exported here, where
# `judge_conversation` makes the verdicts it takes.


def judge_conversation(
    suite: Suite,
    conversation: Case,
    turns: Sequence[TurnRun],
    *,
    initial_state: JsonValue,
    final_state: JsonValue,
    mode: ConversationMode = "on_policy",
    rubric: Rubric | None = None,
    profile: str = "default",
    prompt_mode: bool = False,
    reference_state: Callable[[], JsonValue] | None = None,
) -> Verdict:
    """Judge a conversation as it ran.

    Args:
        suite: the suite (tools, defaults).
        conversation: the conversation.
        turns: the turns reached, in order (a failed request ends the conversation,
            so later turns are absent).
        initial_state: the environment's state at the start.
        final_state: the environment's state at the end.
        mode: how it was run (recorded).
        rubric: `binary` (pass/fail), `partial` or `f1` (the share of deciding checks
            held); None uses the conversation's, then the suite's.
        profile: the matching profile for the turns' calls; a profile with a
            conversation part judges conversations of its kind whole.
        prompt_mode: the run described the tools in the prompt (for profiles that
            decode raw outputs, as `bfcl` does).
        reference_state: gives the state the conversation's reference leaves, for a
            `final_state` check `from_reference` (called only then; a runner passes a
            cached replay). None: the reference is replayed here, through the suite's
            environment found from `suite.source_dir`.

    Returns:
        The verdict, with the `ConversationRecord` and the rubric its score follows.

    Raises:
        SuiteError: a malformed matcher or state path in the conversation.
        ConfigError: unknown profile, or one that needs something not installed
            (bfcl-eval).
    """
    chosen: Rubric = rubric or conversation.rubric or suite.defaults.rubric
    states = (initial_state, final_state)
    whole = find_profile(profile).conversation if profile != DEFAULT_PROFILE else None
    decided = whole(suite, conversation, turns, prompt_mode=prompt_mode) if whole else None
    left = partial(_left_by_reference, suite, conversation, reference_state)
    try:
        if decided is not None:
            record = _judge(suite, conversation, turns, states, mode, "default", left)
            return _profile_verdict(record, decided, profile)
        record = _judge(suite, conversation, turns, states, mode, profile, left)
        return _verdict(conversation, record, rubric=chosen)
    except MatcherError as exc:
        message = "malformed matcher in the conversation"
        raise SuiteError(message, case_id=conversation.id, problems=exc.problems) from None
    except ValueError as exc:  # a malformed JSON Pointer in `unchanged`
        raise SuiteError(str(exc), case_id=conversation.id, location="checks") from None


def _judge(
    suite: Suite,
    conversation: Case,
    runs: Sequence[TurnRun],
    states: tuple[JsonValue, JsonValue],
    mode: ConversationMode,
    profile: str,
    left: Callable[[], JsonObject | str],
) -> ConversationRecord:
    """The record: every turn judged, every check made, the first failure."""
    deciding = conversation.deciding()
    tools = _all_tools(suite, conversation)
    placed = [(r.index, s, c) for r in runs for s, step in enumerate(r.steps) for c in step.calls]
    calls = [c for _, _, c in placed]
    hits = find_forbidden(
        conversation.checks.forbidden, placed, tools=tools, defaults=suite.defaults
    )
    forbidden_turns = {h.turn for h in hits} if "forbidden" in deciding else set()
    results = tuple(
        judge_turn(
            suite,
            conversation,
            run,
            forbidden=run.index in forbidden_turns,
            profile=profile,
        )
        for run in runs
    )
    checks, trajectory_cause = _checks(
        suite, conversation, results, calls, states, hits=hits, tools=tools, left=left
    )
    failed_request = any(r.error is not None for r in runs)
    passed = not failed_request and all(c.passed for c in checks if c.deciding)
    others = {
        i: frozenset(t.name for t in suite.tools_for_turn(conversation, i))
        for i, turn in enumerate(conversation.turns)
        if turn.allow_other_calls
    }
    first = None
    if not passed:
        first = _first_failure(results, checks, hits, trajectory_cause, deciding, others=others)
    if first is None and not passed:  # pragma: no cover - a failing check always has a cause
        first = FirstFailure(cause=Status.ERROR, message="the conversation failed")
    precision = recall = f1 = None
    if conversation.reference is not None:
        precision, recall, f1 = trajectory_prf(
            calls, conversation.expected, tools=tools, defaults=suite.defaults
        )
    return ConversationRecord(
        mode=mode,
        turns=results,
        total_turns=len(conversation.turns),
        checks=checks,
        passed=passed,
        progress=sum(t.passed for t in results) / len(conversation.turns),
        first_failure=first,
        initial_state=states[0],
        final_state=states[1],
        precision=precision,
        recall=recall,
        f1=f1,
    )


def _verdict(conversation: Case, record: ConversationRecord, *, rubric: Rubric) -> Verdict:
    """The verdict on a record: its first failure's cause, its score under the rubric."""
    first = record.first_failure
    status = Status.CORRECT if first is None else first.cause
    score = _score(conversation, record, rubric=rubric) if status.scored else 0.0
    return Verdict(status, score, record=record, rubric=rubric)


def _profile_verdict(record: ConversationRecord, decided: Verdict, profile: str) -> Verdict:
    """The default rules' record, decided by the verdict of a profile's conversation judge."""
    status, record = decided_record(record, decided, profile)
    return Verdict(status, 1.0 if decided.passed else 0.0, record=record, rubric="binary")


def _all_tools(suite: Suite, conversation: Case) -> dict[str, ToolSpec]:
    """Every tool offered in some turn, by name (the last turn's definition wins)."""
    return {
        t.name: t
        for i in range(len(conversation.turns))
        for t in suite.tools_for_turn(conversation, i)
    }


def _checks(
    suite: Suite,
    conversation: Case,
    results: tuple[TurnResult, ...],
    calls: list[ToolCall],
    states: tuple[JsonValue, JsonValue],
    *,
    hits: Sequence[ForbiddenHit],
    tools: Mapping[str, ToolSpec],
    left: Callable[[], JsonObject | str],
) -> tuple[tuple[CheckResult, ...], FailureCause | None]:
    """The checks, `turns` first, then in `CHECK_NAMES` order; and a trajectory's cause."""
    spec = conversation.checks
    deciding = set(conversation.deciding())
    found: dict[CheckName, CheckResult] = {"turns": check_turns(results, conversation=conversation)}
    cause: FailureCause | None = None
    if spec.final_state is not None:
        found["final_state"] = _final_state(suite, spec.final_state, states[1], left)
    if spec.unchanged:
        found["unchanged"] = check_unchanged(spec.unchanged, states[0], states[1])
    if spec.trajectory is not None:
        match = compare_trajectory(
            calls,
            spec.trajectory.calls,
            spec.trajectory.mode,
            tools=tools,
            defaults=suite.defaults,
        )
        found["trajectory"] = trajectory_result(spec.trajectory, match)
        cause = match.cause
    if spec.forbidden:
        found["forbidden"] = forbidden_result(hits)
    if spec.max_calls is not None:
        found["max_calls"] = check_max_calls(spec.max_calls, len(calls))
    for name in deciding - found.keys():  # `success` names a check the conversation lacks
        found[name] = CheckResult(name=name, passed=False, message=f"no {name} check is given")
    checks = tuple(
        found[n].model_copy(update={"deciding": n in deciding}) for n in CHECK_NAMES if n in found
    )
    return checks, cause


def _final_state(
    suite: Suite, spec: FinalStateCheck, final: JsonValue, left: Callable[[], JsonObject | str]
) -> CheckResult:
    """The `final_state` check; one `from_reference` against the state the reference leaves."""
    if not spec.from_reference:
        return check_final_state(spec, final, defaults=suite.defaults)
    reference = left()
    if isinstance(reference, str):
        message = f"the state the reference leaves is not known: {reference}"
        return CheckResult(name="final_state", passed=False, message=message)
    return check_final_state(spec, final, defaults=suite.defaults, reference=reference)


def _left_by_reference(
    suite: Suite, conversation: Case, given: Callable[[], JsonValue] | None
) -> JsonObject | str:
    """The state the reference leaves, or why it is not known."""
    try:
        if given is not None:
            state = given()
        else:
            factory = environment_factory(suite, conversation, base_dir=suite.source_dir)
            state = reference_final_state(suite, conversation, factory)
    except Exception as exc:  # the suite's environment failed: the check cannot hold
        return f"{type(exc).__name__}: {exc}" if not isinstance(exc, SuiteError) else str(exc)
    return state if isinstance(state, dict) else "the environment's state is not an object"


def _first_failure(
    results: Sequence[TurnResult],
    checks: Sequence[CheckResult],
    hits: Sequence[ForbiddenHit],
    trajectory_cause: FailureCause | None,
    deciding: Sequence[CheckName],
    *,
    others: Mapping[int, frozenset[str]],
) -> FirstFailure | None:
    """The earliest failed turn's cause, else the first failing deciding end check's.

    `others`: the turns that allow other calls, by index, with the tools each offers.
    """
    turn = next((t for t in results if not t.passed and t.cause is not None), None)
    if turn is not None and turn.cause is not None:
        message = turn.message or turn.cause.replace("_", " ")
        step = _blamed_step(turn, hits, offered=others.get(turn.index))
        named = "turns" if "turns" in deciding else None
        return FirstFailure(
            cause=turn.cause, message=message, turn=turn.index, step=step, check=named
        )
    by_name = {c.name: c for c in checks if c.deciding and not c.passed}
    turns_check = by_name.get("turns")
    if turns_check is not None:  # a stated turn never reached
        return FirstFailure(
            cause=Status.ERROR, message=turns_check.message or "turn not reached", check="turns"
        )
    for name, cause in (
        ("forbidden", Status.FORBIDDEN_CALL),
        ("final_state", Status.STATE_MISMATCH),
        ("unchanged", Status.STATE_MISMATCH),
        ("trajectory", trajectory_cause or Status.MISSED_CALL),
        ("max_calls", Status.UNEXPECTED_CALL),
    ):
        check = by_name.get(name)
        if check is None:
            continue
        hit = hits[0] if name == "forbidden" and hits else None
        return FirstFailure(
            cause=cause,
            message=check.message or f"{name} failed",
            turn=hit.turn if hit else None,
            step=hit.step if hit else None,
            check=name,
        )
    return None


# Causes the last step of a turn is to blame for.
_LAST_STEP_CAUSES = frozenset(
    {Status.TIMEOUT, Status.ERROR, Status.STEP_LIMIT, Status.REPLY_MISMATCH}
)


def _blamed_step(
    turn: TurnResult, hits: Sequence[ForbiddenHit], *, offered: frozenset[str] | None
) -> int | None:
    """The step to blame for a failed turn, when one is (see `blamed_pairs`).

    `offered`: the tools the turn offers when it allows other calls, else None.
    """
    if turn.cause == Status.FORBIDDEN_CALL:
        return next((h.step for h in hits if h.turn == turn.index), None)
    if turn.cause in _LAST_STEP_CAUSES:
        return len(turn.steps) - 1 if turn.steps else None
    bad = [p.actual_index for p in blamed_pairs(turn, offered=offered)]
    blamed = next((j for j in bad if j is not None), None)
    if blamed is None:
        return None
    seen = 0
    for s, step in enumerate(turn.steps):
        seen += len(step.calls)
        if blamed < seen:
            return s
    return None  # pragma: no cover - pair indexes point into the turn's calls


def _score(conversation: Case, record: ConversationRecord, *, rubric: Rubric) -> float:
    """1/0 when binary; else the share of deciding checks held, `turns` once per turn."""
    if rubric == "binary":
        return 1.0 if record.passed else 0.0
    held = total = 0
    for check in record.checks:
        if not check.deciding:
            continue
        if check.name == "turns":
            units = _turn_units(conversation, record.turns)
            if units:
                held += sum(units)
                total += len(units)
                continue
        held += check.passed
        total += 1
    return held / total if total else float(record.passed)


def _turn_units(conversation: Case, results: Sequence[TurnResult]) -> list[bool]:
    """One unit per turn that states something or hit its step limit: whether it held."""
    by_index: Mapping[int, TurnResult] = {t.index: t for t in results}
    units: list[bool] = []
    for i, turn in enumerate(conversation.turns):
        result = by_index.get(i)
        if turn.states_anything:
            units.append(result is not None and result.passed)
        elif result is not None and result.cause == Status.STEP_LIMIT:
            units.append(False)
    return units
