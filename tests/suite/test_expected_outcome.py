"""The expected outcome of a turn or a case (`expect`, `missing`): format, checks, reading."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from toolgrade import SuiteError, load_suite, parse_suite
from toolgrade.suite import OUTCOMES, Case, Turn, expected_outcome

_TOOLS = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "day": {"type": "string"}},
            "required": ["city"],
        },
    },
    {
        "name": "get_quote",
        "parameters": {"type": "object", "properties": {"symbol": {"type": "string"}}},
    },
]
_PARIS = {"tool": "get_weather", "arguments": {"city": "Paris"}}


def _suite(*cases: dict[str, Any], version: int = 1) -> dict[str, Any]:
    return {"schema_version": version, "name": "outcomes", "tools": _TOOLS, "cases": list(cases)}


def _problems(tmp_path: Path, suite: dict[str, Any]) -> list[str]:
    """The problems of a suite file, each with its line (checked, then left out)."""
    path = tmp_path / "s.json"
    path.write_text(json.dumps(suite, indent=2), encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    prefix = f"{path}:"
    assert all(re.match(re.escape(prefix) + r"\d+: ", p) for p in info.value.problems)
    return [p[len(prefix) :].split(": ", 1)[1] for p in info.value.problems]


def test_outcomes_are_the_four_in_order() -> None:
    assert OUTCOMES == ("call", "clarify", "refuse", "answer")


def test_case_of_one_prompt_round_trips_its_outcome_in_its_own_shape() -> None:
    written = {
        "id": "W-1",
        "prompt": "What's the weather?",
        "expected": None,
        "expect": "clarify",
        "missing": ["city"],
    }
    suite = parse_suite(json.dumps(_suite(written)))
    case = suite.cases[0]
    assert case.single and case.turns[0].expect == "clarify"
    assert case.turns[0].missing == ("city",)
    entry = suite.to_dict()["cases"][0]
    assert "turns" not in entry and entry["prompt"] == "What's the weather?"
    assert (entry["expect"], entry["missing"]) == ("clarify", ["city"])
    again = parse_suite(json.dumps(suite.to_dict()))
    assert again == suite and again.content_hash == suite.content_hash


def test_conversation_turn_round_trips_its_outcome() -> None:
    conversation = {
        "id": "W-2",
        "turns": [
            {"user": "Weather, please", "expect": "clarify", "missing": ["city"]},
            {"user": "Paris", "expected": _PARIS, "expect": "call"},
            {"user": "And the meaning of life?", "expected": None, "expect": "answer"},
        ],
    }
    suite = parse_suite(json.dumps(_suite(conversation, version=2)))
    turns = suite.to_dict()["cases"][0]["turns"]
    assert [t.get("expect") for t in turns] == ["clarify", "call", "answer"]
    assert turns[0]["missing"] == ["city"] and "missing" not in turns[1]
    assert parse_suite(json.dumps(suite.to_dict())) == suite


def test_outcome_is_written_only_when_set_so_hashes_stay() -> None:
    plain = _suite({"id": "A", "prompt": "Paris weather", "expected": _PARIS})
    suite = parse_suite(json.dumps(plain))
    entry = suite.to_dict()["cases"][0]
    assert "expect" not in entry and "missing" not in entry
    stated = _suite({"id": "A", "prompt": "Paris weather", "expected": _PARIS, "expect": "call"})
    assert parse_suite(json.dumps(stated)).content_hash != suite.content_hash
    conversation = parse_suite(json.dumps(_suite({"id": "C", "turns": ["hi"]}, version=2)))
    assert conversation.to_dict()["cases"][0]["turns"] == [{"user": "hi"} | _turn_defaults()]


def _turn_defaults() -> dict[str, Any]:
    return {"alternatives": [], "max_steps": 10, "add_tools": []}


@pytest.mark.parametrize(
    ("case", "outcome"),
    [
        ({"expected": _PARIS}, "call"),
        ({"expected": None, "any_call": True}, "call"),
        ({"expected": _PARIS, "expect": "call"}, "call"),
        ({"expected": None}, None),
        ({"expected": [], "expect": "refuse"}, "refuse"),
        ({"expected": None, "expect": "answer"}, "answer"),
        ({"expected": None, "expect": "clarify", "missing": ["city"]}, "clarify"),
    ],
)
def test_expected_outcome_of_a_case(case: dict[str, Any], outcome: str | None) -> None:
    built = Case(id="c", prompt="p", **case)
    assert expected_outcome(built) == outcome
    assert expected_outcome(built.turns[0]) == outcome


def test_expected_outcome_of_turns_and_unchecked_turns() -> None:
    assert expected_outcome(Turn(user="hi")) is None  # calls unchecked: nothing stated
    assert expected_outcome(Turn(user="hi", expect="refuse")) == "refuse"
    conversation = Case(id="c", turns=["hi", {"user": "Paris", "expected": _PARIS}])
    assert [expected_outcome(t) for t in conversation.turns] == [None, "call"]
    with pytest.raises(ValueError, match="conversation"):
        expected_outcome(conversation)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"expected": None, "expect": "call"}, "expect is call, but the turn expects no call"),
        ({"expected": _PARIS, "expect": "refuse"}, "expect is refuse, but the turn expects a"),
        ({"expected": None, "any_call": True, "expect": "answer"}, "expects a call"),
        ({"expected": None, "alternatives": [_PARIS], "expect": "clarify"}, "expects a call"),
        ({"expected": None, "expect": "answer", "missing": ["city"]}, "missing is set"),
        ({"expected": None, "missing": ["city"]}, "missing is set"),
        ({"expected": None, "expect": "ask"}, "literal_error"),
    ],
)
def test_contradictions_are_refused_when_built_in_python(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError) as info:
        Case(id="c", prompt="p", **fields)
    shown = str(info.value) + " ".join(e["type"] for e in info.value.errors())
    assert message in shown
    with pytest.raises(ValidationError):
        Turn(user="u", **fields)


def test_validate_reports_each_outcome_problem_with_file_line_path_and_case(
    tmp_path: Path,
) -> None:
    suite = _suite(
        {"id": "a", "prompt": "Weather?", "expected": None, "expect": "clarify",
         "missing": ["town"]},
        {"id": "b", "prompt": "Paris?", "expected": _PARIS, "expect": "refuse"},
        {"id": "c", "prompt": "Hi", "expected": None, "expect": "call"},
        {"id": "d", "prompt": "Hi", "expected": None, "expect": "ask"},
        {"id": "e", "prompt": "Hi", "expected": None, "expect": "answer", "missing": ["city"]},
        {"id": "f", "prompt": "Hi", "tools": ["get_weather"], "expected": None,
         "expect": "clarify", "missing": ["symbol"]},
        {"id": "g", "prompt": "Hi", "tools": [], "expected": None, "expect": "clarify",
         "missing": ["city"]},
        {"id": "h", "prompt": "Hi", "expected": None, "missing": ["city"]},
        {"id": "i", "prompt": "Hi", "expected": None, "alternatives": [_PARIS],
         "expect": "refuse"},
        {"id": "j", "prompt": "Hi", "expected": None, "expect": "clarify",
         "missing": ["city", "city"]},
    )  # fmt: skip
    assert _problems(tmp_path, suite) == [
        "$.cases[3].expect (case d): 'ask' is not one of ['call', 'clarify', 'refuse', 'answer']",
        "$.cases[9].missing (case j): ['city', 'city'] has non-unique elements",
        "$.cases[0].missing[0] (case a): missing names 'town', not a parameter of any "
        "tool the case offers (tools: get_weather, get_quote)",
        "$.cases[1].expect (case b): expect is refuse, but a call is expected "
        "(expected must be null or [])",
        "$.cases[2].expect (case c): expect is call, but no call is expected "
        "(give expected calls or any_call)",
        "$.cases[4].missing (case e): missing is given, but expect is answer: "
        "missing goes with clarify only",
        "$.cases[5].missing[0] (case f): missing names 'symbol', which is not a "
        "parameter of 'get_weather', the tool the case offers",
        "$.cases[6].missing[0] (case g): missing names 'city', but the case offers no tool",
        "$.cases[7].missing (case h): missing is given, but no expect is given: "
        "missing goes with clarify only",
        "$.cases[8].expect (case i): expect is refuse, but a call is expected "
        "(expected must be null or [])",
    ]


def test_validate_checks_missing_against_the_tools_of_each_turn(tmp_path: Path) -> None:
    suite = _suite(
        {
            "id": "t",
            "tools": ["get_quote"],
            "turns": [
                {"user": "Weather?", "expect": "clarify", "missing": ["city"]},
                {"user": "Weather?", "add_tools": ["get_weather"], "expect": "clarify",
                 "missing": ["city"]},
                {"user": "Hmm", "expect": "call"},
            ],
        },
        version=2,
    )  # fmt: skip
    assert _problems(tmp_path, suite) == [
        "$.cases[0].turns[0].missing[0] (case t): missing names 'city', which is not "
        "a parameter of 'get_quote', the tool turn 1 offers",
        "$.cases[0].turns[2].expect (case t): expect is call, but no call is expected "
        "(give expected calls or any_call)",
    ]


def test_missing_may_name_a_parameter_of_a_case_own_tool() -> None:
    own = {"name": "book", "parameters": {"type": "object", "properties": {"date": {}}}}
    case = {"id": "o", "prompt": "Book it", "tools": [], "tool_definitions": [own],
            "expected": None, "expect": "clarify", "missing": ["date"]}  # fmt: skip
    suite = parse_suite(json.dumps(_suite(case)))
    assert suite.cases[0].turns[0].missing == ("date",)
