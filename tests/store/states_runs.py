"""Conversation runs whose environment states are large and shared, for the state store tests.

Every conversation starts from `BIG` (longer than a hash, so it is stored by hash) and
the scripted model follows the reference, so that each ends in the same final state:
a run of N conversations names two distinct states, 2N times.
"""

from __future__ import annotations

import asyncio
from typing import Any

from runner.convscript import ScriptedModel, conversation, good_script, suite
from toolgrade.results import CaseResult, RunResult
from toolgrade.runner import RunOptions, arun_suite
from toolgrade.suite import Suite

BIG = {"files": {"a.txt": "A", "README.md": "# A project\n" + "Some words. " * 40}}
"""The shared initial state (about 500 characters of JSON)."""


def ids(n: int) -> list[str]:
    """`c1` ... `cN`."""
    return [f"c{i}" for i in range(1, n + 1)]


def big_suite(n: int = 4) -> Suite:
    """N conversations starting from `BIG`."""
    return suite(*(conversation(i, initial_state=BIG) for i in ids(n)))


def script(n: int = 4) -> dict[Any, Any]:
    """A model that follows every conversation's reference."""
    steps: dict[Any, Any] = {}
    for i in ids(n):
        steps |= good_script(i)
    return steps


def big_run(n: int = 4, **options: Any) -> RunResult:
    """A finished run of `big_suite(n)` (with a run folder unless `persist=False`).

    One case at a time: the files hold the conversations in suite order.
    """
    settings = RunOptions(warmup=False, **{"concurrency": 1, **options})
    return asyncio.run(arun_suite(big_suite(n), ScriptedModel(script(n)), options=settings))


def same(result: CaseResult) -> Any:
    """What must not depend on how a run was stored or resumed: verdict and record."""
    record = result.conversation
    assert record is not None
    steps = [[(s.raw_response, s.calls) for s in t.steps] for t in record.turns]
    return (
        result.case_id,
        result.status,
        result.score,
        record.passed,
        steps,
        record.initial_state,
        record.final_state,
    )
