"""`import_when2call` and `toolgrade import when2call`: When2Call's JSONL -> cases.

The format is When2Call's published test data: github.com/NVIDIA/When2Call at commit
ecc8d42388e91ab37e7e737d48e16e8ecea3d1dc, README.md ("Data format") and
`data/test/when2call_test_llm_judge.jsonl` (300 lines: 100 each of `tool_call`,
`request_for_info` and `cannot_answer`; the README names `direct` as the fourth
category). Each line is a JSON object, with the keys in the order that file writes them:
`uuid`, `source`, `source_id`, `question`, `orig_question` (request_for_info),
`correct_answer`, `answers` (the four categories' replies; `tool_call` a call as a JSON
string), `target_tool` (a JSON string or null), `tools` (a list of BFCL function docs,
each a JSON string, `"type": "dict"`), `orig_tools` (cannot_answer), `held_out_param`
(request_for_info). `tests/data/when2call/when2call_sample.jsonl` is written in that
format (one line per category, a dotted tool name, BFCL's `float`, and an answer that
gives `year` as 2012 where the schema lists "2012" and leaves out a required argument,
as When2Call's answers sometimes do).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from toolgrade import InputError, import_when2call, load_suite
from toolgrade.bfcl import WHEN2CALL_OUTCOMES
from toolgrade.cli import app
from toolgrade.suite import OUTCOMES, expected_outcome

SAMPLE = Path(__file__).parents[1] / "data" / "when2call" / "when2call_sample.jsonl"


def test_each_category_becomes_its_outcome() -> None:
    suite = import_when2call(SAMPLE)
    assert suite.name == "when2call" and suite.schema_version == 1
    assert suite.categories == ("tool_call", "request_for_info", "cannot_answer", "direct")
    got = [(c.id, c.category, expected_outcome(c)) for c in suite.cases]
    assert got == [
        ("w2c-refuse-1", "cannot_answer", "refuse"),
        ("w2c-clarify-1", "request_for_info", "clarify"),
        ("w2c-call-1", "tool_call", "call"),
        ("w2c-call-2", "tool_call", "call"),
        ("w2c-answer-1", "direct", "answer"),
    ]
    assert tuple(WHEN2CALL_OUTCOMES.values()) == OUTCOMES


def test_case_offers_exactly_the_line_tools_as_bfcl_types_map() -> None:
    by_id = {c.id: c for c in import_when2call(SAMPLE).cases}
    clarify = by_id["w2c-clarify-1"]
    assert clarify.tools == () and clarify.tags == ("when2call",)
    assert [t.name for t in clarify.tool_definitions] == [
        "weather.get_forecast",
        "convert_currency",
    ]
    convert = clarify.tool_definitions[1].parameters
    assert convert["type"] == "object" and convert["properties"]["amount"]["type"] == "number"
    assert convert["required"] == ["amount", "from_currency", "to_currency"]
    assert clarify.prompt == "What will the weather be like tomorrow?"
    assert clarify.turns[0].missing == ("city",) and clarify.expects_no_call
    refuse = by_id["w2c-refuse-1"]
    assert [t.name for t in refuse.tool_definitions] == ["weather.get_forecast"]  # not orig_tools
    assert refuse.notes == "When2Call cannot_answer, from BFCL v2 Live Simple live_simple_1-1-0"


def test_tool_call_answer_is_the_expected_call() -> None:
    by_id = {c.id: c for c in import_when2call(SAMPLE).cases}
    (call,) = by_id["w2c-call-1"].expected
    assert call.name == "convert_currency"
    assert call.arguments == {"amount": 120.0, "from_currency": "USD", "to_currency": "EUR"}
    assert not by_id["w2c-call-1"].any_call


def test_answer_values_the_schema_refuses_are_expected_present_and_noted() -> None:
    case = {c.id: c for c in import_when2call(SAMPLE).cases}["w2c-call-2"]
    (call,) = case.expected
    assert call.arguments == {
        "album": "Halcyon",
        "year": {"$present": True},
        "explicit": {"$present": True},
    }
    assert case.notes is not None and "year, explicit: expected present" in case.notes


def test_written_suite_validates_and_loads_back_equal(tmp_path: Path) -> None:
    suite = import_when2call(SAMPLE, name="w2c-sample")
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite.to_dict(), indent=1), encoding="utf-8")
    loaded = load_suite(path)
    assert loaded.to_dict() == suite.to_dict() and loaded.content_hash == suite.content_hash


def test_cli_import_when2call_writes_a_loadable_suite(tmp_path: Path) -> None:
    out = tmp_path / "w2c.json"
    result = CliRunner().invoke(app, ["import", "when2call", str(SAMPLE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{out}: suite 'when2call', 5 cases (2 tool_call, 1 request_for_info, "
        "1 cannot_answer, 1 direct)\n"
    )
    assert len(toolgrade.load_suite(out).cases) == 5


def test_cli_import_when2call_bad_line_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"uuid": "x"\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["import", "when2call", str(bad), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert f"{bad}:line 1: not JSON" in result.output


def _line(**changes: object) -> str:
    entry = json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[2])  # w2c-call-1
    entry.update(changes)
    return json.dumps({k: v for k, v in entry.items() if v is not _DROP})


_DROP = object()
_WEATHER = json.loads(SAMPLE.read_text(encoding="utf-8").splitlines()[1])["tools"][0]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", "line 2: not a JSON object"),
        ('{"uuid": NaN}', "line 2: $.uuid: NaN is not a JSON number"),
        (_line(uuid=_DROP), "line 2: uuid: missing"),
        (_line(uuid="w2c-refuse-1"), "line 2 (case w2c-refuse-1): uuid: the same as line 1's"),
        (_line(correct_answer="maybe"), "correct_answer: 'maybe' is not one of tool_call, "),
        (_line(question=""), "(case w2c-call-1): question: not a non-empty string"),
        (_line(tools="none"), "tools: not a list"),
        (_line(tools=["{not json"]), "tools[0]: not JSON (Expecting property name"),
        (_line(tools=[_WEATHER, _WEATHER]), "tools[1]: a second tool named 'weather."),
        (_line(tools=['{"name": "a b"}']), "tools[0].name: not a tool name"),
        (_line(answers={"tool_call": '{"name": "nope"}'}), "answers.tool_call.name: 'nope' is"),
        (
            _line(answers={"tool_call": '{"name": "convert_currency", "arguments": []}'}),
            "answers.tool_call.arguments: not a JSON object",
        ),
        (
            _line(correct_answer="request_for_info", held_out_param="zip"),
            "held_out_param: 'zip' is no parameter of a tool offered (weather.get_forecast, ",
        ),
    ],
)
def test_bad_line_names_file_line_field_and_case(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "w2c.jsonl"
    first = SAMPLE.read_text(encoding="utf-8").splitlines()[0]
    path.write_text(f"{first}\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_when2call(path)
    assert str(info.value).startswith(f"{path}:line 2")
    assert message in str(info.value)


def test_tool_call_without_an_answer_expects_any_call(tmp_path: Path) -> None:
    path = tmp_path / "w2c.jsonl"
    path.write_text(_line(answers={"direct": "x"}) + "\n\n", encoding="utf-8")
    (case,) = import_when2call(path).cases
    assert case.any_call and case.expected == () and expected_outcome(case) == "call"


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no When2Call line"):
        import_when2call(path)
