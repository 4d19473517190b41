"""The judge: one case, expected calls against actual calls, under a rubric.

`judge` decides whether the calls a model made are what a case expects, says why not
(per-argument differences with JSON paths), and scores the result. Argument values
compare semantically, guided by each tool's JSON Schema (see docs/matching.md);
several calls are paired by an optimal assignment shared with `score_calls`.

Other matching rules plug in as profiles: `register_profile("bfcl", fn)` makes
`judge(..., profile="bfcl")` call `fn`. The `bfcl` profile registers itself when its
module (`toolgrade.match._bfcl`) is imported, which `judge` does on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Protocol, get_args

from toolgrade._json import JsonValue
from toolgrade.calls import ToolCall, as_calls
from toolgrade.errors import ConfigError, SuiteError
from toolgrade.extract import Extraction
from toolgrade.match._calls import CallJudge, RubricName, Verdict
from toolgrade.match._matchers import MatcherError, matcher_problems
from toolgrade.results import CaseResult, PairResult, Status
from toolgrade.suite import Case, SuiteDefaults, ToolSpec

__all__ = ["JudgeFn", "judge", "profile_reads_any_name", "profiles", "register_profile"]

_RUBRICS: tuple[str, ...] = get_args(RubricName)
_DEFAULT_PROFILE = "default"
# Profiles provided by toolgrade's own modules, imported on first use.
_BUILTIN_PROFILES = {"bfcl": "toolgrade.match._bfcl"}
_profiles: dict[str, JudgeFn] = {}
_reads_any_name: set[str] = set()


class JudgeFn(Protocol):
    """A matching profile: judges a case exactly as `judge` would be asked to."""

    def __call__(
        self,
        case: Case,
        actual: Extraction | Sequence[ToolCall | Mapping[str, JsonValue]],
        /,
        *,
        tools: Sequence[ToolSpec] | None,
        rubric: RubricName | None = None,
        strict: bool = False,
    ) -> CaseResult:
        """Judge one case."""
        ...


def register_profile(name: str, fn: JudgeFn, *, reads_any_name: bool = False) -> None:
    """Make `judge(..., profile=name)` judge with `fn`.

    Args:
        name: the profile name, e.g. `bfcl`.
        fn: a function with `judge`'s signature (without `profile`).
        reads_any_name: the profile judges calls of any name, so extraction must not use
            the offered tools to set aside look-alike calls (BFCL's checker reads them all).

    Raises:
        ConfigError: `name` is `default` (the built-in rules cannot be replaced) or empty.
    """
    if not name or name == _DEFAULT_PROFILE:
        raise ConfigError(f"cannot register a judge profile named {name!r}")
    _profiles[name] = fn
    if reads_any_name:
        _reads_any_name.add(name)
    else:
        _reads_any_name.discard(name)


def profile_reads_any_name(name: str) -> bool:
    """Whether extraction for this profile should keep calls of tools not offered.

    Raises:
        ConfigError: unknown profile.
    """
    if name != _DEFAULT_PROFILE:
        _profile(name)  # imports a built-in profile, so that it has registered itself
    return name in _reads_any_name


def profiles() -> list[str]:
    """The profile names `judge` accepts (built-in ones included), sorted."""
    return sorted({_DEFAULT_PROFILE, *_BUILTIN_PROFILES, *_profiles})


def _profile(name: str) -> JudgeFn:
    fn = _profiles.get(name)
    if fn is None and name in _BUILTIN_PROFILES:
        importlib.import_module(_BUILTIN_PROFILES[name])
        fn = _profiles.get(name)
    if fn is None:
        raise ConfigError(f"unknown judge profile {name!r} (known: {', '.join(profiles())})")
    return fn


def judge(
    case: Case,
    actual: Extraction | Sequence[ToolCall | Mapping[str, JsonValue]],
    *,
    tools: Sequence[ToolSpec] | None,
    rubric: RubricName | None = None,
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
            and whether strings are trimmed where their schema does not say
            (`trim_strings`).

    Returns:
        The verdict: status, score, pairing and every argument difference.

    Raises:
        ConfigError: unknown profile or rubric.
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
    if profile != _DEFAULT_PROFILE:
        fn = _profile(profile)
        return fn(case, actual, tools=tools, rubric=rubric, strict=strict)
    chosen = rubric or case.rubric or (defaults.rubric if defaults else None) or "partial"
    if chosen not in _RUBRICS:
        raise ConfigError(f"unknown rubric {chosen!r} (known: {', '.join(_RUBRICS)})")
    extraction = actual if isinstance(actual, Extraction) else None
    calls = extraction.calls if extraction is not None else as_calls(actual, side="actual")
    parse_failed = bool(extraction is not None and extraction.errors)
    judge_ = _call_judge(
        calls,
        tools=tools,
        strict=strict,
        parse_failed=parse_failed,
        trim=defaults.trim_strings if defaults else True,
    )
    order = case.order or (defaults.order if defaults else "any")
    index, verdict = _verdict(case, judge_, rubric=chosen, ordered=order == "strict")
    expected = case.expected if index is None else case.alternatives[index]
    return _result(
        case,
        verdict,
        expected=expected,
        calls=calls,
        rubric=chosen,
        alternative=index,
        extraction=extraction,
    )


def _call_judge(
    calls: Sequence[ToolCall],
    *,
    tools: Sequence[ToolSpec] | None,
    strict: bool,
    parse_failed: bool,
    trim: bool,
) -> CallJudge:
    return CallJudge(
        calls,
        schemas={t.name: t.parameters for t in tools or ()},
        offered=None if tools is None else frozenset(t.name for t in tools),
        strict=strict,
        parse_failed=parse_failed,
        trim=trim,
    )


def _verdict(
    case: Case, judge_: CallJudge, *, rubric: RubricName, ordered: bool
) -> tuple[int | None, Verdict]:
    """The verdict, and which alternative it is against (None: the primary expectation).

    Raises:
        SuiteError: a malformed matcher, or an invalid tool schema, with the case id.
    """
    _check_matchers(case)
    try:
        if case.any_call:
            return None, _any_call(judge_)
        return _best(case, judge_, rubric=rubric, ordered=ordered)
    except MatcherError as exc:
        message = "malformed matcher in the expectation"
        raise SuiteError(message, case_id=case.id, problems=exc.problems) from None
    except SuiteError as exc:
        raise SuiteError(exc.message, case_id=case.id, location="tools") from None


# id(case) -> case, for cases whose matchers were checked (the case is kept so that
# its id cannot be reused while the entry lives).
_checked: dict[int, Case] = {}
_CHECKED_SIZE = 4096


def _check_matchers(case: Case) -> None:
    """Refuse a malformed matcher even where the comparison would never reach it.

    Raises:
        SuiteError: every malformed matcher of the case, with its location.
    """
    if _checked.get(id(case)) is case:
        return
    problems: list[str] = []
    for k, expectation in enumerate((case.expected, *case.alternatives)):
        where = "expected" if k == 0 else f"alternatives[{k - 1}]"
        for i, call in enumerate(expectation):
            problems += matcher_problems(call.arguments, f"{where}[{i}].arguments")
    if problems:
        message = "malformed matcher in the expectation"
        raise SuiteError(message, case_id=case.id, problems=tuple(problems))
    if len(_checked) >= _CHECKED_SIZE:
        _checked.clear()
    _checked[id(case)] = case


def _best(
    case: Case, judge_: CallJudge, *, rubric: RubricName, ordered: bool
) -> tuple[int | None, Verdict]:
    """The best-scoring of the expectation and its alternatives (the earliest on ties)."""
    best_index: int | None = None
    best = judge_.verdict(case.expected, rubric=rubric, ordered=ordered)
    for k, alternative in enumerate(case.alternatives):
        if best.status == "correct":
            break
        verdict = judge_.verdict(alternative, rubric=rubric, ordered=ordered)
        if (verdict.score, verdict.closeness) > (best.score, best.closeness):
            best_index, best = k, verdict
    return best_index, best


def _any_call(judge_: CallJudge) -> Verdict:
    """Relevance: any call of an offered tool passes, whatever its arguments."""
    if any(judge_.is_offered(c.name) for c in judge_.actual):
        return Verdict("correct", 1.0, 1.0)
    if judge_.actual:
        return Verdict("wrong_tool", 0.0, 0.0)
    return Verdict("parse_error" if judge_.parse_failed else "missed_call", 0.0, 0.0)


def _result(
    case: Case,
    verdict: Verdict,
    *,
    expected: tuple[ToolCall, ...],
    calls: Sequence[ToolCall],
    rubric: RubricName,
    alternative: int | None,
    extraction: Extraction | None,
) -> CaseResult:
    prompt = case.prompt_json()
    return CaseResult(
        case_id=case.id,
        status=Status(verdict.status),
        score=verdict.score,
        rubric=rubric,
        expected=expected,
        actual=tuple(calls),
        pairs=tuple(
            PairResult(
                expected_index=p.expected_index,
                actual_index=p.actual_index,
                verdict=p.kind,
                credit=p.credit if rubric == "partial" else float(p.kind == "correct"),
                details=p.mismatches,
            )
            for p in verdict.pairs
        ),
        details=verdict.details,
        category=case.category,
        difficulty=case.difficulty,
        tags=case.tags,
        prompt=prompt,
        alternative=alternative,
        primary_tools=tuple(dict.fromkeys(c.name for c in case.expected)),
        extraction_format=extraction.format if extraction is not None else None,
        extraction_errors=tuple(f"{e.reason}: {e.message}" for e in extraction.errors)
        if extraction is not None
        else (),
    )
