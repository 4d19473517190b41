r"""The pythonic readers give one verdict whatever the process's warning filters.

Python's parser warns about what it accepts but deprecates (`"\d"`, `"\777"`, `1if`);
under a warnings filter of "error" (pytest's `filterwarnings = error`, `python -W
error`) each warning becomes a SyntaxError. The readers rewrite such text to what Python
reads it as before parsing, so the parser never warns and the calls are the same.
"""

from __future__ import annotations

import ast
import threading
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade import Extraction, extract_calls
from toolgrade.extract._pyliteral import parse_python_literal, read_call_block
from toolgrade.extract._pysource import quiet_source

# Each output holds something Python warns about and accepts (the value it reads is
# the same with or without the warning).
_WARNING_OUTPUTS = [
    '[f(a="\\d")]',
    "[f(pattern='^\\d+\\.\\w*$', path='D:\\data\\me')]",
    "f(a='\\777')",
    "[f(a=b'\\d'), g(b=1)]",
    "[f(a=b'\\u1234'), g(b=1)]",
    "[f(a=[1if 1 else 2]), g(b=1)]",
    "[f(a=[0x1for x in y]), g(b=1)]",
    "[f(a=1), g(b=[0 if 1e5else 2])]",
    '```tool_code\nsearch(q="\\s+")\n```',
    '<|tool_call_start|>[f(a="\\d")]<|tool_call_end|>',
    "<function_calls>f(a='\\p{L}')</function_calls>",
    "[f(a='''multi\n\\d line''')]",
]


def _extract(output: str, action: str) -> Extraction:
    with warnings.catch_warnings():
        warnings.simplefilter(action)  # type: ignore[call-overload]
        return extract_calls(output)


@pytest.mark.parametrize("output", _WARNING_OUTPUTS)
def test_pythonic_verdict_does_not_depend_on_warning_filters(output: str) -> None:
    quiet = _extract(output, "ignore")
    strict = _extract(output, "error")
    assert strict == quiet
    assert strict.calls, strict


def test_pythonic_invalid_escape_is_backslash_and_letter() -> None:
    found = _extract('[f(a="\\d", b="x\\.y")]', "error")
    assert found.ok, found.errors
    assert found.calls[0].arguments == {"a": "\\d", "b": "x\\.y"}


def test_pythonic_octal_escape_over_255_reads_as_python_does() -> None:
    found = _extract("[f(a='\\777', b='\\101')]", "error")
    assert found.calls[0].arguments == {"a": "\u01ff", "b": "A"}


def test_pythonic_literal_reader_under_error_filter() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_python_literal("{'re': '\\d+'}") == {"re": "\\d+"}
        block = read_call_block("[f(a='\\d'), g(b=[1if 1 else 2])]")
    assert block.syntax_error == ""
    assert block.calls == [("f", {"a": "\\d"})]
    assert len(block.problems) == 1


@pytest.mark.parametrize(
    "source",
    [
        "[f(a='\\d')]",
        "[f(a=r'\\d', b=rb'\\d', c=Rb'\\q', d=f'\\d{x}')]",
        "[f(a='\\N{BULLET}', b='\\x41', c='\\u00e9', d='\\U0001F600', e='\\0', f='\\\\d')]",
        "[f(a=b'\\N{BULLET}\\u12')]",
        "[f(a='''\\d\n\\q''', b=\"\"\"\\d\"\"\")]",
        "[f(a='\\\n')]",
        "[f(a=1if 1 else 2, b=0b1in x, c=0o7or 1, d=1jif 1 else 2, e=1.0and 2, f=1_0is 2)]",
        "[f(a=x1if, b=a1for)]",
    ],
)
def test_pythonic_quiet_source_parses_as_python_does(source: str) -> None:
    rewritten = quiet_source(source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet_tree = ast.dump(ast.parse(rewritten)) if _parses(rewritten) else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = ast.dump(ast.parse(source)) if _parses(source) else None
    assert quiet_tree == tree


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def test_pythonic_no_warning_leaks_from_worker_threads() -> None:
    # Extraction runs in worker threads: the fix must not touch the warning filters.
    outcomes: list[Extraction] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        threads = [
            threading.Thread(target=lambda: outcomes.append(extract_calls('[f(a="\\d")]')))
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert [o.calls[0].arguments for o in outcomes] == [{"a": "\\d"}] * 4


_PIECES = (
    "'", '"', "'''", "\\", "\\\\", "\\d", "\\n", "\\777", "\\101", "\\x41", "\\x4", "\\u00e9",
    "\\u12", "\\U0001F600", "\\N{BULLET}", "\\N", "\\\n", "r", "b", "rb", "f", "u", "x",
    "1", "0", "0x1f", "0b1", "0o7", "1.5", "1e5", "1j", "_", ".", "if", "else", "for", "in",
    "is", "or", "and", "not", " ", "(", ")", "[", "]", ",", "=", "{", "}", "a", "#", "\n",
)  # fmt: skip


def _tree(source: str) -> str | None:
    try:
        return ast.dump(ast.parse(source))
    except (SyntaxError, ValueError):
        return None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_pythonic_quiet_source_is_what_python_reads(pieces: list[str]) -> None:
    """Whatever the text, the rewritten text parses, warning-free, to Python's own tree."""
    source = "".join(pieces)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _tree(source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _tree(quiet_source(source)) == expected
