"""A responses file that gives `repeat` on some lines of a case only names the right lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolgrade.backends._replay import read_replay_file
from toolgrade.errors import InputError


@pytest.mark.parametrize(
    ("lines", "given", "missing"),
    [
        (['{"case_id": "a", "output": "x", "repeat": 0}', '{"case_id": "a", "output": "y"}'], 1, 2),
        (['{"case_id": "a", "output": "x"}', '{"case_id": "a", "output": "y", "repeat": 1}'], 2, 1),
    ],
)
def test_mixed_repeat_lines_name_the_line_that_gives_it(
    tmp_path: Path, lines: list[str], given: int, missing: int
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_replay_file(path)
    assert f"line {given} gives it, line {missing} does not" in str(caught.value)
