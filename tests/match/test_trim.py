"""Where surrounding whitespace is ignored: identifiers trimmed, content kept exact."""

from __future__ import annotations

import pytest

from toolgrade import Case, Suite, SuiteDefaults, ToolSpec, judge
from toolgrade.match import MatchOptions, compare_values
from toolgrade.match._values import SEMANTIC

CONTENT = {"type": "string", "contentMediaType": "text/plain"}
PLAIN = {"type": "string"}


@pytest.mark.parametrize(
    ("expected", "actual", "schema", "same"),
    [
        ("hello", "  hello\n", PLAIN, True),
        ("hello", "  hello\n", None, True),
        ("hello", " hello", CONTENT, False),
        ("hello", "hello ", CONTENT, False),
        ("hello", "hello", CONTENT, True),
        ("hello", " hello", {"type": "string", "x-toolgrade-trim": False}, False),
        ("hello", " hello ", {**CONTENT, "x-toolgrade-trim": True}, True),
        ({"$regex": "Grüße, 世界! 👋\\n?"}, " Grüße, 世界! 👋", CONTENT, False),
        ({"$regex": "Grüße, 世界! 👋\\n?"}, "Grüße, 世界! 👋\n", CONTENT, True),
        ({"$regex": "Grüße, 世界! 👋\\n?"}, " Grüße, 世界! 👋", PLAIN, True),
        ({"$icase": "Hi"}, " HI", CONTENT, False),
        ({"$contains": "x"}, " x ", CONTENT, True),
    ],
    ids=[
        "plain_trimmed",
        "no_schema_trimmed",
        "content_leading_space_differs",
        "content_trailing_space_differs",
        "content_exact_matches",
        "keyword_false_keeps_whitespace",
        "keyword_true_wins_over_content",
        "content_regex_sees_leading_space",
        "content_regex_allows_what_it_says",
        "plain_regex_after_trimming",
        "content_icase_sees_space",
        "content_contains_is_substring",
    ],
)
def test_trim_rule_by_schema(
    expected: object, actual: str, schema: dict[str, object] | None, same: bool
) -> None:
    found = compare_values(expected, actual, options=SEMANTIC, schema=schema)  # type: ignore[arg-type]
    assert (found == []) is same, found


def test_trim_option_off_keeps_whitespace_unless_schema_trims() -> None:
    keep = MatchOptions(semantic=True, matchers=True, trim=False)
    assert compare_values("a", " a", options=keep, schema=PLAIN)
    assert not compare_values("a", " a", options=keep, schema={**PLAIN, "x-toolgrade-trim": True})
    # Paths are identifiers: normalised (and trimmed) whatever the option says.
    assert not compare_values("src/a.py", " ./src/a.py", options=keep, name="path")


WRITE = ToolSpec(
    name="write_file",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": CONTENT, "note": PLAIN},
        "required": ["path", "content"],
    },
)


def _status(actual: dict[str, object], defaults: SuiteDefaults | None = None) -> str:
    case = Case(
        id="t",
        prompt="Create greeting.txt containing exactly: hi",
        expected={"name": "write_file", "arguments": {"path": "greeting.txt", "content": "hi"}},
    )
    call = {"name": "write_file", "arguments": actual}
    return judge(case, [call], tools=[WRITE], defaults=defaults).status.value


def test_judge_content_argument_is_not_trimmed() -> None:
    assert _status({"path": " greeting.txt ", "content": "hi"}) == "correct"
    assert _status({"path": "greeting.txt", "content": " hi"}) == "wrong_args"


def test_judge_suite_default_turns_trimming_off_for_undecided_strings() -> None:
    case = Case(id="t", prompt="p", expected={"name": "write_file", "arguments": {"note": "x"}})
    call = [{"name": "write_file", "arguments": {"path": "a", "content": "", "note": " x"}}]
    on = judge(case, call, tools=[WRITE], defaults=SuiteDefaults())
    off = judge(case, call, tools=[WRITE], defaults=SuiteDefaults(trim_strings=False))
    assert (on.status.value, off.status.value) == ("correct", "wrong_args")


def test_suite_trim_default_keeps_content_hash_and_round_trips() -> None:
    plain = Suite(name="s")
    assert Suite(name="s", defaults=SuiteDefaults(trim_strings=True)).content_hash == (
        plain.content_hash
    )
    off = Suite(name="s", defaults=SuiteDefaults(trim_strings=False))
    assert off.content_hash != plain.content_hash
    assert off.to_dict()["defaults"] == {"order": "any", "rubric": "partial", "trim_strings": False}
    assert "trim_strings" not in plain.to_dict()["defaults"]  # type: ignore[operator]
