"""Loading suites: files, built-in names, bad sources, the file format's variants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolgrade
from toolgrade import SuiteError, load_suite, parse_suite

DATA = Path(__file__).parents[1] / "data" / "suite"


def test_load_suite_full_file_builds_every_field() -> None:
    suite = load_suite(DATA / "valid" / "full.json")
    assert (suite.name, suite.version) == ("full", "2.1")
    assert suite.categories == ("simple", "complex", "edge", "relevance")
    assert suite.defaults.order == "strict" and suite.defaults.rubric == "binary"
    assert [t.name for t in suite.tools] == ["read_file", "search", "now"]
    assert suite.tool("now") is not None and suite.tool("now").parameters["type"] == "object"  # type: ignore[union-attr]
    by_id = {c.id: c for c in suite.cases}
    two = by_id["F-2"]
    assert [c.name for c in two.expected] == ["read_file", "read_file"]
    assert two.expected[0].arguments["limit"] == {"$any_of": [10, 11]}
    assert two.alternatives[0][0].name == "search"
    assert two.messages("ignored")[0] == {
        "role": "system",
        "content": "Case-specific system prompt.",
    }
    assert len(two.messages()) == 4
    assert by_id["F-3"].expects_no_call and by_id["F-3"].alternatives == ((),)
    assert [t.name for t in suite.tools_for(by_id["F-3"])] == ["now"]
    assert not by_id["F-4"].expects_no_call and by_id["F-4"].any_call
    assert by_id["F-6"].expected == () and suite.tools_for(by_id["F-6"]) == ()
    own = by_id["F-8"].tool_definitions
    assert [t.name for t in own] == ["read_file", "clock"]
    assert suite.tools_for(by_id["F-8"]) == (own[0], suite.tools[2], own[1])


def test_load_suite_string_path_same_as_path_object() -> None:
    path = DATA / "valid" / "minimal.json"
    assert load_suite(str(path)) == load_suite(path)


def test_load_suite_builtin_name_loads_package_data() -> None:
    suite = load_suite("coding-agent")
    assert suite.name == "coding-agent" and suite.version == "1.2"
    assert "coding-agent" in toolgrade.builtin_suite_names()


def test_load_suite_unknown_source_names_builtins() -> None:
    with pytest.raises(SuiteError, match=r"no-such-suite: no such suite file.*coding-agent"):
        load_suite("no-such-suite")


def test_load_suite_invalid_json_reports_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text(
        '{\n  "schema_version": 1,\n  "name": "x"\n  "cases": []\n}\n', encoding="utf-8"
    )
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert str(info.value) == f"{path}:line 4 column 3: invalid JSON: Expecting ',' delimiter"
    assert info.value.location == "line 4 column 3"


def test_load_suite_not_an_object_rejected(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[]", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"list\.json:\$: a suite file must hold a JSON object"):
        load_suite(path)


def test_load_suite_not_utf8_rejected(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(SuiteError, match=r"not UTF-8 text \(byte 13\)"):
        load_suite(path)


def test_load_suite_utf8_bom_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"schema_version": 1, "name": "bom", "cases": []}')
    assert load_suite(path).name == "bom"


def test_load_suite_deep_nesting_rejected_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(SuiteError, match="nested too deeply"):
        load_suite(path)


def test_parse_suite_error_carries_every_problem_and_path() -> None:
    text = json.dumps(
        {"schema_version": 1, "name": "x", "cases": [{"id": "A", "prompt": "p"}, {"id": "A"}]}
    )
    with pytest.raises(SuiteError) as info:
        parse_suite(text, name="mine.json")
    err = info.value
    assert err.path == "mine.json"
    assert err.message == "invalid suite: 4 problems"
    assert all(p.startswith("mine.json:1: $.cases[") for p in err.problems)
    assert "(case A)" in err.problems[0]
    assert str(err).count("\n  - ") == 4


def test_suite_to_dict_round_trips_builtin() -> None:
    suite = load_suite("coding-agent")
    again = parse_suite(json.dumps(suite.to_dict()))
    assert again == suite
    assert again.content_hash == suite.content_hash


def test_content_hash_changes_with_any_case_edit() -> None:
    data = json.loads((DATA / "valid" / "full.json").read_text(encoding="utf-8"))
    base = parse_suite(json.dumps(data)).content_hash
    data["cases"][0]["prompt"] = "Read a.txt please"
    assert parse_suite(json.dumps(data)).content_hash != base
    assert base.startswith("sha256:") and len(base) == 7 + 64


def test_content_hash_ignores_key_order_and_whitespace() -> None:
    data = json.loads((DATA / "valid" / "full.json").read_text(encoding="utf-8"))
    shuffled = dict(reversed(list(data.items())))
    assert (
        parse_suite(json.dumps(shuffled)).content_hash
        == parse_suite(json.dumps(data, indent=4)).content_hash
    )
