"""The lockstep shortcut: the ground truth's side is skipped only while it would be the model's.

Every verdict must be the one the full two-sided check gives; the agreement corpus checks
that on 8,000 outputs, these tests the rules on their own.
"""

from __future__ import annotations

import pytest

pytest.importorskip(
    "bfcl_eval.eval_checker.multi_turn_eval.func_source_code.math_api",
    reason="bfcl-eval is not installed (`make test` installs it)",
)

from toolgrade.bfcl._mt_lockstep import call_key, lockstep_allowed, same_calls


def test_positional_and_keyword_spellings_are_one_call() -> None:
    assert call_key("sort('final_report.pdf')") == call_key("sort(file_name='final_report.pdf')")
    assert call_key("cd(folder='a')") != call_key("cd(folder='b')")


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("round_number(number=1)", "round_number(number=1.0)"),
        ("add(a=1, b=True)", "add(a=1, b=1)"),
        (
            "echo(content='x', file_name={'a': 1, 'b': 2})",
            "echo(content='x', file_name={'b': 2, 'a': 1})",
        ),
    ],
)
def test_values_differ_by_type_and_dict_order(left: str, right: str) -> None:
    assert call_key(left) != call_key(right)


@pytest.mark.parametrize(
    "text",
    [
        "cd(folder=pwd())",
        "echo(content='run ls() now')",
        "cd(**{'folder': 'a'})",
        "x.cd(folder='a')",
    ],
)
def test_calls_that_are_not_plain_have_no_key(text: str) -> None:
    assert call_key(text) is None
    assert not same_calls([text], [text])


def test_shared_long_context_state_turns_the_shortcut_off() -> None:
    assert lockstep_allowed(["TravelAPI"], long_context=False)
    assert not lockstep_allowed(["GorillaFileSystem", "TravelAPI"], long_context=True)
    assert not lockstep_allowed(["VehicleControlAPI"], long_context=True)
    assert lockstep_allowed(["GorillaFileSystem", "TwitterAPI"], long_context=True)


def test_same_calls_needs_the_same_order_and_number() -> None:
    truth = ["cd(folder='a')", "ls()"]
    assert same_calls(["cd(folder='a')", "ls()"], truth)
    assert not same_calls(["ls()", "cd(folder='a')"], truth)
    assert not same_calls(["cd(folder='a')"], truth)
