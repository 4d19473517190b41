"""`suite check` for conversations: every reference must hold up before a model is run.

For each conversation with a `reference`, three replays through its environment:

1. the reference, judged by the conversation's own checks, must pass (else its
   expectations are broken: no model could be sure to pass); a `final_state` check
   `from_reference` expects the state this replay leaves;
2. a model that never calls a tool must not pass (else the conversation measures
   nothing);
3. a second replay of the reference must give the same tool results and end in the
   same state (else the environment is not deterministic, and neither is the score).

A conversation without a reference cannot be checked: that is a warning, not a refusal.

A Python environment runs the suite's code, so every step (loading the class, each
replay with its judging) runs in a bounded worker thread, as in a run: a method that
loops or hangs becomes a `timeout` problem after `timeout` seconds, and Ctrl-C stops the
check at once.

Examples:
    >>> from toolgrade.suite import load_suite
    >>> [p.render() for p in check_conversations(load_suite("coding-agent"), base_dir=None)]
    []
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from toolgrade._core.json_data import JsonValue
from toolgrade._core.threads import BoundedPool, default_pool
from toolgrade._core.transcript import FirstFailure, Step
from toolgrade._core.vocab import Status
from toolgrade.environments import EnvironmentFactory, environment_factory
from toolgrade.errors import SuiteError
from toolgrade.judging._conversation import judge_conversation
from toolgrade.judging._reference import ReferenceReplay, replay_reference
from toolgrade.suite import Case, Suite

__all__ = [
    "CHECK_TIMEOUT",
    "ConversationProblem",
    "ProblemKind",
    "check_conversation",
    "check_conversations",
]

T = TypeVar("T")

CHECK_TIMEOUT = 60.0
"""Seconds each step of a conversation's check may take by default (as `run --timeout`)."""

ProblemKind = Literal[
    "reference_fails",
    "passes_without_calls",
    "not_deterministic",
    "environment",
    "timeout",
    "no_reference",
]
"""What `suite check` found wrong with a conversation:

- `reference_fails`: the reference fails the conversation's own checks;
- `passes_without_calls`: a model that never calls a tool would pass;
- `not_deterministic`: two replays of the reference differ;
- `environment`: the environment cannot be built, or its code raised (or a check is
  malformed);
- `timeout`: loading the environment, or a replay of the reference, took longer than
  the time allowed (a method or `state()` that loops or hangs);
- `no_reference`: there is no reference, so nothing can be checked (a warning).
"""


class _Bounded(Protocol):
    """Runs one step of a check in a worker thread, bounded in time."""

    def __call__(self, step: Callable[[], T], /) -> T: ...


@dataclass(frozen=True, slots=True)
class ConversationProblem:
    """One thing `suite check` found about one conversation."""

    case_id: str
    """The conversation's id."""
    kind: ProblemKind
    """What was found."""
    message: str
    """What is wrong, for people."""
    warning: bool = False
    """True for a warning (the suite is not refused for it)."""

    def render(self) -> str:
        """`case ID: message`, with `warning: ` in front of a warning.

        Examples:
            >>> ConversationProblem("MT-1", "no_reference", "no reference", warning=True).render()
            'warning: case MT-1: no reference'
        """
        text = f"case {self.case_id}: {self.message}"
        return f"warning: {text}" if self.warning else text


def check_conversations(
    suite: Suite,
    *,
    base_dir: Path | None,
    timeout: float = CHECK_TIMEOUT,
    workers: BoundedPool | None = None,
) -> list[ConversationProblem]:
    """Check every conversation of a suite (cases of one prompt are not looked at).

    Args:
        suite: the suite.
        base_dir: the suite's folder, where Python environments are looked for first
            (None for a built-in suite).
        timeout: seconds each step may take (loading the environment, each replay).
        workers: the worker threads the steps run in (default: the process-wide pool).

    Returns:
        The problems and warnings, conversation by conversation in file order; the suite
        is refused when any is not a warning.
    """
    problems: list[ConversationProblem] = []
    for conversation in suite.conversations:
        problems += check_conversation(
            suite, conversation, base_dir=base_dir, timeout=timeout, workers=workers
        )
    return problems


def check_conversation(
    suite: Suite,
    conversation: Case,
    *,
    base_dir: Path | None,
    timeout: float = CHECK_TIMEOUT,
    workers: BoundedPool | None = None,
) -> list[ConversationProblem]:
    """Check one conversation: its reference passes, no calls fail, replays agree.

    Args:
        suite: the suite the conversation is in.
        conversation: the conversation.
        base_dir: the suite's folder (Python environments), None for a built-in suite.
        timeout: seconds each step may take (loading the environment, each replay).
        workers: the worker threads the steps run in (default: the process-wide pool).

    Returns:
        Its problems (empty when it holds up).

    Raises:
        KeyboardInterrupt: Ctrl-C while a step runs (its thread is stopped).
    """
    cid = conversation.id
    if conversation.reference is None:
        message = "has no reference, so suite check cannot replay it"
        return [ConversationProblem(cid, "no_reference", message, warning=True)]
    pool = workers or default_pool()

    def bounded(step: Callable[[], T]) -> T:
        return pool.call_sync(step, timeout=timeout)

    try:
        factory = bounded(lambda: environment_factory(suite, conversation, base_dir=base_dir))
        return _check(suite, conversation, factory, bounded)
    except SuiteError as exc:
        return [ConversationProblem(cid, "environment", _error_text(exc))]
    except TimeoutError:
        message = (
            f"the environment took longer than {timeout:g} s (a method or state() loops"
            " or hangs; allow it longer with --timeout)"
        )
        return [ConversationProblem(cid, "timeout", message)]
    except Exception as exc:  # the suite's own code failed outside a tool call
        message = f"the environment raised {type(exc).__name__}: {exc}"
        return [ConversationProblem(cid, "environment", message)]


def _check(
    suite: Suite,
    conversation: Case,
    factory: EnvironmentFactory,
    bounded: _Bounded,
) -> list[ConversationProblem]:
    cid = conversation.id
    problems: list[ConversationProblem] = []

    def replay(
        *, no_calls: bool = False, reference: ReferenceReplay | None = None
    ) -> tuple[ReferenceReplay, FirstFailure | None]:
        # A `final_state` from the reference expects the state the reference replay
        # leaves: its own when the reference is judged.
        done = replay_reference(suite, conversation, factory, no_calls=no_calls)
        return done, _failure(suite, conversation, done, left=reference or done)

    first, failure = bounded(replay)
    if failure is not None:
        message = f"the reference fails its own checks: {_describe(failure)}"
        problems.append(ConversationProblem(cid, "reference_fails", message))
    _, silent_failure = bounded(lambda: replay(no_calls=True, reference=first))
    if silent_failure is None:
        message = "passes with no tool call at all: its checks do not need any tool use"
        problems.append(ConversationProblem(cid, "passes_without_calls", message))
    second, _ = bounded(replay)
    difference = bounded(lambda: _replay_difference(first, second))
    if difference is not None:
        message = f"the environment is not deterministic: {difference}"
        problems.append(ConversationProblem(cid, "not_deterministic", message))
    return problems


def _failure(
    suite: Suite, conversation: Case, replay: ReferenceReplay, *, left: ReferenceReplay
) -> FirstFailure | None:
    """The first failure of a replay as judged (None when it passed).

    `left` is the reference's replay: a `final_state` from the reference expects its state.
    """
    verdict = judge_conversation(
        suite,
        conversation,
        replay.turn_runs,
        initial_state=replay.initial_state,
        final_state=replay.environment.state(),
        rubric="binary",
        reference_state=left.environment.state,
    )
    if verdict.passed:
        return None
    first = verdict.record.first_failure if verdict.record is not None else None
    return first or FirstFailure(cause=Status.ERROR, message="did not pass")


def _describe(failure: FirstFailure) -> str:
    """`turn 2: wrong_args: ...` or `check final_state: state_mismatch: ...`."""
    if failure.turn is not None:
        where = f"turn {failure.turn + 1}"
        if failure.step is not None:
            where += f", step {failure.step + 1}"
    else:
        where = f"check {failure.check or 'unknown'}"
    return f"{where}: {failure.cause}: {failure.message}"


def _replay_difference(first: ReferenceReplay, second: ReferenceReplay) -> str | None:
    """Where two replays of the same reference differ first, or None."""
    found = _difference(first.initial_state, second.initial_state)
    if found is not None:
        return f"initial state differs at {found}"
    for run_a, run_b in zip(first.turn_runs, second.turn_runs, strict=True):
        pairs = zip(_exchanges(run_a.steps), _exchanges(run_b.steps), strict=False)
        for k, (a, b) in enumerate(pairs):
            found = _difference(a, b)
            if found is not None:
                return f"turn {run_a.index + 1}, call {k + 1}: the tool result differs at {found}"
    found = _difference(first.environment.state(), second.environment.state())
    if found is not None:
        return f"final state differs at {found}"
    return None


def _exchanges(steps: Sequence[Step]) -> list[JsonValue]:
    return [{"result": x.result, "outcome": x.outcome} for s in steps for x in s.exchanges]


def _difference(a: JsonValue, b: JsonValue, path: str = "") -> str | None:
    """The JSON Pointer (RFC 6901) of the first place two values differ, or None.

    Examples:
        >>> _difference({"files": {"a": "1"}}, {"files": {"a": "2"}})
        '/files/a'
        >>> _difference([1, 2], [1, 2]) is None
        True
    """
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            sub = f"{path}/{key.replace('~', '~0').replace('/', '~1')}"
            if key not in a or key not in b:
                return sub
            found = _difference(a[key], b[key], sub)
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _difference(x, y, f"{path}/{i}")
            if found is not None:
                return found
        return None if len(a) == len(b) else f"{path}/{min(len(a), len(b))}"
    if type(a) is not type(b) or a != b:
        return path or "/"
    return None


def _error_text(exc: SuiteError) -> str:
    return "; ".join([exc.message or str(exc), *exc.problems])
