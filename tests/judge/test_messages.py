"""Every difference describes itself usefully: default and bfcl profiles, every report line."""

from __future__ import annotations

import pytest

from toolgrade import Case, CaseResult, ToolSpec, describe_failure, judge, load_suite
from toolgrade.bfcl._data import BfclCategory, BfclEntry
from toolgrade.bfcl._import import entry_to_case
from toolgrade.match import REQUIRED_BY_SCHEMA, Mismatch
from toolgrade.report._describe import mismatch_sentence

COMMIT = ToolSpec(
    name="git_commit",
    parameters={
        "type": "object",
        "properties": {
            "message": {"type": "string"},
            "paths": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["message"],
    },
)


def _judge(expected: dict[str, object], actual: dict[str, object]) -> CaseResult:
    case = Case(id="c", prompt="p", expected={"name": "git_commit", "arguments": expected})
    return judge(case, [{"name": "git_commit", "arguments": actual}], tools=[COMMIT])


def test_describe_missing_argument_only_expected_is_not_called_required() -> None:
    result = _judge({"message": "m", "paths": ["a.py"]}, {"message": "m"})
    assert describe_failure(result) == "Missing expected argument 'paths'"
    assert result.details[0].describe() == '$.paths: missing (expected ["a.py"])'


def test_describe_missing_argument_the_schema_requires_is_called_required() -> None:
    result = _judge({"message": "m"}, {"paths": ["a.py"]})
    assert describe_failure(result) == "Missing required arg 'message'"
    assert result.details[0].required_by_schema
    assert result.details[0].describe() == (
        '$.message: missing (expected "m") [required by the tool schema]'
    )


def test_describe_schema_required_argument_not_in_expectation() -> None:
    result = _judge({"paths": ["a.py"]}, {"paths": ["a.py"]})
    assert describe_failure(result) == "Missing required arg 'message'"
    assert result.details[0].describe() == "$.message: missing [required by the tool schema]"


@pytest.mark.parametrize(
    ("mismatch", "sentence", "line"),
    [
        (
            Mismatch(path="$.city", reason="value", message="BFCL value_error:string: bad 'x'"),
            "Wrong value for 'city': BFCL value_error:string: bad 'x'",
            "$.city: BFCL value_error:string: bad 'x'",
        ),
        (
            Mismatch(path="$.n", reason="type", message="BFCL type_error:simple: got str"),
            "Wrong type for 'n': BFCL type_error:simple: got str",
            "$.n: BFCL type_error:simple: got str",
        ),
        (
            Mismatch(path="$.z", reason="unexpected", message="BFCL unexpected_param: 'z'"),
            "Unexpected arg 'z' (BFCL unexpected_param: 'z')",
            "$.z: unexpected argument [BFCL unexpected_param: 'z']",
        ),
        (
            Mismatch(path="$.n", reason="value", expected=None, actual=1),
            "Wrong value for 'n': expected null, got 1",
            "$.n: expected null, got 1",
        ),
        (
            Mismatch(
                path="$.p", reason="missing", message=f"BFCL missing_required: {REQUIRED_BY_SCHEMA}"
            ),
            "Missing required arg 'p'",
            "$.p: missing [BFCL missing_required: required by the tool schema]",
        ),
    ],
    ids=["bfcl_value", "bfcl_type", "bfcl_unexpected", "real_null_kept", "bfcl_required"],
)
def test_describe_valueless_difference_uses_its_message(
    mismatch: Mismatch, sentence: str, line: str
) -> None:
    assert mismatch_sentence(mismatch) == sentence
    assert mismatch.describe() == line
    assert "expected null, got null" not in sentence + line


DOC = {
    "name": "get_weather",
    "description": "d",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string", "description": "x"},
            "unit": {"type": "string", "description": "x"},
        },
        "required": ["city"],
    },
}


def _bfcl(answer: dict[str, object], output: dict[str, object]) -> CaseResult:
    entry = BfclEntry("r", [[{"role": "user", "content": "?"}]], (DOC,), ({"get_weather": answer},))
    case = entry_to_case(entry, BfclCategory.SIMPLE_PYTHON)
    call = [{"name": "get_weather", "arguments": output}]
    return judge(case, call, tools=case.tool_definitions, profile="bfcl")


def test_bfcl_wrong_value_names_the_values_not_null() -> None:
    result = _bfcl({"city": ["Paris"], "unit": [""]}, {"city": "Berlin"})
    reason = describe_failure(result)
    assert reason.startswith("Wrong value for 'city': BFCL value_error:string")
    assert "'Berlin'" in reason and "null" not in reason


def test_bfcl_missing_optional_is_not_called_required() -> None:
    result = _bfcl({"city": ["Paris"], "unit": ["celsius"]}, {"city": "Paris"})
    reason = describe_failure(result)
    assert reason.startswith("Missing expected argument 'unit' (BFCL missing_optional:")
    assert "required" not in reason


def test_bfcl_missing_required_is_called_required() -> None:
    result = _bfcl({"city": ["Paris"], "unit": [""]}, {"unit": "celsius"})
    assert describe_failure(result) == "Missing required arg 'city'"


def test_judge_records_primary_tools_whichever_alternative_matched() -> None:
    case = Case(
        id="c",
        prompt="p",
        expected={"name": "git_commit", "arguments": {"message": "m"}},
        alternatives=[[{"name": "other", "arguments": {}}], None],
    )
    tools = [COMMIT, ToolSpec(name="other")]
    other = judge(case, [{"name": "other", "arguments": {}}], tools=tools)
    assert (other.alternative, other.primary_tools) == (0, ("git_commit",))
    nothing = judge(case, [], tools=tools)
    assert (nothing.alternative, nothing.primary_tools) == (1, ("git_commit",))
    no_call = Case(id="n", prompt="p", expected=None)
    assert judge(no_call, [], tools=tools).primary_tools == ()


@pytest.mark.parametrize(
    ("case_id", "call", "sentence"),
    [
        (
            "TC-006",
            {"name": "git_diff", "arguments": {"staged": False, "ref": None, "paths": []}},
            "Unexpected arg 'ref': null is not a string (schema: type); the case expects"
            " the argument left out",
        ),
        (
            "TC-008",
            {
                "name": "git_commit",
                "arguments": {"message": "Add retry to HTTP client", "paths": []},
            },
            "Unexpected arg 'paths': [] has fewer than 1 item (schema: minItems 1); the case"
            " expects the argument left out",
        ),
        (
            "TC-030",
            {"name": "search", "arguments": {"pattern": "DATABASE_URL", "max_results": 10}},
            'Wrong value for \'max_results\': expected {"$range": {"min": 50}}, got 10'
            " (10 is less than the least accepted, 50)",
        ),
    ],
    ids=["null_for_a_string", "empty_list_under_min_items", "range"],
)
def test_one_line_failure_says_why_in_the_schemas_words(
    case_id: str, call: dict[str, object], sentence: str
) -> None:
    # The built-in suite's answers a real model gave: the summary line says why.
    suite = load_suite("coding-agent")
    case = next(c for c in suite.cases if c.id == case_id)
    assert describe_failure(judge(case, [call], tools=suite.tools)) == sentence
