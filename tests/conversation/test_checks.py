"""End-of-conversation checks and JSON Pointers: each check passes and fails."""

from __future__ import annotations

import pytest

from toolgrade._core.transcript import TurnResult
from toolgrade._core.vocab import ToolCall
from toolgrade.environments._pointer import get_pointer, pointer_problem, pointer_to_path
from toolgrade.judging._end_checks import (
    check_final_state,
    check_forbidden,
    check_max_calls,
    check_trajectory,
    check_turns,
    check_unchanged,
    find_forbidden,
)
from toolgrade.match._matchers import MatcherError
from toolgrade.suite import (
    CallPattern,
    Conversation,
    FinalStateCheck,
    SuiteDefaults,
    ToolSpec,
    TrajectoryCheck,
)

STATE = {
    "files": {"a.md": "# A\n", "src/m.py": "x = 1", "~t": "tilde"},
    "log": ["init", "edit"],
    "count": 2,
}


@pytest.mark.parametrize(
    ("pointer", "found", "value"),
    [
        ("", True, STATE),
        ("/files/a.md", True, "# A\n"),
        ("/files/src~1m.py", True, "x = 1"),
        ("/files/~0t", True, "tilde"),
        ("/log/1", True, "edit"),
        ("/log/2", False, None),
        ("/log/01", False, None),
        ("/log/-", False, None),
        ("/count/x", False, None),
        ("/nope", False, None),
    ],
)
def test_pointer_get(pointer: str, found: bool, value: object) -> None:
    assert get_pointer(STATE, pointer) == (found, value)  # type: ignore[arg-type]


def test_pointer_empty_key_token() -> None:
    assert get_pointer({"": {"": 3}}, "//") == (True, 3)


@pytest.mark.parametrize("pointer", ["files", "/a~2", "/a~"])
def test_pointer_malformed_problem_and_raises(pointer: str) -> None:
    assert pointer_problem(pointer) is not None
    with pytest.raises(ValueError, match=r"JSON Pointer|must be followed"):
        get_pointer(STATE, pointer)  # type: ignore[arg-type]


def test_pointer_to_path_quotes_odd_keys() -> None:
    assert pointer_to_path("/files/a.md") == '$.files["a.md"]'
    assert pointer_to_path("/log/0") == "$.log[0]"
    assert pointer_to_path('/a"b') == '$["a\\"b"]'


def test_final_state_subset_passes_ignoring_unmentioned() -> None:
    spec = FinalStateCheck(state={"files": {"a.md": "# A"}, "count": 2})
    result = check_final_state(spec, STATE)  # type: ignore[arg-type]
    assert result.passed
    assert result.name == "final_state"


def test_final_state_subset_mismatch_paths() -> None:
    spec = FinalStateCheck(state={"files": {"a.md": "# B", "new.txt": "x"}, "count": 3})
    result = check_final_state(spec, STATE)  # type: ignore[arg-type]
    assert not result.passed
    assert [(d.path, d.reason) for d in result.details] == [
        ('$.files["a.md"]', "value"),
        ('$.files["new.txt"]', "missing"),
        ("$.count", "value"),
    ]
    assert (
        result.message
        == 'state differs: $.files["a.md"]: expected "# B", got "# A\\n" (and 2 more)'
    )


def test_final_state_matchers_apply_to_leaves() -> None:
    spec = FinalStateCheck(
        state={
            "files": {
                "a.md": {"$contains": "# a"},
                "src/m.py": {"$regex": "x = \\d+"},
                "gone.txt": {"$absent": True},
            },
            "log": {"$unordered": ["edit", "init"]},
            "count": {"$type": "integer"},
        }
    )
    assert check_final_state(spec, STATE).passed  # type: ignore[arg-type]
    bad = FinalStateCheck(state={"files": {"a.md": {"$absent": True}}})
    result = check_final_state(bad, STATE)  # type: ignore[arg-type]
    assert not result.passed
    assert result.details[0].path == '$.files["a.md"]'


def test_final_state_lists_compare_whole() -> None:
    spec = FinalStateCheck(state={"log": ["init"]})
    result = check_final_state(spec, STATE)  # type: ignore[arg-type]
    assert not result.passed
    assert result.details[0].path == "$.log"


def test_final_state_exact_refuses_other_keys() -> None:
    spec = FinalStateCheck(state={"files": STATE["files"], "log": ["init", "edit"]}, exact=True)
    result = check_final_state(spec, STATE)  # type: ignore[arg-type]
    assert not result.passed
    assert [(d.path, d.reason) for d in result.details] == [("$.count", "unexpected")]
    whole = FinalStateCheck(state=STATE, exact=True)  # type: ignore[arg-type]
    assert check_final_state(whole, STATE).passed  # type: ignore[arg-type]


def test_final_state_exact_nested_extra_key_fails() -> None:
    spec = FinalStateCheck(state={"a": {"b": 1}}, exact=True)
    result = check_final_state(spec, {"a": {"b": 1, "c": 2}})
    assert [d.path for d in result.details] == ["$.a.c"]


def test_final_state_trim_follows_defaults() -> None:
    spec = FinalStateCheck(state={"files": {"a.md": "# A"}})
    keep = SuiteDefaults(trim_strings=False)
    assert not check_final_state(spec, STATE, defaults=keep).passed  # type: ignore[arg-type]


def test_final_state_state_not_an_object() -> None:
    spec = FinalStateCheck(state={"a": 1})
    result = check_final_state(spec, None)
    assert not result.passed
    assert result.details[0].reason == "type"


def test_final_state_malformed_matcher_raises() -> None:
    spec = FinalStateCheck(state={"a": {"$regex": "("}})
    with pytest.raises(MatcherError):
        check_final_state(spec, {"a": "x"})


def test_unchanged_passes_when_equal_or_missing_both() -> None:
    final = {**STATE, "count": 3}
    result = check_unchanged(["/files/a.md", "/nope", "/log"], STATE, final)  # type: ignore[arg-type]
    assert result.passed


def test_unchanged_reports_changed_removed_added() -> None:
    initial = {"a": 1, "b": {"c": 2}}
    final = {"a": 2, "d": 0}
    result = check_unchanged(["/a", "/b/c", "/d"], initial, final)
    assert not result.passed
    assert [(d.path, d.reason, d.message) for d in result.details] == [
        ("$.a", "value", ""),
        ("$.b.c", "missing", "removed"),
        ("$.d", "unexpected", "added"),
    ]
    assert result.message == "changed: $.a: expected 1, got 2 (and 2 more)"


def test_unchanged_whole_state_pointer() -> None:
    assert check_unchanged([""], {"a": 1}, {"a": 1}).passed
    assert not check_unchanged([""], {"a": 1}, {"a": 1, "b": 2}).passed


def test_unchanged_malformed_pointer_raises() -> None:
    with pytest.raises(ValueError, match="JSON Pointer"):
        check_unchanged(["a"], {}, {})


def test_trajectory_check_pass_and_fail() -> None:
    spec = TrajectoryCheck(calls=[{"name": "ls"}, {"name": "read"}], mode="in_order")
    calls = [ToolCall(name="ls"), ToolCall(name="pwd"), ToolCall(name="read")]
    assert check_trajectory(spec, calls).passed
    result = check_trajectory(spec, calls[::-1])
    assert not result.passed
    assert result.name == "trajectory"
    assert result.message is not None
    assert result.message.startswith("in_order: reference call 2 (read) was not made")


RM = ToolSpec(
    name="rm",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "force": {"type": "boolean"}},
    },
)
OUTSIDE_TMP = CallPattern(name="rm", arguments={"path": {"$not": {"$regex": "tmp/.*"}}})


def test_forbidden_passes_without_matching_call() -> None:
    calls = [
        (0, 0, ToolCall(name="rm", arguments={"path": "tmp/x"})),
        (0, 1, ToolCall(name="ls", arguments={"path": "src"})),
    ]
    result = check_forbidden([OUTSIDE_TMP], calls, tools={"rm": RM})
    assert result.passed


def test_forbidden_names_first_call_turn_and_step() -> None:
    calls = [
        (0, 0, ToolCall(name="rm", arguments={"path": "tmp/x"})),
        (1, 0, ToolCall(name="rm", arguments={"path": "src/a.py"})),
        (2, 1, ToolCall(name="rm", arguments={"path": "README.md"})),
    ]
    result = check_forbidden([OUTSIDE_TMP], calls, tools={"rm": RM})
    assert not result.passed
    assert (
        result.message == 'forbidden call rm({"path": "src/a.py"}) in turn 2, step 1 (and 1 more)'
    )
    hits = find_forbidden([OUTSIDE_TMP], calls, tools={"rm": RM})
    assert [(h.turn, h.step, h.pattern) for h in hits] == [(1, 0, 0), (2, 1, 0)]


def test_forbidden_pattern_subset_of_arguments_with_coercion() -> None:
    pattern = CallPattern.model_validate({"tool": "rm", "arguments": {"force": True}})
    call = ToolCall(name="rm", arguments={"path": "a", "force": "true"})
    assert not check_forbidden([pattern], [(0, 0, call)], tools={"rm": RM}).passed
    assert check_forbidden([pattern], [(0, 0, call)]).passed  # no schema: "true" is a string
    bare = CallPattern(name="rm")
    assert not check_forbidden([bare], [(0, 0, call)]).passed


def test_max_calls_pass_and_fail() -> None:
    assert check_max_calls(3, 3).passed
    result = check_max_calls(3, 4)
    assert not result.passed
    assert result.message == "4 calls, more than the 3 allowed"


def _turn(
    index: int, *, passed: bool = True, checked: bool = True, cause: str | None = None
) -> TurnResult:
    return TurnResult(
        index=index,
        user="u",
        passed=passed,
        checked=checked,
        cause=cause,  # type: ignore[arg-type]
        message=None if passed else "why",
    )


def test_turns_check_pass_fail_and_unchecked() -> None:
    assert check_turns([_turn(0), _turn(1, passed=False, checked=False, cause="wrong_args")]).passed
    result = check_turns([_turn(0), _turn(1, passed=False, cause="wrong_args")])
    assert not result.passed
    assert result.message == "turn 2: wrong_args: why"


def test_turns_check_step_limit_in_unchecked_turn_fails() -> None:
    result = check_turns([_turn(0, passed=False, checked=False, cause="step_limit")])
    assert not result.passed


def test_turns_check_unreached_stated_turn_fails() -> None:
    conversation = Conversation(
        id="c", turns=["hi", {"user": "go", "expected": {"name": "ls"}}, "bye"]
    )
    result = check_turns([_turn(0, checked=False)], conversation=conversation)
    assert not result.passed
    assert result.message == "turn 2 was never reached"
    assert check_turns([_turn(0, checked=False)]).passed
