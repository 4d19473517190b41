"""`$regex` runs on RE2: linear time, compiled once, RE2 syntax checked when a suite loads."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from toolgrade.match import _regex, compare_values, matcher_problems
from toolgrade.match._regex import FALLBACK_MAX_PATTERN, FALLBACK_MAX_TEXT, compiled
from toolgrade.match._values import SEMANTIC


def _matches(pattern: str, actual: str) -> bool:
    return not compare_values({"$regex": pattern}, actual, options=SEMANTIC)


@pytest.mark.parametrize("length", [30, 5_000])
def test_regex_catastrophic_pattern_is_linear_time(length: int) -> None:
    started = time.perf_counter()
    assert not _matches("(a+)+b", "a" * length)
    assert not _matches("(x+x+)+y", "x" * length)
    assert time.perf_counter() - started < 1.0


def test_regex_compiled_once_per_pattern() -> None:
    assert compiled("src/.*\\.py") is compiled("src/.*\\.py")


@pytest.mark.parametrize(
    ("pattern", "actual", "expected"),
    [
        ("src/.*\\.py", "src/pkg/m.py", True),
        ("cat", "cats", False),  # the whole string must match
        ("a|ab", "ab", True),
        ("é+.", "ééx", True),
        ("(?i)readme\\.md", "README.md", True),
        ("(?!)", "", False),  # the never-matching idiom BFCL imports write
        ("(?!)", "anything", False),
    ],
)
def test_regex_matches_whole_string(pattern: str, actual: str, expected: bool) -> None:
    assert _matches(pattern, actual) is expected


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("(a)\\1", "invalid escape sequence at '\\1'; $regex uses RE2 syntax"),
        ("(?=a)a", "invalid perl operator at '(?='; $regex uses RE2 syntax"),
        ("(?<!a)b", "invalid perl operator at '(?<!'; $regex uses RE2 syntax"),
        ("a{2000}", "invalid repetition size at '{2000}'"),
        ("(", "missing ) at '('"),
    ],
)
def test_regex_not_re2_is_a_matcher_problem(pattern: str, problem: str) -> None:
    (found,) = matcher_problems({"q": {"$regex": pattern}})
    assert found.startswith(f"$.q: $regex: invalid pattern ({problem}")


@pytest.fixture
def without_re2(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As on a platform where google-re2 cannot be imported."""
    monkeypatch.setattr(_regex, "re2", None)
    compiled.cache_clear()
    yield
    compiled.cache_clear()


@pytest.mark.usefixtures("without_re2")
def test_regex_fallback_matches_with_python_re() -> None:
    assert _matches("src/.*\\.py", "src/m.py")
    assert not _matches("(?!)", "")


@pytest.mark.usefixtures("without_re2")
@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("(a)\\1", "not RE2 syntax"),
        ("(?=a)a", "not RE2 syntax"),
        ("(?P<q>a)(?P=q)", "not RE2 syntax"),
        ("a" * (FALLBACK_MAX_PATTERN + 1), f"longer than {FALLBACK_MAX_PATTERN} characters"),
        ("(", "missing ), unterminated subpattern"),
    ],
)
def test_regex_fallback_keeps_re2_syntax_and_bounds(pattern: str, problem: str) -> None:
    (found,) = matcher_problems({"q": {"$regex": pattern}})
    assert problem in found


@pytest.mark.usefixtures("without_re2")
def test_regex_fallback_refuses_long_text() -> None:
    assert _matches("a+", "a" * FALLBACK_MAX_TEXT)
    assert not _matches("a+", "a" * (FALLBACK_MAX_TEXT + 1))
    assert matcher_problems({"q": {"$regex": "\\\\1"}}) == []  # an escaped backslash, then 1
