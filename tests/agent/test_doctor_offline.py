"""`toolgrade doctor` on models without a server: an agent (`python/`) or a replay file.

There is nothing to probe: doctor says so, reports what it checked instead (the
responses file reads and parses; the module imports) and exits 0, or 2 when that check
fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from toolgrade.cli import app

AGENT = Path(__file__).resolve().parents[2] / "examples" / "agent"
runner = CliRunner()


def _doctor(spec: str) -> tuple[int, list[str]]:
    result = runner.invoke(app, ["doctor", "--model", spec])
    return result.exit_code, result.output.splitlines()


def _responses(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_doctor_replay_says_there_is_no_server_and_checks_the_file(tmp_path: Path) -> None:
    answer = json.dumps({"case_id": "c1", "output": "hi"})
    other = json.dumps({"case_id": "c2", "output": "hello"})
    path = _responses(tmp_path, answer, answer, other)
    code, lines = _doctor(f"replay/{path}")
    assert code == 0, lines
    assert lines == [
        f"[ok  ] responses file: {path}: readable, 3 answer lines for 2 cases"
        " (a case without one is reported as an error)",
        "[skip] server: a replay/ model has no server to probe: each case's answer is read"
        " from the file",
        f"replay/{path}: nothing to probe (no server): ready to run",
    ]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "cannot read file"),
        ('{"case_id": "c1"}', "line 1"),
        ("", "no answer in the file"),
    ],
    ids=["missing", "bad-line", "empty"],
)
def test_doctor_replay_unusable_file_fails_with_exit_2(
    tmp_path: Path, content: str | None, problem: str
) -> None:
    path = tmp_path / "responses.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    code, lines = _doctor(f"replay/{path}")
    assert code == 2, lines
    assert lines[0].startswith("[FAIL] responses file: ") and problem in lines[0], lines
    assert lines[1].startswith("[skip] server: a replay/ model has no server to probe")
    assert lines[-1].endswith(": fix the FAIL line above before a run")


def test_doctor_python_agent_checks_the_import_and_probes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(AGENT))
    code, lines = _doctor("python/file_agent:respond")
    assert code == 0, lines
    assert lines == [
        "[ok  ] module import: file_agent:respond imports; it is a callable",
        "[skip] server: a python/ model has no server to probe: the function is called"
        " in-process, once per case",
        "python/file_agent:respond: nothing to probe (no server): ready to run",
    ]


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("python/no_such_module_xyz:respond", "cannot import 'no_such_module_xyz'"),
        ("python/file_agent:no_such_function", "has no attribute 'no_such_function'"),
    ],
)
def test_doctor_python_agent_that_does_not_import_fails_with_exit_2(
    monkeypatch: pytest.MonkeyPatch, spec: str, problem: str
) -> None:
    monkeypatch.syspath_prepend(str(AGENT))
    code, lines = _doctor(spec)
    assert code == 2, lines
    assert lines[0].startswith("[FAIL] module import: ") and problem in lines[0], lines


def test_doctor_python_module_raising_on_import_is_a_fail_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken_agent_xyz.py").write_text("raise RuntimeError('no API key')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, lines = _doctor("python/broken_agent_xyz:respond")
    assert code == 2, lines
    assert lines[0] == (
        "[FAIL] module import: importing 'broken_agent_xyz:respond' raised RuntimeError: no API key"
    )


def test_diagnose_backend_offline_is_marked_and_never_probes(tmp_path: Path) -> None:
    path = _responses(tmp_path, json.dumps({"case_id": "c1", "output": "hi"}))
    diagnosis = toolgrade.diagnose_backend(f"replay/{path}")
    assert diagnosis.offline and diagnosis.exit_code == 0
    assert not any(c.name.endswith("probe") for c in diagnosis.checks)
