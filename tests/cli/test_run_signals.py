"""Ctrl-C and SIGTERM stop `run` and `evaluate` at once, even while a reader loops."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runner import loopy

pytestmark = pytest.mark.slow  # subprocesses, servers or corpora: `make test` runs it

ROOT = Path(__file__).resolve().parents[2]

# The command line, with an extractor that spins on the `LOOP` output (a stand-in for
# a reader that never returns).
DRIVER = """
import sys
from pathlib import Path

sys.path.insert(0, {tests!r})
from runner import loopy
import toolgrade.runner._reading as reading

reading.extract_calls = loopy.Spinner(Path(sys.argv[1]))
from toolgrade.cli import main

sys.argv = ["toolgrade", *sys.argv[2:]]
main()
"""

SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT")]
if sys.platform != "win32":
    SIGNALS.append(pytest.param(signal.SIGTERM, id="SIGTERM"))


@pytest.mark.skipif(sys.platform == "win32", reason="no portable way to send Ctrl-C to a child")
@pytest.mark.parametrize("sig", SIGNALS)
@pytest.mark.parametrize("command", ["run", "evaluate"])
def test_signal_stops_a_run_stuck_in_a_looping_reader(
    tmp_path: Path, toolgrade_home: Path, sig: signal.Signals, command: str
) -> None:
    suite = loopy.write_suite(tmp_path)
    responses = loopy.write_responses(tmp_path)  # T-2 loops
    marker = tmp_path / "spinning"
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER.format(tests=str(ROOT / "tests")), encoding="utf-8")
    source = (
        ["--model", f"replay/{responses}"] if command == "run" else ["--responses", str(responses)]
    )
    args = [
        sys.executable, str(driver), str(marker), command, "--suite", str(suite), *source,
        "--concurrency", "1", "--timeout", "120", "--quiet",
    ]  # fmt: skip
    env = {**os.environ, "TOOLGRADE_HOME": str(toolgrade_home)}
    child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the looping case never started"
            time.sleep(0.02)
        child.send_signal(sig)
        sent = time.monotonic()
        try:
            _, err = child.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            pytest.fail(f"{sig.name} did not stop the run within 10 s")
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    stderr = err.decode()
    assert took < 2.0, stderr
    assert child.returncode == 130, stderr
    assert "toolgrade run --resume" in stderr
    (results,) = (toolgrade_home / "runs").glob("*/results.jsonl")
    kept = [json.loads(line)["case_id"] for line in results.read_text("utf-8").splitlines()]
    assert kept == ["T-0", "T-1"]
    manifest = json.loads((results.parent / "run.json").read_text("utf-8"))
    assert manifest["run"]["status"] == "interrupted"
