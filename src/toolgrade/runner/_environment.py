"""Where a conversation's calls are executed: its environment, how each turn starts, a call.

A `Stage` holds one conversation's environment factory and whether its turns are
teacher-forced: `start` builds a fresh environment with the reference's first turns
replayed (none on-policy, where only the first turn starts one), and carries over
what the case's requests cost so far. `execute_call` runs
one call: a failure injected on purpose, else the environment's answer (on the event
loop for toolgrade's own environments, else in a bounded worker thread). A single case
has no stage: nothing executes its calls, and its turn is one reply.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial

from toolgrade._core.json_data import JsonValue
from toolgrade._core.threads import BoundedPool
from toolgrade._core.transcript import Exchange
from toolgrade._core.vocab import ToolCall
from toolgrade.environments import (
    EnvironmentFactory,
    NoToolEnvironment,
    ScriptedToolEnvironment,
    ToolEnvironment,
)
from toolgrade.judging import FaultCounter, ReferenceStates, replay_reference
from toolgrade.runner._turns import Live
from toolgrade.suite import Case, Suite, ToolSpec

__all__ = ["BOUNDED_ENVIRONMENTS", "Stage", "execute_call"]

logger = logging.getLogger("toolgrade.runner")


@dataclass(frozen=True, slots=True)
class Stage:
    """One conversation's environment: how each of its turns starts."""

    suite: Suite
    """The suite (tools, environments)."""
    conversation: Case
    """The conversation."""
    factory: EnvironmentFactory
    """Builds a fresh environment."""
    forced: bool
    """Every turn starts from the reference's history and state (teacher forcing)."""
    bounded: bool
    """The environment is one of toolgrade's own (no code of the suite's): it starts on
    the event loop, not in a worker thread."""
    workers: BoundedPool
    """Where the suite's code runs, bounded by `timeout`."""
    timeout: float
    """Seconds an environment may take to start."""
    references: ReferenceStates
    """The state each conversation's reference leaves (kept for the whole run)."""

    async def start(self, turn: int, before: Live) -> Live | str:
        """The case as turn `turn` (from 0) starts it, in a fresh environment; or why not.

        Forced, the reference's first `turn` turns are replayed into the environment and
        are the history; on-policy only the first turn starts one, from the initial
        state. What the requests so far cost is carried over from `before`.
        """
        replay = partial(
            replay_reference,
            self.suite,
            self.conversation,
            self.factory,
            turns=turn if self.forced else 0,
        )
        try:
            if self.bounded:
                started = replay()
            else:
                started = await self.workers.call(replay, timeout=self.timeout)
        except TimeoutError:
            return f"the environment took longer than {self.timeout:g} s to start"
        except Exception as exc:  # a suite's environment that fails costs this case
            return f"environment: {exc}"
        return Live(
            messages=list(started.messages),
            environment=started.environment,
            faults=started.faults,
            initial_state=started.initial_state if turn == 0 else before.initial_state,
            latency_ms=before.latency_ms,
            reply=before.reply,
            endpoint=before.endpoint,
        )

    def reference_state(self) -> JsonValue:
        """The state the conversation's reference leaves (replayed once per run)."""
        return self.references.of(self.suite, self.conversation, self.factory)


# Environments whose every call is toolgrade's own work over the suite's data (rules with
# RE2 matchers, no code of the suite's): they run on the event loop, without a thread
# hop per call. A Python environment runs the suite's code, bounded in a worker thread.
BOUNDED_ENVIRONMENTS = (ScriptedToolEnvironment, NoToolEnvironment)


async def execute_call(
    environment: ToolEnvironment,
    faults: FaultCounter,
    call: ToolCall,
    cid: str,
    tool: ToolSpec | None,
    *,
    workers: BoundedPool,
    timeout: float,
) -> Exchange:
    """One call: a failure injected on purpose, else the environment's answer.

    The environment runs in a worker thread bounded by the timeout (a scripted one, which
    only matches rules, on the event loop): a tool that hangs or raises becomes an error
    result the model sees.
    """
    injected = faults.inject(call, call_id=cid)
    if injected is not None:
        return injected

    def execute() -> Exchange:
        return environment.execute(call, call_id=cid, tool=tool)

    try:
        if isinstance(environment, BOUNDED_ENVIRONMENTS):
            return execute()
        return await workers.call(execute, timeout=timeout)
    except TimeoutError:
        message = f"the tool took longer than {timeout:g} s"
    except Exception as exc:  # the environment must answer; a bug costs this call
        logger.warning("environment failed on %s: %s", call.name, exc)
        message = f"{type(exc).__name__}: {exc}"
    return Exchange(id=cid, call=call, result={"error": message}, outcome="error", note=message)
