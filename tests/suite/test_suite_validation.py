"""Every validation error path, table-driven from tests/data/suite/invalid_suites.json.

Each entry is a suite and the exact problems it must produce when written with
`json.dumps(suite, indent=2)` (without the file name prefix): the line, the JSON path,
the case id and the message. The list must match exactly, so
an entry also proves that every problem of a file is reported at once. An entry with
`text` instead of `suite` gives the file's text as is, for what `json.dumps` cannot write
(NaN, a key given twice, an integer of 5000 digits).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolgrade import SuiteError, load_suite, parse_suite
from toolgrade.suite import _file_rules, _schema

DATA = Path(__file__).parents[1] / "data" / "suite"
ENTRIES = json.loads((DATA / "invalid_suites.json").read_text(encoding="utf-8"))


@pytest.fixture(params=["fast", "pure"])
def validator_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with the jsonschema-rs fast path, and with jsonschema alone."""
    if request.param == "pure":
        monkeypatch.setattr(_schema, "_fast_validator", lambda: None)
        monkeypatch.setattr(_file_rules, "fast_arguments_validator", lambda key: None)
    return str(request.param)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_validation_invalid_suite_reports_exact_problems(
    entry: dict[str, object], tmp_path: Path, validator_mode: str
) -> None:
    path = tmp_path / f"{entry['name']}.json"
    text = entry["text"] if "text" in entry else json.dumps(entry["suite"], indent=2)
    path.write_text(str(text), encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    prefix = f"{path}:"
    assert all(p.startswith(prefix) for p in info.value.problems)
    assert [p[len(prefix) :] for p in info.value.problems] == entry["problems"]
    assert info.value.path == str(path)


def test_validation_table_covers_every_check() -> None:
    messages = " ".join(p for e in ENTRIES for p in e["problems"])
    for needle in (
        "duplicate case id",
        "undefined tool",
        "violates the parameters",
        "unknown matcher",
        "invalid pattern",
        "unknown category",
        "offers undefined tool",
        "does not offer",
        "duplicate tool",
        "not a valid JSON Schema",
        "$.cases[0].tool_definitions[",
        "cannot be expected absent",
        "is a required property",
        "unknown key(s)",
        "RE2 syntax",
        "NaN is not a JSON number",
        "-Infinity is not a JSON number",
        "is out of range (not a finite number)",
        "an integer of 5000 digits",
        "duplicate key",
    ):
        assert needle in messages, needle


def _suite(arguments: dict[str, object]) -> str:
    tool = {
        "name": "t",
        "parameters": {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 0},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                "opts": {
                    "type": "object",
                    "properties": {"deep": {"type": "boolean"}},
                    "required": ["deep"],
                },
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            },
            "required": ["n"],
            "additionalProperties": False,
        },
    }
    case = {"id": "A", "prompt": "p", "expected": {"tool": "t", "arguments": arguments}}
    return json.dumps({"schema_version": 1, "name": "s", "tools": [tool], "cases": [case]})


@pytest.mark.parametrize(
    "arguments",
    [
        {"n": {"$approx": 3, "tol": 0.5}},
        {"n": {"$any_of": [1, 2]}},
        {"n": {"$type": "integer"}},
        {"n": {"$present": True}},
        {"n": 1, "tags": {"$unordered": ["a", "b"]}},
        {"n": 1, "tags": [{"$regex": "a.*"}, "b"]},
        {"n": 1, "tags": [{"$icase": "x"}, {"$icase": "x"}]},
        {"n": 1, "opts": {"deep": {"$any_of": [True, False]}}},
        {"n": 1, "opts": {"$present": True}},
        {"n": 1, "either": {"$contains": "x"}},
        {"n": 1, "tags": {"$absent": True}},
    ],
)
def test_validation_matcher_values_skip_schema_check(
    arguments: dict[str, object], validator_mode: str
) -> None:
    suite = parse_suite(_suite(arguments))
    assert suite.cases[0].expected[0].arguments == arguments


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        (
            {"n": -1},
            "$.cases[0].expected.arguments.n (case A): violates the parameters of 't': "
            "-1 is less than the minimum of 0",
        ),
        (
            {"n": 1, "opts": {"deep": "yes"}},
            "$.cases[0].expected.arguments.opts.deep (case A): "
            "violates the parameters of 't': 'yes' is not of type 'boolean'",
        ),
        (
            {"n": 1, "opts": {}},
            "$.cases[0].expected.arguments.opts (case A): "
            "violates the parameters of 't': 'deep' is a required property",
        ),
        (
            {"n": 1, "either": 1.5},
            "$.cases[0].expected.arguments.either (case A): "
            "violates the parameters of 't': 1.5 is not valid under any of the given schemas",
        ),
        (
            {"n": 1, "tags": ["a", "a"]},
            "$.cases[0].expected.arguments.tags (case A): "
            "violates the parameters of 't': ['a', 'a'] has non-unique elements",
        ),
    ],
)
def test_validation_plain_values_checked_against_schema(
    arguments: dict[str, object], problem: str, validator_mode: str
) -> None:
    with pytest.raises(SuiteError) as info:
        parse_suite(_suite(arguments), name="s.json")
    assert info.value.problems == (f"s.json:1: {problem}",)


def test_validation_pure_mode_loads_builtin_identically(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fast = load_suite("coding-agent")
    monkeypatch.setattr(_schema, "_fast_validator", lambda: None)
    monkeypatch.setattr(_file_rules, "fast_arguments_validator", lambda key: None)
    assert load_suite("coding-agent") == fast


def test_validation_remote_reference_never_fetched(validator_mode: str) -> None:
    tool = {
        "name": "t",
        "parameters": {
            "type": "object",
            "properties": {"a": {"$ref": "https://example.invalid/schema.json"}},
        },
    }
    case = {"id": "A", "prompt": "p", "expected": {"tool": "t", "arguments": {"a": 1}}}
    text = json.dumps({"schema_version": 1, "name": "s", "tools": [tool], "cases": [case]})
    with pytest.raises(SuiteError) as info:
        parse_suite(text, name="s.json")
    assert info.value.problems == (
        "s.json:1: $.cases[0].expected.arguments (case A): cannot check the arguments of 't': "
        "unresolvable reference 'https://example.invalid/schema.json' (remote references are "
        "never fetched)",
    )
