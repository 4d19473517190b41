"""assert_trajectory: every trajectory mode, forbidden calls, the reply, and the failure text.

A trajectory is judged as a suite's conversation of one turn, so each problem line is the
message of the suite's own check (`trajectory`, `forbidden`, the turn's `reply`,
`max_calls`).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolgrade
from toolgrade import ToolCall, assert_trajectory
from toolgrade.errors import InputError


def _assistant(*calls: tuple[str, dict[str, Any]], content: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {
                "id": f"{name}-{n}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for n, (name, args) in enumerate(calls)
        ]
    return message


def _run(*steps: tuple[str, dict[str, Any]], reply: str = "Done.") -> list[dict[str, Any]]:
    """A trajectory: one assistant message per call, each answered, then the reply."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Please fix the docs."}]
    for k, (name, args) in enumerate(steps):
        message = _assistant((name, args))
        message["tool_calls"][0]["id"] = f"c{k}"
        messages += [message, {"role": "tool", "tool_call_id": f"c{k}", "content": "ok"}]
    return [*messages, _assistant(content=reply)]


READ = ("read_file", {"path": "a.md"})
LIST = ("list_dir", {"path": "."})
WRITE = ("write_file", {"path": "a.md", "text": "hello"})
RUN = _run(LIST, READ, WRITE)


def _exp(*calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": n, "arguments": a} for n, a in calls]


def _fails(*args: Any, **kwargs: Any) -> str:
    with pytest.raises(AssertionError) as info:
        assert_trajectory(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("exact", _exp(LIST, READ, WRITE)),
        ("in_order", _exp(READ, WRITE)),
        ("unordered", _exp(WRITE, LIST, READ)),
        ("subset", _exp(WRITE, READ, LIST, ("delete_file", {}))),
        ("superset", _exp(WRITE, LIST)),
    ],
)
def test_assert_trajectory_each_mode_passes(mode: Any, expected: Any) -> None:
    verdict = assert_trajectory(RUN, expected, mode)
    assert verdict.passed


def test_assert_trajectory_returns_the_pairing() -> None:
    verdict = assert_trajectory(RUN, _exp(READ, WRITE))
    assert verdict.matched == ((0, 1), (1, 2))
    assert verdict.unexpected == (0,)


def test_assert_trajectory_exact_extra_call_fails_with_listing() -> None:
    text = _fails(RUN, _exp(READ, WRITE), "exact")
    assert text.splitlines()[0] == (
        "trajectory does not hold: exact: call 1: expected read_file, got list_dir"
    )
    assert '    1. read_file({"path": "a.md"})  -> NOT MADE (call 1 is list_dir)' in text
    assert '    1. list_dir({"path": "."})  -> NOT EXPECTED here (expected 1 is read_file)' in text
    assert text.endswith('    3. write_file({"path": "a.md", "text": "hello"})  -> NOT EXPECTED')


def test_assert_trajectory_exact_wrong_args_in_place_shows_differences() -> None:
    expected = _exp(LIST, READ, ("write_file", {"path": "b.md", "text": "hello"}))
    text = _fails(RUN, expected, "exact")
    assert text.splitlines()[0] == (
        'trajectory does not hold: exact: call 3: $.path: expected "b.md", got "a.md"'
    )
    assert "-> NOT MADE (call 3 has other arguments)" in text
    assert text.splitlines()[-2:] == [
        "  argument differences, expected 3 vs call 3:",
        '    $.path: expected "b.md", got "a.md"',
    ]


def test_assert_trajectory_several_problems_each_on_a_line() -> None:
    messages = _run(READ, ("delete_file", {"path": "a.md"}), reply="Gone.")
    text = _fails(messages, _exp(WRITE), forbidden=[{"name": "delete_file"}], reply="Done.")
    lines = text.splitlines()
    assert (
        lines[0] == "trajectory does not hold: in_order: reference call 1 (write_file) was not made"
    )
    assert lines[1] == '  also: forbidden call delete_file({"path": "a.md"}) in turn 1, step 2'
    assert lines[2] == '  also: the reply "Gone." is not "Done."'


def test_assert_trajectory_in_order_swap_fails_out_of_order() -> None:
    text = _fails(_run(WRITE, READ), _exp(READ, WRITE))
    assert "in_order: reference call 2 (write_file) was not made after call 2" in text
    assert "out of order" in text


def test_assert_trajectory_in_order_wrong_args_shows_path_expected_actual() -> None:
    expected = _exp(READ, ("write_file", {"path": "a.md", "text": "goodbye"}))
    text = _fails(RUN, expected)
    assert "NOT MADE (call 3 has other arguments)" in text
    assert "  argument differences, expected 2 vs call 3:" in text
    assert '    $.text: expected "goodbye", got "hello"' in text


def test_assert_trajectory_in_order_other_calls_are_allowed_in_listing() -> None:
    text = _fails(RUN, _exp(READ, ("deploy", {})))
    assert '    1. list_dir({"path": "."})  -> other call (allowed)' in text
    assert "    2. deploy({})  -> NOT MADE" in text


def test_assert_trajectory_unordered_missing_call_fails() -> None:
    text = _fails(_run(READ, WRITE), _exp(WRITE, LIST, READ), "unordered")
    assert "unordered: reference call 2 (list_dir) was not made" in text


def test_assert_trajectory_subset_call_outside_fails() -> None:
    text = _fails(RUN, _exp(READ, WRITE), "subset")
    assert "subset: call 1 (list_dir) is not in the reference" in text
    assert "  expected (subset):" in text


def test_assert_trajectory_superset_missing_call_fails() -> None:
    text = _fails(RUN, _exp(READ, ("run_tests", {})), "superset")
    assert "superset: reference call 2 (run_tests) was not made" in text


def test_assert_trajectory_matchers_in_expected_calls() -> None:
    assert_trajectory(RUN, [{"name": "write_file", "arguments": {"text": {"$regex": "hel.*"}}}])


def test_assert_trajectory_tools_schema_guides_comparison() -> None:
    tool = {
        "name": "set_limit",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
    messages = _run(("set_limit", {"n": "5"}))
    assert_trajectory(messages, {"name": "set_limit", "arguments": {"n": 5}}, tools=[tool])
    with pytest.raises(AssertionError):
        assert_trajectory(messages, {"name": "set_limit", "arguments": {"n": 5}})


def test_assert_trajectory_forbidden_call_fails_and_is_marked() -> None:
    messages = _run(READ, ("delete_file", {"path": "src/main.py"}))
    forbidden = [{"name": "delete_file", "arguments": {"path": {"$not": {"$regex": "tmp/.*"}}}}]
    text = _fails(messages, _exp(READ), forbidden=forbidden)
    assert text.splitlines()[0] == (
        "trajectory does not hold: "
        'forbidden call delete_file({"path": "src/main.py"}) in turn 1, step 2'
    )
    assert '2. delete_file({"path": "src/main.py"})  -> other call (allowed); FORBIDDEN (' in text


def test_assert_trajectory_forbidden_pattern_not_matching_passes() -> None:
    messages = _run(("delete_file", {"path": "tmp/x"}))
    forbidden = {"tool": "delete_file", "arguments": {"path": {"$not": {"$regex": "tmp/.*"}}}}
    assert_trajectory(messages, None, "superset", forbidden=forbidden)


@pytest.mark.parametrize(
    ("reply", "ok"),
    [
        ("  Done. ", True),
        ("Finished.", False),
        ({"$contains": "one"}, True),
        ({"$regex": "Fail.*"}, False),
    ],
)
def test_assert_trajectory_reply_string_or_matcher(reply: Any, ok: bool) -> None:
    if ok:
        assert_trajectory(RUN, None, "superset", reply=reply)
    else:
        assert _fails(RUN, None, "superset", reply=reply).startswith(
            "trajectory does not hold: the reply "
        )


def test_assert_trajectory_reply_mismatch_message_quotes_both() -> None:
    text = _fails(RUN, None, "superset", reply="Finished.")
    assert text.splitlines()[0] == (
        'trajectory does not hold: the reply "Done." is not "Finished."'
    )


def test_assert_trajectory_no_final_reply_fails_when_reply_stated() -> None:
    text = _fails(RUN[:-1], None, "superset", reply="Done.")
    assert text.splitlines()[0] == "trajectory does not hold: the turn ended without a reply"


def test_assert_trajectory_max_calls() -> None:
    assert_trajectory(RUN, None, "superset", max_calls=3)
    text = _fails(RUN, None, "superset", max_calls=2)
    assert "3 calls, more than the 2 allowed" in text


def test_assert_trajectory_no_call_expected_exact_and_none_made() -> None:
    assert_trajectory([{"role": "assistant", "content": "Which file?"}], None, "exact")
    text = _fails(RUN, None, "exact")
    assert "  expected: no call" in text


def test_assert_trajectory_nothing_called_is_shown() -> None:
    text = _fails([{"role": "assistant", "content": "I can't."}], _exp(READ))
    assert "  called: nothing" in text


def test_assert_trajectory_parallel_calls_in_one_message_count_in_order() -> None:
    messages = [_assistant(LIST, READ), _assistant(WRITE), _assistant(content="ok")]
    assert_trajectory(messages, _exp(LIST, READ, WRITE), "exact")


def test_assert_trajectory_malformed_call_is_listed() -> None:
    messages = [
        {"role": "assistant", "tool_calls": [{"function": {"name": "x", "arguments": "{bad"}}]},
    ]
    text = _fails(messages, _exp(READ))
    assert "  malformed calls in the messages:" in text
    assert "messages[0].tool_calls[0]" in text


def test_assert_trajectory_accepts_calls_sdk_objects_and_state_mapping() -> None:
    assert_trajectory([ToolCall(name="read_file", arguments={"path": "a.md"})], _exp(READ))
    assert_trajectory([{"name": "read_file", "arguments": {"path": "a.md"}}], _exp(READ))
    assert_trajectory({"messages": RUN}, _exp(READ))

    class Message:
        def __init__(self, data: dict[str, Any]) -> None:
            self.data = data

        def model_dump(self, mode: str = "python") -> dict[str, Any]:
            return self.data

    assert_trajectory([Message(m) for m in RUN], _exp(READ, WRITE))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"messages": "text"}, "messages: expected a list"),
        ({"messages": RUN, "expected": "read_file"}, "expected: must be"),
        ({"messages": RUN, "mode": "sometimes"}, "mode: expected one of"),
        ({"messages": RUN, "forbidden": [{"arguments": {}}]}, "forbidden:"),
        ({"messages": [{"name": 3}]}, "messages"),
    ],
)
def test_assert_trajectory_malformed_input_is_input_error(
    kwargs: dict[str, Any], message: str
) -> None:
    arguments: dict[str, Any] = {"expected": None, **kwargs}
    with pytest.raises(InputError, match=message):
        assert_trajectory(**arguments)


def test_assert_trajectory_is_public() -> None:
    assert toolgrade.assert_trajectory is assert_trajectory
    assert toolgrade.agent.assert_trajectory is assert_trajectory


def test_assert_trajectory_failure_says_which_calls_got_an_error_result() -> None:
    # An agent's tool result marked `is_error` (Anthropic's blocks): the failure message
    # says so beside the call, in the words of the result.
    messages = [
        {"role": "user", "content": "Read a.md"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t0", "name": "read_file", "input": {"path": "a.md"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t0",
                    "content": "FileNotFoundError: a.md",
                    "is_error": True,
                }
            ],
        },
        {"role": "assistant", "content": "I could not read it."},
    ]
    text = _fails(messages, _exp(READ, WRITE), "exact")
    assert (
        '    1. read_file({"path": "a.md"})  -> expected 1; its result was an error: '
        "FileNotFoundError: a.md"
    ) in text.splitlines()
