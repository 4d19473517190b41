"""Schema-guided coercion and path normalisation."""

from __future__ import annotations

import pytest

from toolgrade.match._coerce import coerce_value, is_path, normalise_path, schema_types


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("README.md", "README.md"),
        ("./README.md", "README.md"),
        ("src//a.py", "src/a.py"),
        ("src/./a.py", "src/a.py"),
        ("docs/", "docs"),
        ("./", "."),
        (".", "."),
        ("", "."),
        ("/", "/"),
        ("//etc//hosts/", "/etc/hosts"),
        ("a/../b", "a/../b"),
        ("  ./x/  ", "x"),
    ],
)
def test_normalise_path_cases(text: str, expected: str) -> None:
    assert normalise_path(text) == expected


@pytest.mark.parametrize(
    ("schema", "name", "expected"),
    [
        (None, "path", True),
        (None, "File_Path", True),
        (None, "cwd", True),
        (None, "query", False),
        ({"type": "string", "format": "path"}, "src", True),
        ({"type": "string"}, None, False),
    ],
)
def test_is_path_by_name_or_format(schema: dict | None, name: str | None, expected: bool) -> None:
    assert is_path(schema, name) is expected


INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}


@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        ("5", INT, 5),
        (" -12 ", INT, -12),
        ("5.0", INT, 5.0),
        ("1e3", NUM, 1000.0),
        ("abc", INT, "abc"),
        ("nan", NUM, "nan"),
        ("inf", NUM, "inf"),
        ("true", BOOL, True),
        ("FALSE", BOOL, False),
        ("yes", BOOL, "yes"),
        ("5", {"type": ["integer", "string"]}, "5"),
        ("5", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, 5),
        ("null", {"type": ["integer", "null"]}, None),
        ("5", {"enum": [5, 6]}, "5"),
        ("5", None, "5"),
        ("[1, 2]", {"type": "array"}, [1, 2]),
        ('{"a": 1}', {"type": "array"}, '{"a": 1}'),
        ('{"a": "2"}', {"type": "object", "properties": {"a": INT}}, {"a": 2}),
        (["1", "x"], {"type": "array", "items": INT}, [1, "x"]),
        (["1", "1"], {"type": "array", "prefixItems": [INT, BOOL]}, [1, "1"]),
        ({"n": "3", "m": "4"}, {"type": "object", "additionalProperties": INT}, {"n": 3, "m": 4}),
        ("[" * 200 + "]" * 200, {"type": "array"}, "[" * 200 + "]" * 200),
        ("[1,", {"type": "array"}, "[1,"),
    ],
)
def test_coerce_value_by_schema(value: object, schema: dict | None, expected: object) -> None:
    got = coerce_value(value, schema)  # type: ignore[arg-type]
    assert got == expected
    assert type(got) is type(expected)


def test_schema_types_union_and_empty() -> None:
    assert schema_types({"type": ["string", "null"]}) == {"string", "null"}
    assert schema_types({"oneOf": [{"type": "integer"}, {"type": "boolean"}]}) == {
        "integer",
        "boolean",
    }
    assert schema_types({}) == frozenset()
    assert schema_types(None) == frozenset()
