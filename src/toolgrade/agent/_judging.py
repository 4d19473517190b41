"""Judging what an agent did, outside a suite: one reply, or a whole trajectory.

Both go through the judges of suites, so an assertion never disagrees with a suite:

- `judge_calls` judges one reply against a case with `toolgrade.judging.judge` (what
  `assert_tool_calls` and the MCP `judge` tool share);
- `judge_trajectory` judges a trajectory as the conversation of one turn it is, with
  `toolgrade.judging.judge_conversation`: the expected calls are its `trajectory` check
  (under the mode), the forbidden patterns its `forbidden` check, `max_calls` its
  `max_calls` check, and the expected reply the turn's `reply`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import CheckResult, ConversationRecord, Step
from toolgrade._core.vocab import Mismatch, Rubric, ToolCall
from toolgrade.agent._inputs import open_specs, read_case, read_reply, tool_specs
from toolgrade.environments import TurnRun
from toolgrade.extract import Extraction
from toolgrade.judging import (
    TrajectoryMatch,
    compare_trajectory,
    failed_calls,
    find_forbidden,
    judge,
    judge_conversation,
)
from toolgrade.match import CallJudge
from toolgrade.results import CaseResult
from toolgrade.suite import (
    CallPattern,
    Case,
    Checks,
    Suite,
    ToolSpec,
    TrajectoryCheck,
    TrajectoryMode,
    Turn,
)

__all__ = ["TrajectoryOutcome", "judge_calls", "judge_trajectory"]

_CONVERSATION_ID = "assert_trajectory"
"""The id of the conversation a trajectory is judged as (named in a `SuiteError`)."""


def judge_calls(
    actual: object,
    case: Case | Mapping[str, Any],
    *,
    tools: object = None,
    rubric: Rubric | None = None,
    strict: bool = False,
) -> CaseResult:
    """Judge actual calls (in any accepted form) against a case.

    Without tool definitions, every tool named on either side is offered with an open
    schema, so the verdict rests on names and values alone.

    Raises:
        InputError: the case, the tools or the calls are malformed.
        SuiteError: the case holds a malformed matcher.
    """
    the_case = read_case(case)
    specs = tool_specs(tools) if tools is not None else None
    found = read_reply(actual, specs)
    if specs is None:
        calls = found.calls if isinstance(found, Extraction) else found
        named = {c.name for alt in (the_case.expected, *the_case.alternatives) for c in alt}
        specs = open_specs(named | {c.name for c in calls})
    return judge(the_case, found, tools=specs, rubric=rubric, strict=strict)


@dataclass(frozen=True, slots=True)
class TrajectoryOutcome:
    """A trajectory judged: the checks' verdict, and how the calls paired, for a message."""

    passed: bool
    """Whether every check held."""
    problems: tuple[str, ...]
    """Each failing check's message, in the order: trajectory, forbidden, reply, max_calls."""
    mode: TrajectoryMode
    """The trajectory mode."""
    reference: tuple[ToolCall, ...]
    """The expected calls."""
    calls: tuple[ToolCall, ...]
    """The calls made, in order."""
    match: TrajectoryMatch
    """How the calls compare with the expected ones under the mode."""
    near: Mapping[int, int]
    """Expected calls not made whose tool was called with other arguments: the call."""
    differences: tuple[tuple[int, int, tuple[Mismatch, ...]], ...] = ()
    """For each expected call in `near` (failures only): its argument differences."""
    forbidden: Mapping[int, CallPattern] | None = None
    """Failures only: each forbidden call, by index, with the first pattern it matches."""
    notes: tuple[str, ...] = ()
    """Malformed calls in the messages."""
    failed: Mapping[int, str] = field(default_factory=dict)
    """The calls whose result was an error (`is_error`), by index, with the error."""


def judge_trajectory(
    steps: Sequence[Step],
    reply: str | None,
    reference: tuple[ToolCall, ...],
    mode: TrajectoryMode,
    *,
    tools: Sequence[ToolSpec] | None = None,
    forbidden: tuple[CallPattern, ...] = (),
    expected_reply: JsonValue = None,
    max_calls: int | None = None,
) -> TrajectoryOutcome:
    """Judge a trajectory (the steps of one turn, and its final reply) as a conversation.

    Every check is judged on its own (none decides for another, so a forbidden call
    does not hide a wrong reply); the trajectory passes when all hold, as the
    conversation would in a suite, where all its checks decide.

    Raises:
        SuiteError: a malformed matcher in the expected calls, the patterns or the reply.
    """
    suite = Suite(name=_CONVERSATION_ID, schema_version=2, tools=tuple(tools or ()))
    checks = Checks(
        trajectory=TrajectoryCheck(calls=reference, mode=mode),
        forbidden=forbidden,
        max_calls=max_calls,
        success=(),  # every check reported on its own: see above
    )
    conversation = Case(
        id=_CONVERSATION_ID, turns=(Turn(user="", reply=expected_reply),), checks=checks
    )
    run = TurnRun(index=0, user="", steps=tuple(steps), reply=reply)
    verdict = judge_conversation(suite, conversation, [run], initial_state={}, final_state={})
    record = verdict.record
    if record is None:  # pragma: no cover - the default rules always keep a record
        raise RuntimeError("the conversation judge kept no record")
    problems = _problems(record)
    calls = tuple(c for s in steps for c in s.calls)
    by_name = {t.name: t for t in suite.tools}
    match = compare_trajectory(calls, reference, mode, tools=by_name, defaults=suite.defaults)
    near: dict[int, int] = {}
    for i in match.wrong_args:
        j = _near(match, i, reference, calls, mode)
        if j is not None:
            near[i] = j
    differences: tuple[tuple[int, int, tuple[Mismatch, ...]], ...] = ()
    hits: dict[int, CallPattern] | None = None
    if problems:  # what a failure message lists: the differences, the forbidden calls
        judge_ = CallJudge(
            calls,
            schemas={n: t.parameters for n, t in by_name.items()},
            offered=None,
            trim=suite.defaults.trim_strings,
            null_is_absent=suite.defaults.null_is_absent,
        )
        differences = tuple((i, j, tuple(judge_.compare(reference[i], j))) for i, j in near.items())
        # Each call's index stands in the step's place, to find the call again.
        placed = [(0, j, c) for j, c in enumerate(calls)]
        found = find_forbidden(forbidden, placed, tools=by_name, defaults=suite.defaults)
        hits = {h.step: forbidden[h.pattern] for h in found}
    return TrajectoryOutcome(
        passed=not problems,
        problems=problems,
        mode=mode,
        reference=reference,
        calls=calls,
        match=match,
        near=near,
        differences=differences,
        forbidden=hits,
        notes=tuple(e.message for s in steps for e in s.extraction_errors),
        failed=failed_calls(steps),
    )


_ORDER = ("trajectory", "forbidden", "turns", "max_calls")
"""The checks a trajectory has, in the order their problems are listed."""


def _problems(record: ConversationRecord) -> tuple[str, ...]:
    """The failing checks' messages; the reply's own (the turn's) for the `turns` check."""
    failing = {c.name: c for c in record.checks if not c.passed}
    return tuple(_problem(failing[n], record) for n in _ORDER if n in failing)


def _problem(check: CheckResult, record: ConversationRecord) -> str:
    if check.name == "turns" and record.turns and record.turns[0].message:
        return record.turns[0].message  # the one turn fails on its reply alone
    return check.message or f"{check.name} failed"


def _near(
    match: TrajectoryMatch,
    i: int,
    reference: Sequence[ToolCall],
    calls: Sequence[ToolCall],
    mode: TrajectoryMode,
) -> int | None:
    """The call of expected call `i`'s tool made instead of it (`exact`: in its place)."""
    if mode == "exact":
        return i
    name = reference[i].name
    return next((j for j in match.unexpected if calls[j].name == name), None)
