"""The judge: one case, expected calls against actual calls, under a rubric.

`judge` decides whether the calls a model made are what a case expects, says why not
(per-argument differences with JSON paths), and scores the result. Argument values
compare semantically, guided by each tool's JSON Schema (see docs/matching.md);
several calls are paired by an optimal assignment shared with `score_calls`.

Other matching rules plug in as profiles: `register_profile("foo", fn)` makes
`judge(..., profile="foo")` call `fn`, which returns a `Verdict`; `case_result`
(`toolgrade.judging._case_result`) turns a verdict into the `CaseResult`, here and
wherever else a result is made (the runner's timeouts and errors). The profile registry
lives in `toolgrade.judging._profiles`: the `bfcl` profile is imported on first use, and
plug-ins come from the `toolgrade.profiles` entry-point group.

`judge_calls` is the core `judge` shares with the judge of a turn
(`toolgrade.judging._turn`): calls against an expectation (a case's or a turn's
expected calls, alternatives and order) under a profile and a rubric.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import get_args

from toolgrade._core.json_data import JsonValue
from toolgrade._core.memo import IdentityMemo
from toolgrade._core.toolcall import as_calls
from toolgrade._core.vocab import Rubric, ToolCall
from toolgrade.errors import ConfigError, SuiteError
from toolgrade.extract import Extraction
from toolgrade.judging._case_result import case_result
from toolgrade.judging._profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    JudgeFn,
    find_profile,
    profile_reads_any_name,
    profiles,
    register_profile,
)
from toolgrade.match import CallJudge, MatcherError, matcher_problems
from toolgrade.results import CaseResult, Status, Verdict
from toolgrade.suite import Case, SuiteDefaults, ToolSpec, Turn

__all__ = [
    "JudgeFn",
    "case_result",
    "judge",
    "judge_calls",
    "profile_reads_any_name",
    "profiles",
    "register_profile",
]

_RUBRICS: tuple[str, ...] = get_args(Rubric)
_KNOWN_RUBRICS = frozenset(_RUBRICS)
_DEFAULT_PROFILE = DEFAULT_PROFILE
_profile = find_profile
_RESOLVED = PROFILES.resolved  # the profiles looked up already (`find_profile` fills it)
_CORRECT = Status.CORRECT  # looked up once: a member costs a lookup through its class


def judge(
    case: Case,
    actual: Extraction | Sequence[ToolCall | Mapping[str, JsonValue]],
    *,
    tools: Sequence[ToolSpec] | None,
    rubric: Rubric | None = None,
    strict: bool = False,
    profile: str = _DEFAULT_PROFILE,
    defaults: SuiteDefaults | None = None,
) -> CaseResult:
    """Judge the calls a model made against what a case expects.

    Tool names compare exactly; arguments compare semantically, guided by each tool's
    JSON Schema, and may be matchers (`{"$regex": ...}`). Several calls are paired by an
    optimal assignment (in sequence when the case's order is `strict`). The case passes
    when the calls match its expectation or any alternative; the best-scoring one is
    reported.

    Args:
        case: the case.
        actual: the extraction of the model's output, or a list of calls.
        tools: the tools offered to the case (`Suite.tools_for(case)`); a call to any
            other tool is a wrong tool. None accepts any tool name, without schemas.
        rubric: `binary`, `partial` or `f1`; None uses the case's, then the suite's
            (`defaults`), then `partial`.
        strict: fail on arguments the expectation does not mention.
        profile: the matching rules: `default`, `bfcl`, or a registered profile.
        defaults: the suite's defaults: rubric and order, for cases that leave them unset,
            whether strings are trimmed where their schema does not say
            (`trim_strings`) and whether every `null` argument is read as left out
            (`null_is_absent`).

    Returns:
        The verdict: status, score, pairing and every argument difference.

    Raises:
        ConfigError: unknown profile or rubric, or a case written as turns.
        SuiteError: the expectation holds a malformed matcher, or a tool's schema is invalid.
        InputError: `actual` is a list holding something that is not a call.

    Examples:
        >>> case = Case(id="t1", prompt="Read the readme",
        ...             expected={"name": "read_file", "arguments": {"path": "README.md"}})
        >>> tool = ToolSpec(name="read_file", parameters={"type": "object",
        ...     "properties": {"path": {"type": "string"}}, "required": ["path"]})
        >>> r = judge(case, [{"name": "read_file", "arguments": {"path": "./README.md"}}],
        ...           tools=[tool])
        >>> r.status.value, r.score
        ('correct', 1.0)
    """
    if not case.single:
        raise ConfigError(
            f"case {case.id} is written as turns: judge_conversation judges it (or run it)"
        )
    chosen = rubric or case.rubric or (defaults.rubric if defaults else None) or "partial"
    if chosen not in _KNOWN_RUBRICS:
        raise ConfigError(f"unknown rubric {chosen!r} (known: {', '.join(_RUBRICS)})")
    given: Extraction | tuple[ToolCall, ...]
    if isinstance(actual, Extraction):
        extraction, calls, given = actual, actual.calls, actual
    else:
        extraction, calls = None, as_calls(actual, side="actual")
        given = calls
    # The case's one turn is the expectation (a case of several turns has its own
    # judge). Positional: `judge` is on the hot path, and keywords cost a lookup each.
    turn = case.turns[0]
    decided = judge_calls(turn, given, case.id, tools, chosen, strict, profile, defaults, case)
    if not isinstance(decided, Verdict):
        return decided  # a profile that builds its own result
    return case_result(case, decided, rubric=chosen, actual=calls, extraction=extraction)


def judge_calls(
    expectation: Turn,
    actual: Extraction | tuple[ToolCall, ...],
    case_id: str,
    tools: Sequence[ToolSpec] | None,
    rubric: Rubric,
    strict: bool = False,
    profile: str = _DEFAULT_PROFILE,
    defaults: SuiteDefaults | None = None,
    as_case: Case | Callable[[], Case] | None = None,
) -> Verdict | CaseResult:
    """Judge calls against a turn's expectation.

    The core of `judge` and of the judge of a turn of a conversation: the turn's calls,
    its alternatives and its order, judged under the profile (see `judge`).

    Args:
        expectation: the turn (which states calls).
        actual: the extraction of the model's output, or its calls (a tuple).
        case_id: the case's (or the conversation's) id, for errors.
        tools: the tools offered; None accepts any tool name, without schemas.
        rubric: the rubric (already chosen).
        strict: fail on arguments the expectation does not mention.
        profile: the matching rules: `default`, `bfcl`, or a registered profile.
        defaults: the suite's defaults (order, `trim_strings`, `null_is_absent`).
        as_case: the case a profile other than `default` judges (profiles judge cases):
            the case itself, or a function building it (for a turn of a conversation).

    Returns:
        The verdict; a profile that builds its own result gives that `CaseResult`.

    Raises:
        ConfigError: unknown profile.
        SuiteError: the expectation holds a malformed matcher, or a tool's schema is invalid.
    """
    found = None if profile == _DEFAULT_PROFILE else (_RESOLVED.get(profile) or _profile(profile))
    fn = None if found is None else found.judge
    if fn is None:  # `default`, or a profile judging replies by toolgrade's own rules
        if isinstance(actual, Extraction):
            calls, parse_failed = actual.calls, bool(actual.errors)
        else:
            calls, parse_failed = actual, False
        return _default_profile(
            expectation,
            calls,
            case_id=case_id,
            tools=tools,
            rubric=rubric,
            strict=strict,
            defaults=defaults,
            parse_failed=parse_failed,
        )
    if as_case is None:
        raise ValueError(f"the {profile!r} profile judges cases: give `as_case`")
    case = as_case if isinstance(as_case, Case) else as_case()
    return fn(case, actual, tools=tools, rubric=rubric, strict=strict)


def _default_profile(
    expectation: Turn,
    calls: Sequence[ToolCall],
    *,
    case_id: str,
    tools: Sequence[ToolSpec] | None,
    rubric: Rubric,
    strict: bool,
    defaults: SuiteDefaults | None,
    parse_failed: bool,
) -> Verdict:
    """Toolgrade's own rules (docs/matching.md): semantic values, optimal pairing."""
    judge_ = _call_judge(
        calls,
        tools=tools,
        strict=strict,
        parse_failed=parse_failed,
        trim=defaults.trim_strings if defaults else True,
        null_is_absent=defaults.null_is_absent if defaults else False,
    )
    order = expectation.order or (defaults.order if defaults else "any")
    index, found = _verdict(expectation, judge_, case_id, rubric=rubric, ordered=order == "strict")
    if index is None:
        return found
    return replace(found, expected=expectation.alternatives[index], alternative=index)


def _call_judge(
    calls: Sequence[ToolCall],
    *,
    tools: Sequence[ToolSpec] | None,
    strict: bool,
    parse_failed: bool,
    trim: bool,
    null_is_absent: bool,
) -> CallJudge:
    return CallJudge(
        calls,
        schemas={t.name: t.parameters for t in tools or ()},
        offered=None if tools is None else frozenset(t.name for t in tools),
        strict=strict,
        parse_failed=parse_failed,
        trim=trim,
        null_is_absent=null_is_absent,
    )


def _verdict(
    expectation: Turn, judge_: CallJudge, case_id: str, *, rubric: Rubric, ordered: bool
) -> tuple[int | None, Verdict]:
    """The verdict, and which alternative it is against (None: the primary expectation).

    Raises:
        SuiteError: a malformed matcher, or an invalid tool schema, with the case id.
    """
    _check_matchers(expectation, case_id)
    try:
        if expectation.any_call:
            return None, _any_call(judge_)
        return _best(expectation, judge_, rubric=rubric, ordered=ordered)
    except MatcherError as exc:
        message = "malformed matcher in the expectation"
        raise SuiteError(message, case_id=case_id, problems=exc.problems) from None
    except SuiteError as exc:
        raise SuiteError(exc.message, case_id=case_id, location="tools") from None


# Expectations whose matchers were checked, by identity (turns are frozen).
_CHECKED: IdentityMemo[Turn, bool] = IdentityMemo(4096)


def _check_matchers(expectation: Turn, case_id: str) -> None:
    """Refuse a malformed matcher even where the comparison would never reach it.

    Raises:
        SuiteError: every malformed matcher of the expectation, with its location.
    """
    if _CHECKED.find(expectation) is None:
        _CHECKED.put(expectation, _matchers_checked(expectation, case_id))


def _matchers_checked(expectation: Turn, case_id: str) -> bool:
    """True when every matcher of the expectation is well formed (see `_check_matchers`)."""
    problems: list[str] = []
    for k, calls in enumerate((expectation.expected or (), *expectation.alternatives)):
        where = "expected" if k == 0 else f"alternatives[{k - 1}]"
        for i, call in enumerate(calls):
            problems += matcher_problems(call.arguments, f"{where}[{i}].arguments")
    if problems:
        message = "malformed matcher in the expectation"
        raise SuiteError(message, case_id=case_id, problems=tuple(problems))
    return True


def _best(
    expectation: Turn, judge_: CallJudge, *, rubric: Rubric, ordered: bool
) -> tuple[int | None, Verdict]:
    """The best-scoring of the expectation and its alternatives (the earliest on ties)."""
    best_index: int | None = None
    best = judge_.verdict(expectation.expected or (), rubric=rubric, ordered=ordered)
    for k, alternative in enumerate(expectation.alternatives):
        if best.status is _CORRECT:
            break
        verdict = judge_.verdict(alternative, rubric=rubric, ordered=ordered)
        if (verdict.score, verdict.closeness or 0.0) > (best.score, best.closeness or 0.0):
            best_index, best = k, verdict
    return best_index, best


def _any_call(judge_: CallJudge) -> Verdict:
    """Relevance: any call of an offered tool passes, whatever its arguments."""
    if any(judge_.is_offered(c.name) for c in judge_.actual):
        return _ANY_CALL_MADE
    if judge_.actual:
        return _ANY_CALL_WRONG
    return _ANY_CALL_READ_NONE if judge_.parse_failed else _ANY_CALL_MISSED


_ANY_CALL_MADE = Verdict(Status.CORRECT, 1.0, closeness=1.0)
_ANY_CALL_WRONG = Verdict(Status.WRONG_TOOL, 0.0, closeness=0.0)
_ANY_CALL_READ_NONE = Verdict(Status.PARSE_ERROR, 0.0, closeness=0.0)
_ANY_CALL_MISSED = Verdict(Status.MISSED_CALL, 0.0, closeness=0.0)
