"""Importing BFCL data (a hand-written fixture in BFCL's format) into a toolgrade suite."""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path

import pytest

import toolgrade
from toolgrade.bfcl._codec import decode_answer, encode_answer, schema_from_bfcl
from toolgrade.bfcl._data import BfclCategory, BfclEntry
from toolgrade.bfcl._import import entry_to_case
from toolgrade.errors import ConfigError, InputError

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "fixture"


def _case(suite: toolgrade.Suite, case_id: str) -> toolgrade.Case:
    return next(c for c in suite.cases if c.id == case_id)


def test_import_bfcl_folder_keeps_ids_categories_and_prompts() -> None:
    suite = toolgrade.import_bfcl(["simple_python", "parallel"], data_dir=FIXTURE)
    assert [c.id for c in suite.cases] == ["simple_python_0", "simple_python_1", "parallel_0"]
    assert suite.categories == ("simple_python", "parallel")
    first = _case(suite, "simple_python_0")
    assert first.prompt == "Area of a triangle with base 10 and height 5."
    assert first.category == "simple_python"
    assert "language:python" in first.tags
    second = _case(suite, "simple_python_1")
    assert isinstance(second.prompt, tuple)
    assert [m.role for m in second.prompt] == ["system", "user"]


def test_import_bfcl_answer_becomes_matchers() -> None:
    suite = toolgrade.import_bfcl(["simple_python", "parallel"], data_dir=FIXTURE)
    (call,) = _case(suite, "simple_python_0").expected
    assert call.name == "calc.area"
    # "" alone: may be omitted; the documented default "cm" is accepted by the default
    # profile through a nested $any_of the bfcl profile skips.
    assert call.arguments == {
        "base": 10,
        "height": 5.0,
        "unit": {"$any_of": [{"$absent": True}, {"$any_of": ["cm"]}]},
    }
    parallel = _case(suite, "parallel_0").expected
    assert parallel[1].arguments == {"city": {"$any_of": ["London", "London, UK"]}}


def test_import_bfcl_types_become_json_schema() -> None:
    suite = toolgrade.import_bfcl(["simple_python", "simple_java"], data_dir=FIXTURE)
    (triangle,) = suite.tools_for(_case(suite, "simple_python_0"))
    props = triangle.parameters["properties"]
    assert isinstance(props, dict)
    assert props["height"] == {
        "description": "Height. This is a float type value.",
        "type": "number",
        "format": "float",
    }
    (square_tool,) = suite.tools_for(_case(suite, "simple_python_1"))
    square = square_tool.parameters
    sq = square["properties"]
    assert isinstance(sq, dict)
    assert sq["dims"]["type"] == "array" and sq["dims"]["x-bfcl-type"] == "tuple"
    assert sq["anything"]["type"] == "string" and sq["anything"]["x-bfcl-type"] == "any"
    assert sq["meta"]["type"] == "object"
    java = next(t for c in suite.cases for t in c.tool_definitions if t.name == "Util.run")
    assert "Java 8 SDK" in java.description
    jp = java.parameters["properties"]
    assert isinstance(jp, dict)
    assert jp["names"] == {
        "description": "Names. This is Java ArrayList type parameter in string representation."
        " The list elements are of type String; they are not in string representation.",
        "type": "string",
        "x-bfcl-type": "ArrayList",
        "x-bfcl-items-type": "String",
    }


def test_import_bfcl_docs_of_one_name_stay_with_their_case_under_bfcl_name() -> None:
    suite = toolgrade.import_bfcl(["simple_python"], data_dir=FIXTURE)
    assert suite.tools == ()
    triangle, square = (_case(suite, i) for i in ("simple_python_0", "simple_python_1"))
    assert triangle.tools == () and square.tools == ()
    (first,) = suite.tools_for(triangle)
    (second,) = suite.tools_for(square)
    # Two different docs, one BFCL name: each case offers its own, and nothing is renamed.
    assert first.name == second.name == "calc.area"
    assert first.description.startswith("Area of a triangle.")
    assert second.description.startswith("Area of a square.")
    assert [c.name for c in square.expected] == ["calc.area"]
    call = [{"name": "calc.area", "arguments": {"side": 3}}]
    for profile in ("default", "bfcl"):
        result = toolgrade.judge(square, call, tools=suite.tools_for(square), profile=profile)
        assert result.status.value == "correct", profile
    # The triangle's doc has no `side`: the other case's doc is not offered here.
    result = toolgrade.judge(triangle, call, tools=suite.tools_for(triangle), profile="bfcl")
    assert result.status.value != "correct"


def test_import_bfcl_entry_with_two_different_docs_of_one_name_is_an_error() -> None:
    doc = {"name": "f", "description": "F.", "parameters": {"type": "dict", "properties": {}}}
    other = {**doc, "description": "Another F."}
    entry = BfclEntry("e", [[{"role": "user", "content": "?"}]], (doc, doc), None)
    assert [t.name for t in entry_to_case(entry, BfclCategory.IRRELEVANCE).tool_definitions] == [
        "f"
    ]
    twice = BfclEntry("e", [[{"role": "user", "content": "?"}]], (doc, other), None)
    with pytest.raises(InputError, match="two different function docs named 'f'"):
        entry_to_case(twice, BfclCategory.IRRELEVANCE)


def test_import_bfcl_irrelevance_and_relevance_expectations() -> None:
    suite = toolgrade.import_bfcl(["irrelevance", "live_relevance"], data_dir=FIXTURE)
    irrelevance = _case(suite, "irrelevance_0")
    assert irrelevance.expected == () and irrelevance.expects_no_call
    relevance = _case(suite, "live_relevance_0-0-0")
    assert relevance.expected == () and relevance.any_call


def test_import_bfcl_suite_passes_suite_validation(tmp_path: Path) -> None:
    suite = toolgrade.import_bfcl(
        ["simple_python", "parallel", "irrelevance", "live_relevance", "simple_java"],
        data_dir=FIXTURE,
    )
    path = tmp_path / "bfcl.json"
    path.write_text(suite.model_dump_json(exclude_none=True), encoding="utf-8")
    loaded = toolgrade.load_suite(path)
    assert loaded.content_hash == suite.content_hash


def test_import_bfcl_reads_a_wheel(tmp_path: Path) -> None:
    wheel = tmp_path / "bfcl_eval-2099.1.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in FIXTURE.rglob("*.json"):
            archive.write(path, f"bfcl_eval/data/{path.relative_to(FIXTURE).as_posix()}")
    suite = toolgrade.import_bfcl(["parallel"], data_dir=wheel)
    assert suite.version == "bfcl-eval 2099.1.1"
    assert [c.id for c in suite.cases] == ["parallel_0"]
    sizes = dict(toolgrade.bfcl_categories(tmp_path))
    assert sizes["parallel"] == 1 and sizes["live_multiple"] is None


@pytest.mark.parametrize(
    ("category", "message"),
    [
        ("web_search_base", "out of scope"),
        ("memory_kv", "out of scope"),
        ("simple_rust", "unknown BFCL category"),
    ],
)
def test_import_bfcl_rejects_categories_it_cannot_import(category: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        toolgrade.import_bfcl([category], data_dir=FIXTURE)


def test_import_bfcl_missing_file_names_it() -> None:
    with pytest.raises(InputError, match=r"BFCL_v4_live_multiple\.json"):
        toolgrade.import_bfcl(["live_multiple"], data_dir=FIXTURE)


def test_import_bfcl_without_installed_package_says_how(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match="pip download --no-deps bfcl-eval"):
        toolgrade.import_bfcl(["simple_python"])


def test_import_bfcl_folder_without_data_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no BFCL data"):
        toolgrade.bfcl_categories(tmp_path)


def test_import_bfcl_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "BFCL_v4_irrelevance.json").write_text('{"id": "x"\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        toolgrade.import_bfcl(["irrelevance"], data_dir=tmp_path)


def test_bfcl_codec_answer_round_trip_is_exact() -> None:
    schema = schema_from_bfcl(
        {
            "type": "dict",
            "properties": {
                "a": {"type": "integer", "description": ""},
                "b": {"type": "string", "description": "", "default": "x"},
                "c": {"type": "dict", "description": ""},
                "d": {"type": "array", "items": {"type": "dict"}, "description": ""},
                "e": {"type": "string", "description": ""},
                "f": {"type": "string", "description": ""},
                "g": {"type": "string", "description": ""},
            },
            "required": ["a", "e", "g"],
        },
        "python",
    )
    answer = {
        "a": [1, 2],
        "b": ["", "y"],
        "c": [{"k": ["v", ""], "n": [{"deep": 1}]}],
        "d": ["", [{"k": [1]}, {"k": [2, 3]}]],
        "e": ["", "z"],
        "f": [],
    }
    encoded = encode_answer(answer, schema)
    assert encoded["b"] == {"$any_of": [{"$absent": True}, "y", {"$any_of": ["x"]}]}
    assert encoded["e"] == {"$any_of": ["", "z"]}  # required: "" is the empty string
    assert encoded["f"] == {"$regex": "(?!)"}  # no acceptable value at all
    assert encoded["g"] == {"$present": True}  # required, left out of BFCL's answer
    assert toolgrade.match.matcher_problems(encoded) == []
    assert decode_answer(encoded) == answer


def test_bfcl_codec_schema_keeps_bfcl_types_json_schema_cannot_say() -> None:
    schema = schema_from_bfcl(
        {"type": "dict", "properties": {"t": {"type": "tuple", "items": {"type": "float"}}}},
        "python",
    )
    t = schema["properties"]["t"]  # type: ignore[index]
    assert t["type"] == "array" and t["x-bfcl-type"] == "tuple"  # type: ignore[index]
    assert t["items"]["type"] == "number"  # type: ignore[index]
    assert json.loads(json.dumps(schema))["required"] == []


def test_bfcl_codec_dict_answer_bare_string_kept_as_literal() -> None:
    # simple_java_64: a dict answer's value written without its list. BFCL reads it as
    # its characters; the default profile compares it as the string it is.
    schema = schema_from_bfcl({"type": "dict", "properties": {"meta": {"type": "dict"}}}, "python")
    answer = {"meta": [{"format": "epoch_millis", "unit": ["ms", ""]}]}
    encoded = encode_answer(answer, schema)
    assert encoded["meta"] == {"format": {"$literal": "epoch_millis"}, "unit": {"$any_of": ["ms", {"$absent": True}]}}  # fmt: skip
    assert toolgrade.match.matcher_problems(encoded) == []
    assert decode_answer(encoded) == answer


@pytest.mark.parametrize(
    ("language", "meta", "bfcl", "default"),
    [
        ("java", 'new HashMap<String, String>() {{ put("format", "epoch_millis"); }}', False, None),
        ("java", 'new HashMap<String, String>() {{ put("format", "e"); }}', True, None),
        ("java", "new HashMap<String, String>() {{ }}", True, None),
        ("python", {"format": "epoch_millis"}, False, True),
        ("python", {"format": "e"}, True, False),
        ("python", {}, True, False),
    ],
)
def test_bfcl_profile_dict_answer_bare_string_is_its_characters(
    language: str, meta: object, bfcl: bool, default: bool | None
) -> None:
    # As bfcl-eval 2026.3.23 judges simple_java_64; the default profile compares the
    # string as it is (Java values are source text there: not compared as a dict).
    doc = {
        "name": "DateScriptFieldType.createFieldType",
        "description": "",
        "parameters": {
            "type": "dict",
            "properties": {
                "meta": {"type": "HashMap" if language == "java" else "dict", "description": ""}
            },
            "required": ["meta"],
        },
    }
    answer = ({"DateScriptFieldType.createFieldType": {"meta": [{"format": "epoch_millis"}]}},)
    entry = BfclEntry("simple_java_64", [[{"role": "user", "content": "?"}]], (doc,), answer)
    category = BfclCategory.SIMPLE_JAVA if language == "java" else BfclCategory.SIMPLE_PYTHON
    case = entry_to_case(entry, category)
    calls = [{"name": "DateScriptFieldType.createFieldType", "arguments": {"meta": meta}}]
    tools = case.tool_definitions
    result = toolgrade.judge(case, calls, tools=tools, profile="bfcl")
    assert (result.status.value == "correct") is bfcl
    if default is not None:
        assert (toolgrade.judge(case, calls, tools=tools).status.value == "correct") is default
