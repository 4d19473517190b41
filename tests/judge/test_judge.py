"""The judge's API: results carry the case's labels, profiles, rubrics and errors."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

import toolgrade
from toolgrade import (
    Case,
    CaseResult,
    ConfigError,
    Extraction,
    ExtractionProblem,
    InputError,
    Status,
    SuiteDefaults,
    SuiteError,
    ToolCall,
    ToolSpec,
)
from toolgrade import judge as judge_module_attr
from toolgrade.judging import Profile, find_profile
from toolgrade.judging._judge import (
    judge,
    profile_reads_any_name,
    profiles,
    register_profile,
)
from toolgrade.judging._profiles import ProfileRegistry

SEARCH = ToolSpec(
    name="search",
    parameters={
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["q"],
    },
)


def _case(**fields: object) -> Case:
    base: dict[str, object] = {
        "id": "c1",
        "prompt": "find x",
        "expected": {"name": "search", "arguments": {"q": "x"}},
    }
    base.update(fields)
    return Case.model_validate(base)


def test_judge_is_exported_from_package() -> None:
    assert judge_module_attr is judge
    assert "judge" in toolgrade.__all__


def test_judge_result_carries_case_labels() -> None:
    case = _case(category="edge", tags=("t1", "t2"), difficulty="hard")
    result = judge(case, [{"name": "search", "arguments": {"q": "x"}}], tools=[SEARCH])
    assert result.case_id == "c1"
    assert (result.category, result.tags, result.difficulty) == ("edge", ("t1", "t2"), "hard")
    assert result.prompt == "find x"
    assert result.expected == (ToolCall(name="search", arguments={"q": "x"}),)
    assert result.actual == (ToolCall(name="search", arguments={"q": "x"}),)
    assert result.rubric == "partial"
    assert result.extraction_format is None


def test_judge_chat_prompt_is_recorded_as_messages() -> None:
    case = _case(prompt=[{"role": "user", "content": "hi"}])
    result = judge(case, [], tools=[SEARCH])
    assert result.prompt == [{"role": "user", "content": "hi"}]
    assert result.status is Status.MISSED_CALL


def test_judge_extraction_fields_recorded() -> None:
    extraction = Extraction(
        calls=(ToolCall(name="search", arguments={"q": "x"}),),
        format="hermes",
        errors=(ExtractionProblem(reason="parse_error", message="second call broken"),),
    )
    result = judge(_case(), extraction, tools=[SEARCH])
    assert result.status is Status.CORRECT
    assert result.extraction_format == "hermes"
    assert result.extraction_errors == extraction.errors
    assert result.model_dump(mode="json")["extraction_errors"] == [
        "parse_error: second call broken"
    ]


def test_judge_result_round_trips_through_json() -> None:
    result = judge(_case(), [{"name": "search", "arguments": {"q": "y", "n": "2"}}], tools=[SEARCH])
    again = CaseResult.model_validate_json(result.model_dump_json())
    assert again == result
    assert again.pairs[0].details[0].path == "$.q"
    assert again.details[0].call == 0
    assert again.pairs[0].details == again.details


def test_judge_pair_credit_follows_rubric() -> None:
    actual = [{"name": "search", "arguments": {"q": "y"}}]
    assert judge(_case(), actual, tools=[SEARCH]).pairs[0].credit == 0.5
    assert judge(_case(), actual, tools=[SEARCH], rubric="binary").pairs[0].credit == 0.0


def test_judge_unknown_rubric_raises_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown rubric"):
        judge(_case(), [], tools=[SEARCH], rubric="fuzzy")  # type: ignore[arg-type]


def test_judge_suite_defaults_rubric_and_order_apply() -> None:
    case = _case(
        expected=[
            {"name": "search", "arguments": {"q": "a"}},
            {"name": "search", "arguments": {"q": "b"}},
        ]
    )
    actual = [
        {"name": "search", "arguments": {"q": "b"}},
        {"name": "search", "arguments": {"q": "a"}},
    ]
    loose = judge(case, actual, tools=[SEARCH])
    assert loose.status is Status.CORRECT
    strict = judge(
        case, actual, tools=[SEARCH], defaults=SuiteDefaults(order="strict", rubric="binary")
    )
    assert strict.status is Status.WRONG_ARGS
    assert strict.rubric == "binary"
    assert strict.score == 0.0


def test_judge_bad_actual_list_raises_input_error() -> None:
    with pytest.raises(InputError, match=r"actual\[0\]"):
        judge(_case(), [{"arguments": {}}], tools=[SEARCH])


def test_judge_invalid_tool_schema_raises_suite_error() -> None:
    broken = ToolSpec(
        name="search", parameters={"type": "object", "properties": {"q": {"type": 5}}}
    )
    with pytest.raises(SuiteError, match="c1"):
        judge(_case(), [{"name": "search", "arguments": {"q": "x"}}], tools=[broken])


def test_judge_malformed_matcher_unreached_still_raises() -> None:
    case = _case(expected={"name": "search", "arguments": {"q": {"$regex": "("}}})
    with pytest.raises(SuiteError) as info:
        judge(case, [{"name": "other", "arguments": {}}], tools=[SEARCH])
    assert info.value.problems[0].startswith("expected[0].arguments.q: $regex")
    assert info.value.case_id == "c1"


def test_judge_malformed_matcher_in_alternative_raises() -> None:
    case = _case(alternatives=[{"name": "search", "arguments": {"q": {"$approx": "x"}}}])
    with pytest.raises(SuiteError, match=r"alternatives\[0\]\[0\]\.arguments\.q"):
        judge(case, [], tools=[SEARCH])


def test_judge_unknown_profile_raises_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown judge profile 'nope'"):
        judge(_case(), [], tools=[SEARCH], profile="nope")


def test_register_profile_default_name_refused() -> None:
    with pytest.raises(ConfigError):
        register_profile("default", judge)


def _fresh_profiles(monkeypatch: pytest.MonkeyPatch) -> ProfileRegistry:
    """An empty profile registry for the test's duration."""
    fresh = ProfileRegistry()
    monkeypatch.setattr(sys.modules["toolgrade.judging._profiles"], "PROFILES", fresh)
    return fresh


def test_register_profile_custom_profile_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_profiles(monkeypatch)
    seen: list[str] = []

    def always_correct(case, actual, *, tools, rubric=None, strict=False):  # type: ignore[no-untyped-def]
        seen.append(case.id)
        return CaseResult(case_id=case.id, status=Status.CORRECT, score=1.0)

    register_profile("lenient", always_correct)
    result = judge(_case(), [], tools=[SEARCH], profile="lenient")
    assert result.status is Status.CORRECT
    assert seen == ["c1"]
    assert "lenient" in profiles()


def test_profile_reads_any_name_follows_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_profiles(monkeypatch)
    register_profile("open", judge, reads_any_name=True)
    register_profile("closed", judge)
    assert profile_reads_any_name("open")
    assert not profile_reads_any_name("closed")
    assert not profile_reads_any_name("default")
    register_profile("open", judge)  # registering again replaces the declaration
    assert not profile_reads_any_name("open")
    with pytest.raises(ConfigError, match="unknown judge profile"):
        profile_reads_any_name("nope")


def test_bfcl_profile_reads_any_name() -> None:
    assert profile_reads_any_name("bfcl")


def test_bfcl_profile_has_a_reply_and_a_conversation_judge() -> None:
    bfcl = find_profile("bfcl")
    assert bfcl.name == "bfcl" and bfcl.reads_any_name
    assert bfcl.judge is not None and bfcl.judge.__name__ == "judge_bfcl"
    assert bfcl.conversation is not None
    assert bfcl.conversation.__name__ == "judge_bfcl_conversation"


def test_register_profile_registers_both_parts_as_one_profile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fresh_profiles(monkeypatch)

    def whole(suite, conversation, runs, *, prompt_mode):  # type: ignore[no-untyped-def]
        return None

    register_profile("both", judge, conversation=whole)
    assert find_profile("both") == Profile("both", judge, whole, reads_any_name=False)
    register_profile("both", judge)  # registering again replaces the whole profile
    assert find_profile("both").conversation is None


def test_reads_any_name_attribute_of_the_reply_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = _fresh_profiles(monkeypatch)

    def wide(case, actual, *, tools, rubric=None, strict=False):  # type: ignore[no-untyped-def]
        return CaseResult(case_id=case.id, status=Status.CORRECT, score=1.0)

    wide.reads_any_name = True  # type: ignore[attr-defined]
    register_profile("wide", wide)
    fresh.register("entry", "os.path:join")  # a plain function entry: a reply judge
    assert profile_reads_any_name("wide")
    assert find_profile("entry") == Profile("entry", __import__("os").path.join)


def test_profile_entry_is_a_profile_or_a_function(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = _fresh_profiles(monkeypatch)
    fresh.register("named-otherwise", Profile("other", judge))
    fresh.register("lazy-bfcl", "toolgrade.bfcl._profile:PROFILE")
    fresh.register("text", "os:sep")
    assert find_profile("named-otherwise") == Profile("named-otherwise", judge)
    assert find_profile("lazy-bfcl").name == "lazy-bfcl"
    with pytest.raises(ConfigError, match="judge profile 'text' is a str, not a Profile"):
        find_profile("text")


def test_profile_without_a_reply_judge_judges_replies_by_the_default_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fresh_profiles(monkeypatch).register("whole-only", Profile("whole-only"))
    calls = [{"name": "search", "arguments": {"q": "x"}}]
    under = judge(_case(), calls, tools=[SEARCH], profile="whole-only")
    assert under == judge(_case(), calls, tools=[SEARCH])
    assert under.status is Status.CORRECT


def test_judge_builtin_profile_imported_lazily(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "fake_profile_mod.py").write_text(
        textwrap.dedent(
            """
            from toolgrade import CaseResult, Status
            from toolgrade.judging._judge import register_profile

            def fake(case, actual, *, tools, rubric=None, strict=False):
                return CaseResult(case_id=case.id, status=Status.WRONG_TOOL, score=0.0)

            register_profile("fake", fake)
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    _fresh_profiles(monkeypatch).register("fake", "fake_profile_mod:fake")
    result = judge(_case(), [], tools=[SEARCH], profile="fake")
    assert result.status is Status.WRONG_TOOL


def test_judge_bfcl_profile_is_available() -> None:
    assert "bfcl" in profiles()


def test_judge_tools_none_accepts_any_name() -> None:
    case = _case(expected={"name": "anything", "arguments": {"k": 1}})
    result = judge(case, [{"name": "anything", "arguments": {"k": 1.0}}], tools=None)
    assert result.status is Status.CORRECT


def test_judge_empty_tool_list_makes_every_call_wrong() -> None:
    result = judge(_case(), [{"name": "search", "arguments": {"q": "x"}}], tools=[])
    assert result.status is Status.WRONG_TOOL


def _whole(suite, conversation, runs, *, prompt_mode):  # type: ignore[no-untyped-def]
    return None


def test_conversation_group_entries_are_conversation_parts_of_the_profiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fresh = _fresh_profiles(monkeypatch)
    target = f"{__name__}:_whole"
    groups = {
        "toolgrade.profiles": [("both", "os.path:join")],
        "toolgrade.conversation_profiles": [
            ("both", target),  # the conversation part of a plug-in profile
            ("coded", target),  # of a profile registered in code
            ("own", target),  # a profile with its own conversation part keeps it
            ("alone", target),  # no profile of that name: one by the default rules
            ("default", target),  # toolgrade's own rules have no conversation part
        ],
    }
    read: list[str] = []

    class Point:
        def __init__(self, name: str, value: str) -> None:
            self.name, self.value = name, value

    def entry_points(*, group: str) -> list[Point]:
        read.append(group)
        return [Point(*pair) for pair in groups.get(group, [])]

    def own_part(suite, conversation, runs, *, prompt_mode):  # type: ignore[no-untyped-def]
        return None

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    register_profile("coded", judge)
    register_profile("own", judge, conversation=own_part)
    assert find_profile("coded").conversation is _whole
    assert read == ["toolgrade.profiles", "toolgrade.conversation_profiles"]  # once each
    assert find_profile("both") == Profile("both", __import__("os").path.join, _whole)
    assert find_profile("own").conversation is own_part
    assert find_profile("alone") == Profile("alone", None, _whole)
    assert "alone" in profiles() and profiles().count("default") == 1
    assert fresh.resolved["coded"].conversation is _whole  # the hot path's lookup too
    register_profile("alone", judge)  # a profile of that name gets the group's part
    assert find_profile("alone") == Profile("alone", judge, _whole)
    assert len(read) == 2
    fresh.reset_plugins()
    groups.clear()
    assert "both" not in profiles() and find_profile("coded").conversation is None
    assert find_profile("alone").judge is judge  # registered in code: kept
    assert len(read) == 4


def test_conversation_group_entry_that_is_not_a_function(monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh_profiles(monkeypatch)

    class Point:
        name, value = "odd", "os:sep"

    monkeypatch.setattr(
        "importlib.metadata.entry_points",
        lambda *, group: [Point()] if group == "toolgrade.conversation_profiles" else [],
    )
    with pytest.raises(ConfigError, match=r"conversation judge 'odd' \(os:sep\) is not"):
        find_profile("odd")
