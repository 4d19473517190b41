"""Suites are read strictly (NaN, huge integers, repeated keys), and a missing version says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolgrade import SuiteError, load_suite, parse_suite

CASE = {"id": "A", "prompt": "p", "expected": None}


def _text(**fields: object) -> str:
    return json.dumps({"schema_version": 1, "name": "s", "cases": [CASE], **fields}, indent=2)


def test_strict_directory_file_with_nan_named_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(_text(), encoding="utf-8")
    bad = _text().replace('"expected": null', '"expected": null,\n      "notes": NaN')
    (tmp_path / "b.json").write_text(bad.replace('"A"', '"B"'), encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(tmp_path)
    assert info.value.problems == (
        f"{tmp_path / 'b.json'}:9: $.cases[0].notes (case B): NaN is not a JSON number",
    )


def test_strict_parse_suite_repeated_case_id_key_named() -> None:
    text = _text().replace('"id": "A",', '"id": "A",\n      "id": "B",')
    with pytest.raises(SuiteError) as info:
        parse_suite(text, name="s.json")
    assert info.value.problems == (
        "s.json:7: $.cases[0].id (case B): duplicate key 'id' (first at line 6)",
    )


@pytest.mark.parametrize("version", [None, ""])
def test_version_absent_or_empty_is_reported_missing(version: str | None) -> None:
    text = _text() if version is None else _text(version=version)
    suite = parse_suite(text)
    assert suite.version == ""
    assert "version" not in suite.to_dict()
    assert parse_suite(json.dumps(suite.to_dict())) == suite
    # What a program writes with model_dump reads back the same.
    assert parse_suite(suite.model_dump_json(exclude_none=True)) == suite


def test_version_given_is_kept() -> None:
    suite = parse_suite(_text(version="2.1"))
    assert suite.version == "2.1" and suite.to_dict()["version"] == "2.1"


def test_version_merged_directory_without_versions_has_none(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(_text(), encoding="utf-8")
    (tmp_path / "b.json").write_text(_text(version="").replace('"A"', '"B"'), encoding="utf-8")
    assert load_suite(tmp_path).version == ""
    (tmp_path / "c.json").write_text(_text(version="3").replace('"A"', '"C"'), encoding="utf-8")
    assert load_suite(tmp_path).version == "3"
