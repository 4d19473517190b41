"""`toolgrade CMD | head -1`: a reader that goes away ends the command quietly.

Every command whose reader closes the pipe exits with 1, as click, rich and Python's own
advice on SIGPIPE do, and prints nothing: no "error: ... Broken pipe" (exit 2), no
traceback, no "Exception ignored" at the interpreter's exit. `run` and `evaluate` still
save the run and write their report files, and keep their own exit code.

Each case is run in a real process whose standard output is a pipe. Closing the pipe
before the command writes makes every write fail, so the test is deterministic whatever
the output's size; reading one line first exercises a write that fails halfway through
a large output.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # subprocesses, servers or corpora: `make test` runs it

REAL = Path(__file__).resolve().parent.parent / "data" / "real"
PIPE_CLOSED = 1


def _start(args: list[str], home: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TOOLGRADE_HOME": str(home), "COLUMNS": "80"}
    return subprocess.Popen(
        [sys.executable, "-m", "toolgrade", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def _closed_at_once(args: list[str], home: Path) -> tuple[int, str]:
    with _start(args, home) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        err = process.stderr.read().decode()
        return process.wait(timeout=60), err


def _closed_after_a_line(args: list[str], home: Path) -> tuple[int, str, bytes]:
    with _start(args, home) as process:
        assert process.stdout is not None and process.stderr is not None
        line = process.stdout.readline()
        process.stdout.close()
        err = process.stderr.read().decode()
        return process.wait(timeout=60), err, line


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A history holding one run of recorded conversations (a large JSON report)."""
    path = tmp_path_factory.mktemp("home")
    suite, responses = REAL / "conversations-suite.json", REAL / "conversations.jsonl"
    args = ["evaluate", "--suite", str(suite), "--responses", str(responses), "-q"]
    done = subprocess.run(
        [sys.executable, "-m", "toolgrade", *args],
        env={**os.environ, "TOOLGRADE_HOME": str(path)},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return path


@pytest.fixture(scope="module")
def run_id(home: Path) -> str:
    (folder,) = (home / "runs").iterdir()
    return folder.name


COMMANDS = {
    "suite-show": ["suite", "show", "coding-agent"],
    "report-json": ["report", "RUN", "--format", "json"],
    "report-text": ["report", "RUN"],
    "root-help": ["--help"],
    "command-help": ["report", "--help"],
    "version": ["--version"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_cli_reader_gone_before_output_exits_quietly(name: str, home: Path, run_id: str) -> None:
    code, err = _closed_at_once([run_id if a == "RUN" else a for a in COMMANDS[name]], home)
    assert err == ""
    assert code == PIPE_CLOSED


def test_cli_reader_gone_after_one_line_of_large_report_exits_quietly(
    home: Path, run_id: str
) -> None:
    for _ in range(2):
        code, err, line = _closed_after_a_line(["report", run_id, "--format", "json"], home)
        assert line.startswith(b"{")
        assert err == ""
        # 0 when the system let the large write through before the pipe closed.
        assert code in (0, PIPE_CLOSED)


def test_cli_evaluate_reader_gone_still_saves_and_writes_reports(
    home: Path, run_id: str, tmp_path: Path
) -> None:
    suite, responses = REAL / "conversations-suite.json", REAL / "conversations.jsonl"
    junit = tmp_path / "out.xml"
    before = set((home / "runs").iterdir())
    args = ["evaluate", "--suite", str(suite), "--responses", str(responses)]
    code, err = _closed_at_once([*args, "--report", f"junit={junit}"], home)
    assert "Broken pipe" not in err and "Traceback" not in err
    assert "run " in err and " saved" in err
    assert code == 0
    assert junit.read_text(encoding="utf-8").startswith("<?xml")
    assert len(set((home / "runs").iterdir()) - before) == 1
