"""A stopped worker makes no traced thread spin: the pool under coverage and `settrace`.

Users run their agent tests under pytest-cov. On CPython 3.11 a stop order left pending
(by a thread blocked in a C call) or cleared with `PyThreadState_SetAsyncExc(id, NULL)`
made every traced thread loop at its next function entry: the event loop spun, holding
the interpreter, for as long as the order was pending, or for ever. Each scenario runs in
a child process under a real tracer, bounded by a hard timeout, so a hang fails the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("traced_pool.py")
HARD_TIMEOUT = 60.0
TRACERS = [
    "coverage",
    "settrace",
    pytest.param(
        "monitoring",
        marks=pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring: 3.12+"),
    ),
]


def _child(tmp_path: Path, scenario: str, tracer: str) -> dict[str, object]:
    # The child's coverage is its own: no settings or data of a coverage run around this one.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COV_", "COVERAGE_"))}
    if tracer == "coverage":
        rcfile = tmp_path / "coveragerc"
        rcfile.write_text("[run]\nbranch = True\n", encoding="utf-8")
        command = [
            sys.executable,
            "-m",
            "coverage",
            "run",
            f"--rcfile={rcfile}",
            f"--data-file={tmp_path / '.coverage'}",
            str(SCRIPT),
            scenario,
        ]
    else:
        command = [sys.executable, str(SCRIPT), scenario, f"--{tracer}"]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=HARD_TIMEOUT, env=env, cwd=tmp_path
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{scenario} under {tracer}: still running after {HARD_TIMEOUT:g} s (a hang)")
    assert done.returncode == 0, done.stderr
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    assert measured["traced"], "the child ran without a tracer: it tests nothing"
    return measured


@pytest.mark.slow
@pytest.mark.parametrize("tracer", TRACERS)
@pytest.mark.parametrize("scenario", ["overrun", "cancelled", "sync"])
def test_stopping_a_runaway_under_a_tracer_neither_hangs_nor_spins(
    tmp_path: Path, scenario: str, tracer: str
) -> None:
    measured = _child(tmp_path, scenario, tracer)
    assert measured["raised_s"] < 2.0, measured
    assert measured["next_call_s"] < 2.0, measured
    assert measured["stopped"], f"the runaway thread kept running: {measured}"
    assert measured["after_s"] < 5.0, measured


@pytest.mark.slow
@pytest.mark.parametrize("tracer", TRACERS)
def test_a_worker_blocked_in_c_does_not_stall_a_traced_event_loop(
    tmp_path: Path, tracer: str
) -> None:
    # The call sleeps 1.2 s in C, then loops: the timeout (0.2 s) comes first, and the
    # event loop must go on at once, not when the sleep returns; the thread is still
    # stopped once it runs Python again.
    measured = _child(tmp_path, "blocked", tracer)
    assert measured["raised_s"] < 1.0, measured
    assert measured["next_call_s"] < 1.0, measured
    assert measured["stopped"], f"the runaway thread kept running: {measured}"
    assert measured["after_s"] < 5.0, measured
