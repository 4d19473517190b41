"""score_calls: classification, pairing, scores and errors."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from toolgrade import AccuracyScore, CallPair, InputError, ToolCall, score_calls
from toolgrade.calls import as_calls

CASES = json.loads((Path(__file__).parent / "data" / "calls" / "cases.json").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_score_calls_data_case_matches_expectation(case: dict[str, Any]) -> None:
    result = score_calls(case["expected"], case["actual"], order=case.get("order", "any"))
    assert result.score == case["score"]
    assert len(result.correct) == case["correct"]
    assert len(result.incorrect) == case["incorrect"]
    assert len(result.missed) == case["missed"]
    assert len(result.extra) == case["extra"]
    if "summary" in case:
        assert result.summary == case["summary"]


def test_score_calls_tpmjs_example_to_dict_has_exact_schema() -> None:
    case = CASES[0]
    out = score_calls(case["expected"], case["actual"]).to_dict()
    assert list(out) == [
        "score",
        "totalExpected",
        "totalActual",
        "correctCalls",
        "incorrectCalls",
        "missedCalls",
        "extraCalls",
        "summary",
        "precision",
        "recall",
        "f1",
    ]
    assert out["score"] == 0.4
    assert out["precision"] == pytest.approx(1 / 3)
    assert out["recall"] == pytest.approx(1 / 2)
    assert out["correctCalls"] == [
        {
            "expected": {"tool": "searchWeb", "args": {"query": "AI news"}},
            "actual": {"tool": "searchWeb", "args": {"query": "AI news"}},
            "status": "correct",
            "argsMatch": True,
        }
    ]
    incorrect = out["incorrectCalls"][0]
    assert incorrect["status"] == "incorrect" and incorrect["argsMatch"] is False
    assert incorrect["details"] == '$.text: expected "long article...", got "different text"'
    assert out["extraCalls"] == [{"tool": "translateText", "args": {"text": "hello", "to": "es"}}]
    assert out["missedCalls"] == []


def test_score_calls_missed_call_has_details() -> None:
    out = score_calls([{"name": "summarize", "args": {}}], []).to_dict()
    assert out["missedCalls"] == [
        {
            "expected": {"tool": "summarize", "args": {}},
            "status": "missed",
            "argsMatch": False,
            "details": "No call to 'summarize' was made to match this expected call",
        }
    ]


def test_score_calls_incorrect_details_name_missing_and_unexpected_paths() -> None:
    result = score_calls(
        [{"name": "f", "arguments": {"a": {"b": [1, 2]}, "c": 1}}],
        [{"name": "f", "arguments": {"a": {"b": [1, 3]}, "d": True}}],
    )
    assert result.incorrect[0].details == (
        "$.a.b[1]: expected 2, got 3; $.c: missing (expected 1); "
        "$.d: unexpected argument (got true)"
    )


def test_score_calls_rounds_half_up() -> None:
    # 1 correct of 16 expected and 16 actual: F1 = 1/16 = 0.0625 exactly (a binary fraction),
    # so half-up gives 0.063 where round-half-even would give 0.062; 6.25% shows as 6.3%.
    exp = [{"name": f"t{i}"} for i in range(16)]
    act = [{"name": "t0"}] + [{"name": "x"}] * 15
    result = score_calls(exp, act)
    assert result.f1 == 0.0625
    assert result.score == 0.063
    assert result.summary.startswith("Accuracy Score: 6.3% |")


def test_score_calls_accepts_toolcall_objects() -> None:
    call = ToolCall(name="read_file", arguments={"path": "a"})
    assert score_calls([call], [call.to_dict()]).score == 1.0


def test_score_calls_returns_unrounded_precision_recall() -> None:
    result = score_calls([{"name": "a"}, {"name": "b"}, {"name": "c"}], [{"name": "a"}])
    assert isinstance(result, AccuracyScore)
    assert result.precision == 1.0
    assert result.recall == pytest.approx(1 / 3)
    assert result.f1 == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("expected", "actual", "message"),
    [
        ({"name": "a"}, [], "expected: must be a list of calls, got an object"),
        ([], "abc", "actual: must be a list of calls, got str"),
        ([], None, "actual: must be a list of calls, got null"),
        ([1], [], "expected[0]: a call must be an object, got int"),
        ([], [{"name": "a"}, ["b"]], "actual[1]: a call must be an object, got an array"),
        ([{"args": {}}], [], "expected[0]: call has no name (give 'name' or 'tool')"),
        ([], [{"tool": 3}], "actual[0]: call name must be a string, got int"),
        ([{"name": " "}], [], "expected[0]: call name is empty"),
        ([{"name": "a", "args": [1]}], [], "expected[0]: arguments of 'a' must be an object"),
        (
            [],
            [{"name": "a", "arguments": "{bad"}],
            "actual[0]: arguments of 'a' are not valid JSON",
        ),
        (
            [{"name": "a", "arguments": '{"n": NaN}'}],
            [],
            "expected[0]: arguments of 'a': $.n: NaN is not a JSON number",
        ),
        (
            [],
            [{"name": "a", "arguments": '{"n": ' + "9" * 5000 + "}"}],
            "actual[0]: arguments of 'a': $.n: an integer of 5000 digits",
        ),
        (
            [],
            [{"function": {"name": "a", "arguments": '{"n": 1, "n": 2}'}}],
            "actual[0]: arguments of 'a': $.n: duplicate key 'n' (first at line 1)",
        ),
    ],
)
def test_score_calls_bad_input_raises_input_error_naming_side_and_index(
    expected: Any, actual: Any, message: str
) -> None:
    with pytest.raises(InputError) as info:
        score_calls(expected, actual)
    assert str(info.value).startswith(message)


def test_toolcall_model_validate_accepts_aliases_and_rejects_bad_names() -> None:
    assert ToolCall.model_validate({"tool": "t", "parameters": {"x": 1}}).arguments == {"x": 1}
    assert ToolCall.model_validate({"function": "t"}).name == "t"
    with pytest.raises(ValueError, match="call has no name"):
        ToolCall.model_validate({"arguments": {}})


def test_score_calls_result_objects_are_built_once_and_keep_given_calls() -> None:
    given = ToolCall(name="a", arguments={"x": 1})
    result = score_calls([given, {"tool": "b", "args": {"y": [1]}}], [{"name": "b"}])
    assert result.correct is result.correct
    assert result.missed == (given,) and result.missed[0] is given
    pair = result.incorrect[0]
    assert pair.expected == ToolCall(name="b", arguments={"y": [1]})
    assert pair.actual == ToolCall(name="b")
    assert pair.details == "$.y: missing (expected [1])"
    assert result.extra == ()


def test_accuracy_score_constructor_equality_repr_and_pickle_as_a_frozen_dataclass() -> None:
    exp = ToolCall(name="a", arguments={"x": 1})
    act = ToolCall(name="a", arguments={"x": 2})
    extra = ToolCall(name="c")
    built = AccuracyScore(
        correct=(),
        incorrect=(CallPair(exp, act),),
        missed=(),
        extra=(extra,),
        total_expected=1,
        total_actual=2,
        precision=0.0,
        recall=0.0,
        f1=0.0,
    )
    scored = score_calls([exp], [act, extra])
    assert built == scored and hash(AccuracyScore((), (), (), (), 0, 0, 1.0, 1.0, 1.0)) is not None
    assert built.to_dict() == scored.to_dict()
    assert (
        repr(built)
        == repr(scored)
        == (
            f"AccuracyScore(correct=(), incorrect=({CallPair(exp, act)!r},), missed=(), "
            f"extra=({extra!r},), total_expected=1, total_actual=2, precision=0.0, recall=0.0, f1=0.0)"
        )
    )
    assert pickle.loads(pickle.dumps(scored)) == scored
    assert built != score_calls([exp], [exp, extra])
    with pytest.raises(AttributeError):
        scored.precision = 1.0  # type: ignore[misc]
    match scored:
        case AccuracyScore(correct, incorrect, missed, extra_calls):
            assert (len(correct), len(incorrect), missed, extra_calls) == (0, 1, (), (extra,))


@pytest.mark.parametrize(
    "value",
    [
        {"tool": "t", "args": {"x": 1}},
        {"name": "t", "parameters": {"x": 1}},
        {"name": "t", "arguments": '{"x": 1}'},
        {"name": "t", "arguments": ""},
        {"name": "t"},
        {"type": "function", "function": {"name": "t", "arguments": {"x": 1}}},
        {"function": "t", "args": {"x": 1}},
    ],
)
def test_as_calls_any_shape_equals_the_validated_call(value: dict[str, Any]) -> None:
    (call,) = as_calls([value])
    validated = ToolCall.model_validate(value)
    assert call == validated
    assert call.model_fields_set == validated.model_fields_set
    assert call.model_dump() == validated.model_dump()
