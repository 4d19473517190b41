"""BFCL's multi-turn checker as toolgrade reproduces it: decoding, execution, verdicts."""

from __future__ import annotations

import ast
import json

import pytest

pytest.importorskip("bfcl_eval.eval_checker.multi_turn_eval.func_source_code.math_api")

from bfcl_mt_scenario import FILES

from toolgrade._core.transcript import Step
from toolgrade.bfcl._mt_checker import (
    MultiTurnCheck,
    MultiTurnEntry,
    call_text,
    check_multi_turn,
    judge_bfcl_conversation,
    steps_from_runs,
)
from toolgrade.bfcl._mt_decode import DecodeError, bfcl_step, decode_step, literal_arithmetic
from toolgrade.bfcl._mt_execute import BfclSide, instance_name, result_string
from toolgrade.environments import TurnRun
from toolgrade.judging import judge_conversation
from toolgrade.suite import Conversation, Suite


def _fc(*calls: tuple[str, dict[str, object]]) -> list[dict[str, str]]:
    return [{name: json.dumps(args)} for name, args in calls]


def _side(model: str = "m") -> BfclSide:
    return BfclSide(
        ["GorillaFileSystem", "MathAPI"],
        {"GorillaFileSystem": FILES},
        long_context=False,
        model_name=model,
        entry_id="multi_turn_base_0",
    )


ENTRY = MultiTurnEntry(
    id="multi_turn_base_0",
    involved_classes=("GorillaFileSystem", "MathAPI"),
    initial_config={"GorillaFileSystem": FILES},
    ground_truth=(
        ("mkdir(dir_name='tmp')",),
        (),
        ("ls()", "add(2, b=3)"),
    ),
)
GOOD = [
    [_fc(("mkdir", {"dir_name": "tmp"})), "Done."],
    ["I cannot do that."],
    [_fc(("ls", {}), ("add", {"a": 2, "b": 3})), "Done."],
]


# --- decoding -----------------------------------------------------------------------


def test_mt_decode_fc_renders_calls_as_bfcl_does() -> None:
    step = [{"ls": '{"a": false}'}, {"cd": {"folder": "docs"}}]
    assert decode_step(step, prompt_mode=False) == ["ls(a=False)", "cd(folder='docs')"]
    assert decode_step({"pwd": "{}"}, prompt_mode=False) == ["pwd()"]


@pytest.mark.parametrize("step", ["I will list the files.", None, [{"ls": "[1]"}], [{"ls": "{x"}]])
def test_mt_decode_fc_fails_on_text_and_bad_arguments(step: object) -> None:
    with pytest.raises(DecodeError):
        decode_step(step, prompt_mode=False)


def test_mt_decode_fc_drops_the_whole_step_when_one_call_is_bad() -> None:
    with pytest.raises(DecodeError):
        decode_step([{"pwd": "{}"}, {"ls": "not json"}], prompt_mode=False)


def test_mt_bfcl_step_reads_assistant_messages() -> None:
    message = {
        "role": "assistant",
        "content": "[ls()]",
        "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "cd", "arguments": "{}"}}
        ],
    }
    assert bfcl_step(message, prompt_mode=False) == [{"cd": "{}"}]
    assert bfcl_step(message, prompt_mode=True) == "[ls()]"
    assert bfcl_step({"role": "assistant", "content": "hi"}, prompt_mode=False) == "hi"
    assert bfcl_step([{"ls": "{}"}], prompt_mode=False) == [{"ls": "{}"}]


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ("[cd(folder='docs'), ls()]", ["cd(folder='docs')", "ls()"]),
        ("```\ncd(folder='docs')\n```", ["cd(folder='docs')"]),
        ('cd("docs")', ["cd()"]),  # positional arguments are lost
        ("cd(folder=docs)", ["cd(folder='docs')"]),  # a bare name is its string
        ("add(a=2+3, b=2*2.5)", ["add(a=5, b=5.0)"]),  # arithmetic is evaluated
        ("add(a=+5, b=not 1)", ["add(a=-5, b=-1)"]),  # any unary operator negates
        ("cd(folder=pwd())", ["cd(folder='pwd()')"]),  # a call without keywords: text
        ("cd(folder=pwd(x=1))", ["cd(folder=pwd(x=1))"]),  # with keywords: a call
        ("f(a={'k': {'b': 1}})", ["f(a=k(b=1))"]),  # a dict of dicts reads as a call
        ("f(a={1: 'x', 'y': [1]})", ["f(a={'1': 'x', 'y': [1]})"]),  # keys pasted quoted
        ("f(a=x[0], b=...)", ["f(a='x[0]', b='...')"]),
        ("os.path.f(a=1)", ["os.path.f(a=1)"]),
        ("f(a=1, a=2)", ["f(a=2)"]),  # ast.parse keeps a repeated keyword: the last wins
    ],
)
def test_mt_decode_prompting_quirks(text: str, calls: list[str]) -> None:
    assert decode_step(text, prompt_mode=True) == calls


@pytest.mark.parametrize(
    "text",
    [
        "I will list the files.",
        "[ls(), 'x']",
        "f(a={})",  # parse_nested_value: IndexError
        "f(a=lambda: 1)",
        "f(a=x + 1)",  # eval would raise NameError
        "f(a=1/0)",
        "f(a=-x)",
        "f(a=f'{x}')",
    ],
)
def test_mt_decode_prompting_failures_drop_the_step(text: str) -> None:
    with pytest.raises(DecodeError):
        decode_step(text, prompt_mode=True)
    with pytest.raises(DecodeError):
        decode_step(None, prompt_mode=True)


def test_mt_literal_arithmetic_is_python_on_literals_and_bounded() -> None:
    def value(text: str) -> object:
        return literal_arithmetic(ast.parse(text, mode="eval").body)

    assert value("7 // 2 + 7 % 2 - 2 ** 3") == -4
    assert value("[1] * 2 + [3]") == [1, 1, 3]
    assert value("(1, 2) + (3,)") == (1, 2, 3)
    for text in ("10 ** 10 ** 8", "'x' * 10 ** 9", "1 << 10 ** 9", "len('x') + 1", "a + 1"):
        with pytest.raises(DecodeError):
            value(text)


# --- execution ----------------------------------------------------------------------


def test_mt_execute_result_strings() -> None:
    side = _side()
    results = side.execute(
        ["pwd()", "add(a=2, b=3)", "ls()", "cd(folder='docs')", "len('abc')", "mean(numbers=[])"]
    )
    assert results[0] == json.dumps({"current_working_directory": "/alex"})
    assert json.loads(results[1]) == {"result": 5}
    assert json.loads(results[2]) == {"current_directory_content": ["notes.txt", "docs"]}
    assert results[4] == "3"
    assert results[5].startswith('{"error"')
    assert result_string(None) == "None" and result_string([1]) == "[1]"
    assert result_string({"a": {1, 2}}) == "{'a': {1, 2}}"  # json.dumps fails: str()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("foo(a=1)", "name 'foo' is not defined"),
        ("remove(path='x')", "Function call remove is not allowed."),
        ("os.remove(path='x')", "Function call remove is not allowed."),
        ("ls(b=1)", "GorillaFileSystem.ls() got an unexpected keyword argument 'b'"),
        ("ls<|x|>(a=False)", "invalid syntax (<string>, line 1)"),
        ("file-name(a=1)", "name 'file' is not defined"),
        ("add(a=nan, b=1)", "name 'nan' is not defined"),
        ("add(a=-inf, b=1)", "name 'inf' is not defined"),
        ("ls(a=1, a=2)", "keyword argument repeated: a (<string>, line 1)"),
    ],
)
def test_mt_execute_errors_are_results(call: str, message: str) -> None:
    assert _side().execute([call]) == [f"Error during execution: {message}"]


def test_mt_execute_nested_calls_and_state_persists() -> None:
    side = _side()
    side.execute(["touch(file_name='a.txt')"])
    side.execute(["echo(content=str(object='hi'), file_name='a.txt')", "cd(folder='docs')"])
    assert side.execute(["pwd()"]) == [json.dumps({"current_working_directory": "/alex/docs"})]
    assert side.execute(["cd(folder='..')", "cat(file_name='a.txt')"])[1] == json.dumps(
        {"file_content": "hi"}
    )
    # The inner call's value (a dict) is the outer call's argument.
    nested = side.execute(["add(a=add(a=1, b=1), b=1)"])
    assert nested == [json.dumps({"error": "Both inputs must be numbers"})]


def test_mt_execute_rewrites_method_names_inside_strings() -> None:
    side = _side("corpus7")
    side.execute(["touch(file_name='a.txt')", "echo(content='please ls() now', file_name='a.txt')"])
    name = instance_name("corpus7_eval", "multi_turn_base_0", "GorillaFileSystem")
    assert name == "corpus7_eval_multi_turn_base_0_GorillaFileSystem_instance"
    assert side.execute(["cat(file_name='a.txt')"]) == [
        json.dumps({"file_content": f"please {name}.ls() now"})
    ]


# --- verdicts -----------------------------------------------------------------------


def test_mt_check_valid_replay_in_both_modes() -> None:
    assert check_multi_turn(ENTRY, GOOD, prompt_mode=False) == MultiTurnCheck(True)
    text = [["[mkdir(dir_name='tmp')]", "ok"], [], ["[ls(), add(a=2, b=3)]"]]
    assert check_multi_turn(ENTRY, text, prompt_mode=True).valid
    # Native mode drops text: the same steps fail.
    verdict = check_multi_turn(ENTRY, text, prompt_mode=False)
    assert verdict.error_type == "multi_turn:empty_turn_model_response" and verdict.turn == 0


def test_mt_check_inference_error_and_force_terminated() -> None:
    verdict = check_multi_turn(ENTRY, "Error during inference: boom", prompt_mode=False)
    assert verdict.error_type == "multi_turn:inference_error" and verdict.cause == "error"
    verdict = check_multi_turn(ENTRY, GOOD[:2], prompt_mode=False)
    assert verdict.error_type == "multi_turn:force_terminated"
    assert "(2) does not match the length of the ground truth turns (3)" in verdict.message
    assert verdict.cause == "step_limit"
    assert not check_multi_turn(ENTRY, [*GOOD, []], prompt_mode=False).valid


def test_mt_check_state_mismatch() -> None:
    steps = [[_fc(("mkdir", {"dir_name": "temp"}))], [], GOOD[2]]
    verdict = check_multi_turn(ENTRY, steps, prompt_mode=False)
    assert verdict.error_type == "multi_turn:instance_state_mismatch"
    assert verdict.turn == 0 and verdict.cause == "state_mismatch"
    assert verdict.message.startswith("Model instance for GorillaFileSystem does not match")
    assert verdict.failure_message.startswith("multi_turn:instance_state_mismatch: ")


def test_mt_check_response_mismatch_and_results_of_earlier_turns() -> None:
    steps = [GOOD[0], [], [_fc(("ls", {})), "Done."]]
    verdict = check_multi_turn(ENTRY, steps, prompt_mode=False)
    assert verdict.error_type == "multi_turn:execution_response_mismatch"
    assert verdict.turn == 2 and verdict.cause == "missed_call"
    assert json.dumps({"result": 5}) in verdict.message
    # A result from an earlier turn counts (all turns so far), even from a turn that
    # BFCL does not check (its ground truth is empty).
    early = [GOOD[0], [_fc(("add", {"a": 2, "b": 3}))], [_fc(("ls", {}))]]
    assert check_multi_turn(ENTRY, early, prompt_mode=False).valid


def test_mt_check_extra_calls_and_unchecked_turns() -> None:
    extra = [GOOD[0], [_fc(("mkdir", {"dir_name": "x"}))], GOOD[2]]
    verdict = check_multi_turn(ENTRY, extra, prompt_mode=False)
    assert verdict.error_type == "multi_turn:instance_state_mismatch" and verdict.turn == 2
    reads = [[_fc(("pwd", {})), *GOOD[0]], ["chat"], GOOD[2]]
    assert check_multi_turn(ENTRY, reads, prompt_mode=False).valid


def test_mt_check_empty_turn() -> None:
    steps = [GOOD[0], [], ["Sorry.", [], None]]
    verdict = check_multi_turn(ENTRY, steps, prompt_mode=False)
    assert verdict == MultiTurnCheck(
        False,
        "multi_turn:empty_turn_model_response",
        "Model response list is empty for turn 2",
        2,
    )
    assert verdict.cause == "missed_call"


def test_mt_from_bfcl_derives_long_context() -> None:
    entry = MultiTurnEntry.from_bfcl("multi_turn_long_context_3", ["MathAPI"], {}, [["add(1, 2)"]])
    assert entry.long_context and entry.ground_truth == (("add(1, 2)",),)
    assert not MultiTurnEntry.from_bfcl("multi_turn_base_3", ["MathAPI"], {}, [[]]).long_context
    assert call_text("cd", {"folder": "d", "n": [1, None]}) == "cd(folder='d', n=[1, None])"


# --- the conversation hook -----------------------------------------------------------


def _conversation() -> tuple[Suite, Conversation]:
    suite = Suite.model_validate(
        {
            "schema_version": 2,
            "name": "mt",
            "environments": {
                "bfcl": {"kind": "python", "class": "toolgrade.bfcl._mt_apis:BfclApis"}
            },
            "cases": [
                {
                    "id": "multi_turn_base_0",
                    "turns": [
                        {
                            "user": "make tmp",
                            "expected": [{"name": "mkdir", "arguments": {"dir_name": "tmp"}}],
                        },
                        {"user": "add them"},
                    ],
                    "environment": "bfcl",
                    "initial_state": {
                        "involved_classes": ["GorillaFileSystem", "MathAPI"],
                        "initial_config": {"GorillaFileSystem": FILES},
                        "long_context": False,
                    },
                    "reference": [
                        [{"name": "mkdir", "arguments": {"dir_name": "tmp"}}],
                        [{"name": "add", "arguments": {"a": 2, "b": 3}}],
                    ],
                }
            ],
        }
    )
    conversation = suite.cases[0]
    assert isinstance(conversation, Conversation)
    return suite, conversation


def _run(index: int, *raws: object, error: str | None = None, limit: bool = False) -> TurnRun:
    steps = tuple(Step(raw_response=r) for r in raws)  # type: ignore[arg-type]
    return TurnRun(index, "u", steps, None, step_limit=limit, error=error)


def _message(name: str, args: dict[str, object]) -> dict[str, object]:
    call = {
        "id": "c",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def test_mt_steps_from_runs() -> None:
    runs = [_run(0, "a", "b"), _run(1, "c")]
    assert steps_from_runs(runs, total_turns=2) == [["a", "b"], ["c"]]
    limited = [_run(0, "a", limit=True), _run(1, "c")]
    assert steps_from_runs(limited, total_turns=2) == [["a"]]
    assert steps_from_runs([_run(1, "c", limit=True)], total_turns=1) == [["c"]]
    failed = [_run(0, "a"), _run(1, error="HTTP 500")]
    assert steps_from_runs(failed, total_turns=2) == "Error during inference: HTTP 500"
    # A replayed BFCL result with fewer turns: the replay has nothing from turn 1 on.
    ended = [_run(0, "a"), _run(1, None, error="no recorded response for turn 1 step 0 (x)")]
    assert steps_from_runs(ended, total_turns=3) == [["a"]]
    later = [_run(0, "a"), _run(1, "b", None, error="no recorded response for turn 1 step 1")]
    assert steps_from_runs(later, total_turns=2) == (
        "Error during inference: no recorded response for turn 1 step 1"
    )


def test_mt_judge_conversation_bfcl_profile() -> None:
    suite, conversation = _conversation()
    runs = [
        _run(0, _message("mkdir", {"dir_name": "tmp"}), {"role": "assistant", "content": "ok"}),
        _run(1, _message("add", {"a": 2, "b": 3})),
    ]
    kwargs = {"initial_state": None, "final_state": None}
    verdict = judge_conversation(suite, conversation, runs, profile="bfcl", **kwargs)
    assert verdict.status.value == "correct" and verdict.score == 1.0
    assert verdict.record.checks[-1].name == "bfcl" and verdict.record.checks[-1].passed
    wrong = [runs[0], _run(1, _message("add", {"a": 2, "b": 4}))]
    verdict = judge_conversation(suite, conversation, wrong, profile="bfcl", **kwargs)
    assert verdict.status.value == "missed_call" and verdict.score == 0.0
    first = verdict.record.first_failure
    assert first is not None and first.turn == 1 and first.check == "bfcl"
    assert first.message.startswith("multi_turn:execution_response_mismatch: ")
    # Prompt mode decodes the text of the same messages: no calls there.
    verdict = judge_conversation(
        suite, conversation, runs, profile="bfcl", prompt_mode=True, **kwargs
    )
    assert verdict.status.value == "missed_call"
    # The default profile judges by its own rules.
    default = judge_conversation(suite, conversation, wrong, **kwargs)
    assert all(c.name != "bfcl" for c in default.record.checks)


def test_mt_hook_leaves_other_conversations_alone() -> None:
    suite, conversation = _conversation()
    other = suite.model_copy(update={"environments": {}})
    assert judge_bfcl_conversation(other, conversation, [], prompt_mode=False) is None
    plain = conversation.model_copy(update={"reference": None})
    verdict = judge_bfcl_conversation(suite, plain, [], prompt_mode=False)
    assert verdict is not None and verdict.status == "error" and verdict.record is not None
    first = verdict.record.first_failure
    assert first is not None and first.message.startswith("multi_turn:inference_error: ")
