"""Finding the line of a JSON path in a suite file's text."""

from __future__ import annotations

import json

import pytest

from toolgrade.suite._locate import line_of, value_lines

DOC = """{
  "name": "x",
  "cases": [
    {"id": "A", "expected": null},
    {
      "id": "B \\"quoted\\" [1]",
      "expected": {"tool": "t", "arguments": {"n": -1.5e3, "ok": true, "none": null}}
    }
  ],
  "empty": {}, "list": []
}"""


def test_value_lines_maps_every_value() -> None:
    lines = value_lines(DOC)
    assert lines["$"] == 1 and lines["$.name"] == 2 and lines["$.cases"] == 3
    assert lines["$.cases[0]"] == 4 and lines["$.cases[0].expected"] == 4
    assert lines["$.cases[1]"] == 5 and lines["$.cases[1].id"] == 6
    assert lines["$.cases[1].expected.arguments.n"] == 7
    assert lines["$.cases[1].expected.arguments.none"] == 7
    assert lines["$.empty"] == 10 and lines["$.list"] == 10
    assert len(lines) == len({*lines})


def test_value_lines_agrees_with_json_on_builtin_size_document() -> None:
    doc = {"cases": [{"id": f"C{i}", "tags": ["a", "b"], "n": i} for i in range(50)]}
    text = json.dumps(doc, indent=2)
    lines = value_lines(text)
    rows = text.splitlines()
    for i in range(50):
        assert rows[lines[f"$.cases[{i}].id"] - 1].strip() == f'"id": "C{i}",'


@pytest.mark.parametrize("text", ['{"a": [1, 2', '{"a": tru}', '{"a" 1}', "[1 2]", ""])
def test_value_lines_broken_text_keeps_partial_map(text: str) -> None:
    lines = value_lines(text)
    assert all(isinstance(v, int) for v in lines.values())


def test_line_of_falls_back_to_nearest_ancestor() -> None:
    lines = value_lines(DOC)
    assert line_of(lines, "$.cases[1].expected.arguments.missing") == 7
    assert line_of(lines, "$.cases[7]") == 3
    assert line_of(lines, "$.nothing.here") == 1
    assert line_of({}, "$.a") is None
