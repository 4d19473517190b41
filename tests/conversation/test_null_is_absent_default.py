"""`defaults.null_is_absent` reaches every place a call's arguments are matched.

The judge of a reply (tests/match/test_null_rule.py), and here: a conversation's
trajectory, its forbidden calls, its scripted environment's rules; never its final
state, which is not a call's arguments.
"""

from __future__ import annotations

from toolgrade._core.vocab import ToolCall
from toolgrade.environments._factory import environment_factory
from toolgrade.judging._end_checks import check_final_state, check_forbidden
from toolgrade.judging._trajectory import compare_trajectory
from toolgrade.suite import CallPattern, FinalStateCheck, Suite, SuiteDefaults, ToolSpec

DIFF = ToolSpec(
    name="git_diff",
    parameters={"type": "object", "properties": {"ref": {"type": "string"}}},
)
OPTED = SuiteDefaults(null_is_absent=True)
NULL_REF = ToolCall(name="git_diff", arguments={"ref": None})
LEFT_OUT = ToolCall(name="git_diff", arguments={"ref": {"$absent": True}})


def test_trajectory_reads_null_as_left_out_when_the_suite_opts_in() -> None:
    tools = {"git_diff": DIFF}
    assert not compare_trajectory([NULL_REF], [LEFT_OUT], "exact", tools=tools).passed
    opted = compare_trajectory([NULL_REF], [LEFT_OUT], "exact", tools=tools, defaults=OPTED)
    assert opted.passed


def test_forbidden_pattern_reads_null_as_left_out_when_the_suite_opts_in() -> None:
    pattern = CallPattern(name="git_diff", arguments={"ref": {"$absent": True}})
    calls = [(0, 0, NULL_REF)]
    assert check_forbidden([pattern], calls, tools={"git_diff": DIFF}).passed
    assert not check_forbidden([pattern], calls, tools={"git_diff": DIFF}, defaults=OPTED).passed


def test_final_state_keeps_null_a_value_when_the_suite_opts_in() -> None:
    spec = FinalStateCheck(state={"items": [{"ref": {"$absent": True}}]})
    assert not check_final_state(spec, {"items": [{"ref": None}]}, defaults=OPTED).passed


def test_scripted_environment_rules_read_null_as_left_out_when_the_suite_opts_in() -> None:
    rules = [{"when": {"tool": "git_diff", "arguments": {"ref": {"$absent": True}}}, "result": 1}]
    for defaults, outcome in ((SuiteDefaults(), "uncovered"), (OPTED, "ok")):
        suite = Suite.model_validate(
            {
                "schema_version": 2,
                "name": "s",
                "defaults": defaults.model_dump(),
                "tools": [DIFF.model_dump()],
                "environments": {"ws": {"kind": "scripted", "rules": rules}},
                "cases": [{"id": "conv", "turns": ["go"], "environment": "ws"}],
            }
        )
        env = environment_factory(suite, suite.conversations[0], base_dir=None)({})
        got = env.execute(NULL_REF, call_id="c", tool=DIFF)
        assert got.outcome == outcome
