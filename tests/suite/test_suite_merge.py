"""Loading a directory: files merged, tools unioned, ids unique, conflicts rejected."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from toolgrade import SuiteError, load_suite

DATA = Path(__file__).parents[1] / "data" / "suite"


def test_merge_directory_unions_tools_and_concatenates_cases() -> None:
    suite = load_suite(DATA / "merge_ok")
    assert suite.name == "merged" and suite.version == "1.0"
    assert [t.name for t in suite.tools] == ["read_file", "list_directory", "git_status"]
    assert [c.id for c in suite.cases] == ["M-1", "M-2", "M-3"]
    assert suite.categories == ("simple", "git")
    assert suite.description == "Tools and file cases.\n\nGit cases."
    assert suite.defaults.order == "any"


def test_merge_case_may_call_tool_of_sibling_file() -> None:
    suite = load_suite(DATA / "merge_ok")
    m3 = next(c for c in suite.cases if c.id == "M-3")
    assert m3.expected[0].name == "list_directory"  # defined in a_tools.json only


def test_merge_conflicts_reported_together_with_both_files() -> None:
    folder = DATA / "merge_conflict"
    with pytest.raises(SuiteError) as info:
        load_suite(folder)
    a, b = folder / "a.json", folder / "b.json"
    assert info.value.path == str(folder)
    assert info.value.problems == (
        f"{b}:4: $.tools[0]: tool 'read_file' conflicts with its definition in {a} at $.tools[0]",
        f"{b}:5: $.cases[0].id (case X-1): duplicate case id 'X-1' (first at $.cases[0] of {a})",
        f"{b}:5: $.cases[0].expected.arguments (case X-1): violates the parameters of "
        "'read_file': 'file_path' is a required property",
        f"{b}:3: $.defaults: conflicts with the defaults of {a}",
    )


def test_merge_differing_names_and_versions_use_folder_and_join(tmp_path: Path) -> None:
    for name, version in (("one", "1.0"), ("two", "2.0")):
        doc = {"schema_version": 1, "name": name, "version": version, "cases": []}
        (tmp_path / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")
    suite = load_suite(tmp_path)
    assert suite.name == tmp_path.name
    assert suite.version == "1.0+2.0"
    assert suite.categories is None


def test_merge_empty_directory_rejected(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("no suites here", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"the directory holds no \*\.json suite files"):
        load_suite(tmp_path)


def test_merge_broken_file_reported_with_other_problems(tmp_path: Path) -> None:
    shutil.copy(DATA / "merge_ok" / "a_tools.json", tmp_path / "a.json")
    (tmp_path / "b.json").write_text("{oops", encoding="utf-8")
    bad = {"schema_version": 1, "name": "merged", "cases": [{"id": "M-1", "prompt": "p"}]}
    (tmp_path / "c.json").write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(tmp_path)
    problems = info.value.problems
    assert problems[0].startswith(f"{tmp_path / 'b.json'}:line 1 column 2: invalid JSON")
    expected = f"{tmp_path / 'c.json'}:1: $.cases[0] (case M-1): 'expected' is a required property"
    assert expected in problems
    assert any("duplicate case id 'M-1'" in p for p in problems)


def test_merge_hidden_files_ignored(tmp_path: Path) -> None:
    shutil.copy(DATA / "merge_ok" / "a_tools.json", tmp_path / "a.json")
    (tmp_path / ".draft.json").write_text("{broken", encoding="utf-8")
    assert [c.id for c in load_suite(tmp_path).cases] == ["M-1"]
