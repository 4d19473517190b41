"""A responses line no request of the run reads is refused before the run: the file and lines.

docs/reliability.md promises that "a second answer for one case and repeat" and "a
`repeat` that no case uses" are refused (exit 2). A case's lines without `repeat`
answer repeats 0, 1, ... in order: with `--repeat 1`, a second such line is a
duplicate answer, which used to be accepted silently (exit 0), as was `"repeat": 5`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.backends import BackendSettings
from toolgrade.backends._replay import ReplayBackend
from toolgrade.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "examples" / "sample-responses.jsonl"
FIRST = json.loads(SAMPLES.read_text(encoding="utf-8").splitlines()[0])  # TC-001


def _file(tmp_path: Path, *lines: dict[str, object]) -> Path:
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _refusal(path: Path, repeat: int) -> str:
    with pytest.raises(InputError) as caught:
        ReplayBackend(str(path), BackendSettings()).check_repeat(repeat)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_second_line_without_repeat_is_a_duplicate_for_one_repeat(tmp_path: Path) -> None:
    path = _file(tmp_path, FIRST, {"case_id": "TC-002", "output": "x"}, FIRST)
    assert _refusal(path, 1) == (
        f"{path}:line 3: a second answer to case 'TC-001' (first at line 1): lines without"
        " 'repeat' answer repeats 0, 1, ... in order, and the run repeats each case once"
        " (--repeat 1)"
    )
    ReplayBackend(str(path), BackendSettings()).check_repeat(2)  # two repeats: both used


def test_third_line_without_repeat_names_the_earlier_lines(tmp_path: Path) -> None:
    path = _file(tmp_path, FIRST, FIRST, FIRST)
    message = _refusal(path, 2)
    assert message.startswith(f"{path}:line 3: answer 3 to case 'TC-001' (after lines 1, 2)")
    assert message.endswith("the run repeats each case 2 times (repeats 0 to 1) (--repeat 2)")


def test_repeat_no_case_uses_is_refused(tmp_path: Path) -> None:
    path = _file(tmp_path, {**FIRST, "repeat": 0}, {**FIRST, "repeat": 5})
    assert _refusal(path, 1) == (
        f"{path}:line 2: case 'TC-001' repeat 5: no case uses it: the run repeats each case"
        " once (--repeat 1)"
    )
    ReplayBackend(str(path), BackendSettings()).check_repeat(6)


def test_conversation_step_of_an_unused_repeat_is_refused(tmp_path: Path) -> None:
    step = {"case_id": "conv", "output": "hi", "turn": 0, "step": 0}
    path = _file(tmp_path, step, {**step, "repeat": 1})
    assert _refusal(path, 1) == (
        f"{path}:line 2: case 'conv' repeat 1 turn 0 step 0: no case uses repeat 1: the run"
        " repeats each case once (--repeat 1)"
    )


def test_file_answering_exactly_the_run_is_accepted(tmp_path: Path) -> None:
    backend = ReplayBackend(str(SAMPLES), BackendSettings())
    backend.check_repeat(1)
    path = _file(tmp_path, {**FIRST, "repeat": 1}, {**FIRST, "repeat": 0})
    ReplayBackend(str(path), BackendSettings()).check_repeat(2)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([FIRST, FIRST], "line 2: a second answer to case 'TC-001' (first at line 1)"),
        ([FIRST, {**FIRST, "repeat": 7}], "line 2: case 'TC-001': give 'repeat' on every line"),
        ([{**FIRST, "repeat": 0}, {**FIRST, "repeat": 7}], "line 2: case 'TC-001' repeat 7"),
    ],
    ids=["duplicate", "mixed", "unused-repeat"],
)
def test_cli_evaluate_refuses_the_file_with_exit_2(
    tmp_path: Path, toolgrade_home: Path, lines: list[dict[str, object]], expected: str
) -> None:
    """The trial: both files were accepted with exit 0 (and the run saved)."""
    from toolgrade.cli import app

    path = _file(tmp_path, *lines)
    args = ["evaluate", "--suite", "coding-agent", "--responses", str(path), "--id", "TC-001"]
    result = CliRunner().invoke(app, [*args, "-q"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {path}:{expected}"), result.stderr
    assert result.stderr.count("\n") == 1
    assert not list((toolgrade_home / "runs").glob("*/run.json"))  # nothing ran
