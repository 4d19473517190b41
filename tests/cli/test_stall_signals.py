"""Ctrl-C and SIGTERM stop a command within 2 s wherever it waits.

`run` waiting on a warm-up the server never answers, `evaluate` stuck in a Python
environment's method that loops, and `suite check` replaying such an environment
(`tests/cli/test_run_signals.py` covers a looping reader).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conversation import stalls
from runner import loopy
from runner.stallserver import StallServer

SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT")]
if sys.platform != "win32":
    SIGNALS.append(pytest.param(signal.SIGTERM, id="SIGTERM"))

pytestmark = [
    pytest.mark.slow,  # subprocesses: `make test` runs them
    pytest.mark.skipif(sys.platform == "win32", reason="no portable way to send Ctrl-C to a child"),
]


def _stop_when(
    args: list[str], home: Path, ready: Callable[[], bool], sig: signal.Signals
) -> tuple[int, str, float]:
    """Start the command, send `sig` once `ready()`; its exit code, stderr and stop time."""
    env = {**os.environ, "TOOLGRADE_HOME": str(home)}
    command = [sys.executable, "-m", "toolgrade", *args]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 60
        while not ready():
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the command never reached the stall"
            time.sleep(0.02)
        time.sleep(0.2)  # well inside the stall
        child.send_signal(sig)
        sent = time.monotonic()
        try:
            _, err = child.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            pytest.fail(f"{sig.name} did not stop the command within 10 s")
        return child.returncode, err.decode(), time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()


@pytest.mark.parametrize("sig", SIGNALS)
def test_signal_stops_run_during_a_stalled_warmup(
    tmp_path: Path, toolgrade_home: Path, sig: signal.Signals
) -> None:
    suite = loopy.write_suite(tmp_path)
    with StallServer() as server:
        args = [
            "run", "--suite", str(suite), "--model", "openai/m", "--base-url",
            server.openai_url, "--timeout", "30",
        ]  # fmt: skip
        code, err, took = _stop_when(args, toolgrade_home, lambda: server.posts >= 1, sig)
    assert took < 2.0, err
    assert code == 130, err
    assert "toolgrade run --resume" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("sig", SIGNALS)
def test_signal_stops_evaluate_stuck_in_a_looping_environment(
    tmp_path: Path, toolgrade_home: Path, sig: signal.Signals
) -> None:
    suite = stalls.write_looping_suite(tmp_path, swallow=True)
    responses = stalls.write_looping_responses(tmp_path)
    marker = tmp_path / "looping"
    args = ["evaluate", "--suite", str(suite), "--responses", str(responses), "--quiet"]
    code, err, took = _stop_when(args, toolgrade_home, marker.exists, sig)
    assert took < 2.0, err
    assert code == 130, err
    assert "Traceback" not in err


@pytest.mark.parametrize("sig", SIGNALS)
def test_signal_stops_suite_check_in_a_looping_environment(
    tmp_path: Path, toolgrade_home: Path, sig: signal.Signals
) -> None:
    suite = stalls.write_looping_suite(tmp_path, swallow=True)
    marker = tmp_path / "looping"
    code, err, took = _stop_when(["suite", "check", str(suite)], toolgrade_home, marker.exists, sig)
    assert took < 2.0, err
    if sig == signal.SIGINT:
        assert code == 130, err
        assert "interrupted: suite check stopped" in err
        assert "Traceback" not in err
    else:
        assert code != 0
