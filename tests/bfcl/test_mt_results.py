"""BFCL multi-turn result files -> toolgrade responses (one line per turn and step)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolgrade
from toolgrade.backends import ReplayRecord
from toolgrade.backends._replay import read_replay_file
from toolgrade.bfcl._mt_checker import call_text, check_multi_turn, entry_from_conversation
from toolgrade.bfcl._results import (
    EARLY_END,
    END_OF_TURN,
    NO_STEP,
    convert_multi_turn_result,
    is_multi_turn,
    read_bfcl_results,
    result_style,
)
from toolgrade.cli import app
from toolgrade.errors import InputError
from toolgrade.results import CaseResult
from toolgrade.suite import Conversation, Selection


def _where(lines: list[ReplayRecord]) -> list[tuple[int | None, int | None]]:
    return [(line.turn, line.step) for line in lines]


def test_fc_steps_become_messages_with_call_ids_per_turn_and_step() -> None:
    result = [
        [[{"cd": '{"folder": "docs"}'}, {"ls": {"a": True}}], [{"pwd": "{}"}], "Done."],
        [[{"mkdir": '{"dir_name": "x"}', "touch": '{"file_name": "y"}'}], []],
    ]
    lines = convert_multi_turn_result("multi_turn_base_3", result, [[1.5, 0.5, 0.25], [2, 1]])
    assert _where(lines) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    assert all(line.repeat == 0 and line.case_id == "multi_turn_base_3" for line in lines)
    first = lines[0].message
    assert first == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_0_0_0",
                "type": "function",
                "function": {"name": "cd", "arguments": '{"folder": "docs"}'},
            },
            {
                "id": "call_0_0_1",
                "type": "function",
                "function": {"name": "ls", "arguments": '{"a": true}'},
            },
        ],
    }
    assert lines[0].latency_ms == 1500.0 and lines[4].latency_ms == 1000.0
    # One object with two names: two calls, in order (BFCL's convert_to_function_call).
    assert lines[3].message is not None
    calls = lines[3].message["tool_calls"]
    assert isinstance(calls, list)
    assert [c["id"] for c in calls if isinstance(c, dict)] == ["call_1_0_0", "call_1_0_1"]
    # A text step of a function-calling model stays a message (BFCL's FC decoder drops
    # it), so the bfcl profile never reads it with the prompting decoder.
    assert lines[2].message == {"role": "assistant", "content": "Done."}
    assert lines[4].message == {"role": "assistant", "content": ""}
    assert all(line.output is None for line in lines)


def test_prompting_steps_become_outputs() -> None:
    result = [["[cd(folder='docs')]", "I changed the folder."], ["[ls(a=True)]", ""]]
    lines = convert_multi_turn_result("multi_turn_base_0", result)
    assert [line.output for line in lines] == [
        "[cd(folder='docs')]",
        "I changed the folder.",
        "[ls(a=True)]",
        "",
    ]
    assert all(line.message is None and line.note is None for line in lines)
    assert result_style([result]) == "prompting"


def test_inference_error_is_one_error_line() -> None:
    (line,) = convert_multi_turn_result("multi_turn_base_1", "Error during inference: 429")
    assert (line.turn, line.step, line.repeat) == (0, 0, 0)
    assert line.error == "Error during inference: 429"
    assert line.output is None and line.message is None
    (other,) = convert_multi_turn_result("multi_turn_base_1", {"x": 1})
    assert other.error == 'not a list of turns: {"x": 1}'


def test_fewer_turns_leave_later_turns_without_lines() -> None:
    # BFCL force-terminated this entry after its first turn: nothing stands for the
    # turns it never ran, so a replay ends with `no recorded response` at turn 1.
    lines = convert_multi_turn_result("multi_turn_base_2", [["[pwd()]", "ok"]])
    assert {line.turn for line in lines} == {0}
    assert convert_multi_turn_result("multi_turn_base_2", []) == []


def test_turn_without_steps_gets_one_empty_reply() -> None:
    fc = convert_multi_turn_result("multi_turn_miss_func_0", [[], [[{"ls": "{}"}], "x"]])
    assert fc[0].message == {"role": "assistant", "content": ""} and fc[0].note == NO_STEP
    text = convert_multi_turn_result("multi_turn_miss_func_0", [[], ["ok"]], style="prompting")
    assert (text[0].output, text[0].note, text[0].turn, text[0].step) == ("", NO_STEP, 0, 0)
    # A turn that is not a list: BFCL iterates it and decodes nothing from it.
    odd = convert_multi_turn_result("multi_turn_base_0", ["text", ["ok"]], style="prompting")
    assert (odd[0].output, odd[0].note) == ("", NO_STEP)


def test_steps_bfcl_cannot_decode_become_empty_replies_with_a_note() -> None:
    lines = convert_multi_turn_result("multi_turn_base_0", [[None, 5, ["a"], [{"ls": "{}"}]]])
    assert [line.note for line in lines[:3]] == [
        "BFCL recorded null",
        "BFCL recorded 5",
        'BFCL recorded ["a"]',
    ]
    assert all(line.message == {"role": "assistant", "content": ""} for line in lines[:3])
    prompting = convert_multi_turn_result("multi_turn_base_0", [[None]], style="prompting")
    assert (prompting[0].output, prompting[0].note) == ("", "BFCL recorded null")


def test_last_step_read_as_calls_gets_an_end_of_turn_reply() -> None:
    # BFCL's inference stopped at a step whose decoding failed (bad JSON) or at its step
    # limit; toolgrade may still read a call there, so the replay gets one empty step
    # more instead of running out of recorded steps.
    fc = convert_multi_turn_result("multi_turn_base_0", [[[{"ls": "{}"}]], ["bye"]])
    assert _where(fc) == [(0, 0), (0, 1), (1, 0)]
    assert fc[1].note == END_OF_TURN and fc[1].message == {"role": "assistant", "content": ""}
    # A prompting text toolgrade reads a call in, but BFCL did not decode.
    json_call = '```json\n{"name": "ls", "arguments": {}}\n```'
    text = convert_multi_turn_result("multi_turn_base_0", [[json_call]])
    assert _where(text) == [(0, 0), (0, 1)] and text[1].output == ""
    # Plain text holds no call: no extra step.
    assert len(convert_multi_turn_result("multi_turn_base_0", [["All done."]])) == 1
    # Invalid JSON arguments: toolgrade reads no call either, and the step stays raw.
    bad = convert_multi_turn_result("multi_turn_base_0", [[[{"ls": "{bad"}]]])
    assert len(bad) == 1 and bad[0].message is not None


def test_step_toolgrade_reads_no_call_in_before_the_last_is_noted(tmp_path: Path) -> None:
    # BFCL's prompting decoder reads `cd()` (the positional argument dropped) and goes on;
    # toolgrade reads no call, so the replay ends the turn at that step.
    steps = ['[cd("docs")]', "[ls(a=True)]", "ok"]
    lines = convert_multi_turn_result("multi_turn_base_0", [steps])
    assert [line.note for line in lines] == [EARLY_END, None, None]
    fc = [[{"ls": '{"a": NaN}'}], [{"pwd": "{}"}], "ok"]
    assert convert_multi_turn_result("multi_turn_base_0", [fc])[0].note == EARLY_END
    path = _write(tmp_path / "r.json", [{"id": "multi_turn_base_0", "result": [steps]}])
    assert read_bfcl_results(path).early_ends == 1


def test_multi_turn_detection() -> None:
    assert is_multi_turn("multi_turn_long_context_9", "Error during inference: x")
    assert is_multi_turn("custom_1", [["[f()]"]])
    assert not is_multi_turn("simple_python_0", [{"f": "{}"}])
    assert not is_multi_turn("irrelevance_0", [])
    assert result_style([[["text"], [[{"f": "{}"}]]]]) == "fc"
    assert result_style(["Error during inference: x", [["text"]]]) == "prompting"


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_file_conversion_round_trips_through_the_replay_reader(tmp_path: Path) -> None:
    rows: list[dict[str, object]] = [
        {"id": "multi_turn_base_0", "result": [[[{"ls": "{}"}], "ok"], [[{"pwd": "{}"}], None]]},
        # Text steps of an FC model: messages, because the file holds calls elsewhere.
        {"id": "multi_turn_base_1", "result": [["I cannot."]], "latency": [[0.1]]},
        {"id": "multi_turn_base_2", "result": "Error during inference: timeout"},
    ]
    source = _write(tmp_path / "BFCL_v4_multi_turn_base_result.json", rows)
    converted = read_bfcl_results(source)
    assert converted.multi_turn and converted.style == "fc"
    assert converted.lines == toolgrade.convert_bfcl_results(source)
    assert converted.lines[4].message == {"role": "assistant", "content": "I cannot."}
    out = tmp_path / "r.jsonl"
    out.write_text(
        "".join(line.model_dump_json(exclude_none=True) + "\n" for line in converted.lines),
        encoding="utf-8",
    )
    read = read_replay_file(out)
    assert [(r.turn, r.step) for r in read["multi_turn_base_0"]] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert read["multi_turn_base_2"][0].error == "Error during inference: timeout"
    command = converted.evaluate_command(out, "bfcl-mt.json")
    assert command == f"toolgrade evaluate --suite bfcl-mt.json --responses {out} --profile bfcl"
    prompting = read_bfcl_results(_write(tmp_path / "p.json", [rows[1]]))
    assert prompting.style == "prompting" and prompting.lines[0].output == "I cannot."
    assert prompting.evaluate_command("r.jsonl") == (
        "toolgrade run --suite SUITE.json --model replay/r.jsonl --profile bfcl --mode prompt"
    )
    forced = read_bfcl_results(source, style="prompting")
    assert forced.lines[1].output == "ok"


def test_single_turn_files_keep_one_line_per_entry(tmp_path: Path) -> None:
    rows: list[dict[str, object]] = [
        {"id": "simple_python_0", "result": "[f(a=1)]"},
        {"id": "parallel_0", "result": [{"f": '{"a": 1}'}]},
    ]
    converted = read_bfcl_results(_write(tmp_path / "s.json", rows))
    assert not converted.multi_turn and converted.style == "fc"
    assert _where(converted.lines) == [(None, None), (None, None)]
    assert "--mode" not in converted.evaluate_command("r.jsonl")


def test_bad_multi_turn_line_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"id": "multi_turn_base_0", "result": [[]]}\n{"id": 3}\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        read_bfcl_results(path)


# Replay: BFCL results re-judged by a run, against the checker on the raw results --------


@pytest.fixture(scope="module")
def base_suite() -> toolgrade.Suite:
    pytest.importorskip("bfcl_eval")
    pytest.importorskip("mpmath")
    return toolgrade.import_bfcl(["multi_turn_base"])


def _ground_truth(conversation: Conversation, *, drop_first_of: int | None = None) -> list[Any]:
    """BFCL's FC result of a model that makes the reference's calls, one step a turn."""
    assert conversation.reference is not None
    turns: list[Any] = []
    for index, reference in enumerate(conversation.reference):
        calls = [{c.name: json.dumps(c.arguments)} for c in reference.calls]
        if index == drop_first_of:
            calls = calls[1:]
        turns.append([*([calls] if calls else []), "Done."])
    return turns


def _replay(
    suite: toolgrade.Suite, rows: list[dict[str, Any]], tmp_path: Path
) -> dict[str, CaseResult]:
    responses = tmp_path / "r.jsonl"
    converted = read_bfcl_results(_write(tmp_path / "BFCL_v4_multi_turn_base_result.json", rows))
    responses.write_text(
        "".join(line.model_dump_json(exclude_none=True) + "\n" for line in converted.lines),
        encoding="utf-8",
    )
    picked = toolgrade.select_cases(suite, Selection(ids=tuple(str(r["id"]) for r in rows)))
    run = toolgrade.run_suite(
        picked, f"replay/{responses}", options=toolgrade.RunOptions(profile="bfcl")
    )
    return {r.case_id: r for r in run.results}


_CASES = {
    "correct": ("multi_turn_base_0", "correct"),
    "call dropped": ("multi_turn_base_1", "missed_call"),
    "empty first turn": ("multi_turn_base_4", "missed_call"),
    "inference error": ("multi_turn_base_3", "error"),
    "fewer turns": ("multi_turn_base_2", "step_limit"),
}


@pytest.mark.parametrize("name", list(_CASES))
def test_replayed_results_get_the_checkers_verdict_on_the_raw_results(
    base_suite: toolgrade.Suite, tmp_path: Path, name: str
) -> None:
    case_id, status = _CASES[name]
    conversation = next(c for c in base_suite.conversations if c.id == case_id)
    result: Any = {
        "correct": lambda: _ground_truth(conversation),
        "call dropped": lambda: _ground_truth(conversation, drop_first_of=0),
        "empty first turn": lambda: [[], *_ground_truth(conversation)[1:]],
        "inference error": lambda: "Error during inference: 503",
        "fewer turns": lambda: _ground_truth(conversation)[:2],
    }[name]()
    expected = check_multi_turn(entry_from_conversation(conversation), result, prompt_mode=False)
    replayed = _replay(base_suite, [{"id": case_id, "result": result}], tmp_path)[case_id]
    assert replayed.status.value == status
    assert replayed.conversation is not None
    failure = replayed.conversation.first_failure
    if expected.valid:
        assert failure is None
    else:
        assert failure is not None and failure.message is not None
        assert failure.message.startswith(f"{expected.error_type}:")


def test_cli_bfcl_results_prints_the_command_that_judges_again(tmp_path: Path) -> None:
    pytest.importorskip("bfcl_eval")
    pytest.importorskip("mpmath")
    runner = CliRunner()
    suite_path, responses = tmp_path / "bfcl-mt.json", tmp_path / "r.jsonl"
    imported = runner.invoke(
        app, ["import", "bfcl", "-c", "multi_turn_base", "-o", str(suite_path)]
    )
    assert imported.exit_code == 0, imported.output
    conversation = next(
        c for c in toolgrade.load_suite(suite_path).conversations if c.id == "multi_turn_base_0"
    )
    rows: list[dict[str, object]] = [
        {"id": "multi_turn_base_0", "result": _ground_truth(conversation)},
    ]
    results = _write(tmp_path / "BFCL_v4_multi_turn_base_result.json", rows)
    converted = runner.invoke(app, ["import", "bfcl-results", str(results), "-o", str(responses)])
    assert converted.exit_code == 0, converted.output
    steps = sum(len(turn) for turn in _ground_truth(conversation))
    assert f"{steps} steps of 1 multi-turn entries" in converted.output
    command = converted.output.splitlines()[-1].removeprefix("judge again: ").split()
    assert command[:2] == ["toolgrade", "evaluate"] and "--mode" not in command
    command = [str(suite_path) if part == "SUITE.json" else part for part in command]
    run = runner.invoke(app, [*command[1:], "--id", "multi_turn_base_0", "-q"])
    assert run.exit_code == 0, run.output
    (summary,) = toolgrade.list_runs(limit=1)
    stored = toolgrade.load_run_folder(summary.run_id)
    assert stored.profile == "bfcl"
    assert [(r.case_id, r.status.value) for r in stored.results] == [
        ("multi_turn_base_0", "correct")
    ]


def test_prompting_results_replayed_in_prompt_mode_pass(
    base_suite: toolgrade.Suite, tmp_path: Path
) -> None:
    conversation = next(c for c in base_suite.conversations if c.id == "multi_turn_base_0")
    assert conversation.reference is not None
    result = [
        [f"[{', '.join(call_text(c.name, c.arguments) for c in turn.calls)}]", "Done."]
        for turn in conversation.reference
    ]
    responses = tmp_path / "r.jsonl"
    rows: list[dict[str, object]] = [{"id": conversation.id, "result": result}]
    converted = read_bfcl_results(_write(tmp_path / "p.json", rows))
    assert converted.style == "prompting"
    responses.write_text(
        "".join(line.model_dump_json(exclude_none=True) + "\n" for line in converted.lines),
        encoding="utf-8",
    )
    picked = toolgrade.select_cases(base_suite, Selection(ids=(conversation.id,)))
    options = toolgrade.RunOptions(profile="bfcl", mode="prompt")
    run = toolgrade.run_suite(picked, f"replay/{responses}", options=options)
    assert [r.status.value for r in run.results] == ["correct"]
    # Judged again from the stored steps (no model), the text is still read as prompting.
    again = toolgrade.rescore_run(run, picked, profile="bfcl")
    assert [r.status.value for r in again.results] == ["correct"]
