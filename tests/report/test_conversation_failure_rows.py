"""A failed conversation's row in the HTML failure table, from a real replayed run.

The row pairs each turn's calls as that turn was judged (`Turn 1: correct`, never the
positional `unpaired`) and shows every step's raw output, titled by turn and step (never
"none recorded": a conversation keeps its raw output in its steps).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import toolgrade
from toolgrade.report._diff import pair_views

REAL = Path(__file__).resolve().parent.parent / "data" / "real"
_OPTIONS = toolgrade.RunOptions(warmup=False)


def _replay(tmp_path: Path, suite: toolgrade.Suite, lines: list[dict[str, object]]) -> str:
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = toolgrade.run_suite(suite, f"replay/{responses}", options=_OPTIONS)
    return toolgrade.render_report(run, "html")


def _row(html: str, case_id: str) -> str:
    """The case's rows of the failure table, up to the next case or the table's end."""
    start = html.index(f'<tbody class="case" data-name="{case_id}"')
    ends = [html.find(mark, start + 1) for mark in ('<tbody class="case"', "</section>")]
    return html[start : min(e for e in ends if e > 0)]


def _headers(row: str) -> list[str]:
    return re.findall(r'<table class="pair v-[a-z_]+">\n<thead><tr><th>([^<]*)</th>', row)


def test_html_conversation_row_pairs_exact_match_by_turn_and_shows_raw_steps(
    tmp_path: Path,
) -> None:
    # Turn 1 reads the file exactly as the reference does; turn 2 makes no edit.
    suite = toolgrade.load_suite("coding-agent-multiturn")
    suite = suite.model_copy(
        update={"cases": tuple(c for c in suite.cases if c.id == "MT-EDIT-01")}
    )
    call = {"name": "read_file", "arguments": json.dumps({"path": "src/invoicer/config.py"})}
    tool_call = {"id": "c0", "type": "function", "function": call}
    lines: list[dict[str, object]] = [
        {"case_id": "MT-EDIT-01", "turn": 0, "step": 0,
         "message": {"role": "assistant", "content": None, "tool_calls": [tool_call]}},
        {"case_id": "MT-EDIT-01", "turn": 0, "step": 1,
         "message": {"role": "assistant", "content": "DEFAULT_TIMEOUT is 30 seconds."}},
        {"case_id": "MT-EDIT-01", "turn": 1, "step": 0,
         "message": {"role": "assistant", "content": "I have set it to 60."}},
    ]  # fmt: skip
    row = _row(_replay(tmp_path, suite, lines), "MT-EDIT-01")
    assert _headers(row) == ["Turn 1: correct", "Turn 2: missed"]
    assert "unpaired" not in row
    assert "none recorded" not in row
    raw = row[row.index("<h3>Raw output</h3>") :]
    assert re.findall(r'<div class="raw-step"><h4>([^<]*)</h4>', raw) == [
        "Turn 1, step 1",
        "Turn 1, step 2",
        "Turn 2, step 1",
    ]
    assert "read_file(path=&#34;src/invoicer/config.py&#34;)" in raw
    assert "DEFAULT_TIMEOUT is 30 seconds." in raw and "I have set it to 60." in raw


def test_html_conversation_row_of_recorded_model_marks_differing_argument() -> None:
    # The recorded small model (teacher-forced) moves the file by absolute paths, then
    # loops: the move is paired with the expected one, its paths marked as differing.
    suite = toolgrade.load_suite(REAL / "conversations-suite.json")
    suite = suite.model_copy(
        update={"cases": tuple(c for c in suite.cases if c.id == "MT-REFACTOR-02")}
    )
    options = toolgrade.RunOptions(teacher_forcing=True, warmup=False)
    run = toolgrade.run_suite(
        suite, f"replay/{REAL / 'conversations-forced.jsonl'}", options=options
    )
    (result,) = run.results
    views = pair_views(result)
    assert [(v.turn_number, v.verdict) for v in views] == [
        (1, "wrong_args"),
        (1, "missed"),
        (1, "extra"),
        (1, "extra"),
        (1, "extra"),
        (1, "extra"),
    ]
    assert [(r.key, r.state) for r in views[0].rows] == [
        ("source", "differs"),
        ("destination", "differs"),
    ]
    row = _row(toolgrade.render_report(run, "html"), "MT-REFACTOR-02")
    assert row.count('<div class="raw-step">') == 6
    assert "/src/invoicer/utils.py" in row[row.index("<h3>Raw output</h3>") :]


def test_html_conversation_row_step_without_answer_says_why() -> None:
    suite = toolgrade.load_suite(REAL / "conversations-suite.json")
    suite = suite.model_copy(update={"cases": tuple(c for c in suite.cases if c.id == "MT-API-01")})
    run = toolgrade.run_suite(suite, f"replay/{REAL / 'conversations.jsonl'}", options=_OPTIONS)
    row = _row(toolgrade.render_report(run, "html"), "MT-API-01")
    assert "<h4>Turn 1, step 1</h4>" in row
    assert "<em>no answer: no recorded response" in row
