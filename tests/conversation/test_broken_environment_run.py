"""A conversation whose Python environment cannot be built fails the run (exit 2), up front.

Its module fails to import, or its constructor raises: that is the suite's fault, so
`run` and `evaluate` stop before anything is sent, with one line naming the suite, the
case and the reason — even when other cases of the suite could be scored (such a run
once ended with exit code 0, the environment's failure buried in the report).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import toolgrade

PROMPT_ANSWER = '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>'
MODULES = {
    "import": 'raise ImportError("this module cannot be loaded")\n',
    "constructor": (
        "class Env:\n"
        "    def __init__(self, **state):\n"
        '        raise ValueError("constructor refuses")\n'
    ),
}


def _write(folder: Path, kind: str) -> tuple[Path, Path]:
    (folder / "brokenenv.py").write_text(MODULES[kind], encoding="utf-8")
    read = {"name": "read_file", "arguments": {"path": "a.txt"}}
    data = {
        "schema_version": 2,
        "name": "mixed",
        "tools": [{"name": "read_file", "parameters": {"type": "object"}}],
        "environments": {"ws": {"kind": "python", "class": "brokenenv:Env"}},
        "cases": [
            {
                "id": "P-1",
                "prompt": "read a",
                "expected": {"name": "read_file", "arguments": {"path": "a"}},
            },
            {
                "id": "C-1",
                "environment": "ws",
                "initial_state": {},
                "turns": [{"user": "Read a.txt", "expected": [read]}],
            },
        ],
    }
    suite = folder / "suite.json"
    suite.write_text(json.dumps(data), encoding="utf-8")
    responses = folder / "responses.jsonl"
    lines = [
        {"case_id": "P-1", "output": PROMPT_ANSWER},
        {"case_id": "C-1", "turn": 0, "step": 0, "output": "hi"},
    ]
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return suite, responses


@pytest.mark.parametrize("kind", sorted(MODULES))
def test_cli_evaluate_broken_environment_exits_2_naming_the_case(
    tmp_path: Path, toolgrade_home: Path, kind: str
) -> None:
    suite, responses = _write(tmp_path, kind)
    env = {**os.environ, "TOOLGRADE_HOME": str(toolgrade_home)}
    args = ["evaluate", "--suite", str(suite), "--responses", str(responses), "--quiet"]
    done = subprocess.run(
        [sys.executable, "-m", "toolgrade", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {suite} (case C-1): environment 'ws' cannot be built: ")
    assert ("ImportError" if kind == "import" else "constructor refuses") in line
    assert not (toolgrade_home / "runs").exists()  # nothing was run


def test_library_run_raises_suite_error_before_creating_a_folder(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    suite_file, responses = _write(tmp_path, "constructor")
    suite = toolgrade.load_suite(str(suite_file))
    options = toolgrade.RunOptions(suite_source=str(suite_file))
    with pytest.raises(toolgrade.SuiteError, match="constructor refuses") as info:
        toolgrade.run_suite(suite, f"replay/{responses}", options=options, handle_signals=False)
    assert info.value.case_id == "C-1"
    assert not (toolgrade_home / "runs").exists()


def test_environment_that_loops_while_built_is_bounded(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    suite_file, responses = _write(tmp_path, "constructor")
    looping = (
        "class Env:\n    def __init__(self, **state):\n        while True:\n            pass\n"
    )
    (tmp_path / "brokenenv.py").write_text(looping, encoding="utf-8")
    suite = toolgrade.load_suite(str(suite_file))
    options = toolgrade.RunOptions(suite_source=str(suite_file), timeout=0.5)
    started = time.monotonic()
    with pytest.raises(toolgrade.SuiteError, match=r"took longer than 0\.5 s to build"):
        toolgrade.run_suite(suite, f"replay/{responses}", options=options, handle_signals=False)
    assert time.monotonic() - started < 5.0
