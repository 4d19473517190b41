"""`suite check` bounds a Python environment's code in time, as a run does.

A method that loops becomes a `timeout` problem after `--timeout` seconds (the suite is
refused, exit 2) instead of holding the command for ever.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import toolgrade
from conversation import stalls
from toolgrade._core.threads import BoundedPool
from toolgrade.judging._suite_check import check_conversations


def test_looping_method_is_a_timeout_problem(tmp_path: Path) -> None:
    suite = toolgrade.load_suite(str(stalls.write_looping_suite(tmp_path)))
    pool = BoundedPool(max_workers=1)
    started = time.monotonic()
    (problem,) = check_conversations(suite, base_dir=tmp_path, timeout=0.5, workers=pool)
    assert time.monotonic() - started < 3.0
    assert (problem.case_id, problem.kind, problem.warning) == ("C-1", "timeout", False)
    assert "took longer than 0.5 s" in problem.message
    assert pool.abandoned == 1
    # The runaway thread was stopped: the pool serves the next call at once.
    assert pool.call_sync(lambda: threading.active_count() > 0, timeout=1.0)


@pytest.mark.slow
def test_cli_suite_check_looping_environment_is_refused_within_the_timeout(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    path = stalls.write_looping_suite(tmp_path)
    env = {**os.environ, "TOOLGRADE_HOME": str(toolgrade_home)}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "toolgrade", "suite", "check", str(path), "--timeout", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert time.monotonic() - started < 15.0
    assert done.returncode == 2, done.stderr
    assert f"refused: {path} (1 problem)" in done.stderr
    assert "case C-1: the environment took longer than 1 s" in done.stderr
    assert "Traceback" not in done.stderr
