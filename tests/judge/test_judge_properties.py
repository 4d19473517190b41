"""Properties of the judge: self-judging is correct, order `any` ignores permutations,
scores stay within [0, 1]."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolgrade import Case, Status, ToolSpec, score_calls
from toolgrade.judging._judge import judge

NAMES = ("a", "b", "c")
RUBRICS = ("binary", "partial", "f1")

keys = st.text(min_size=1, max_size=6).filter(lambda k: not k.startswith("$"))
leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["./src/a.py", "src//a.py", " x ", "README.md", "dir/"])
)
values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
arg_keys = keys | st.sampled_from(["path", "dir", "cwd", "query"])
arguments = st.dictionaries(arg_keys, values, max_size=4)
calls = st.builds(lambda n, a: {"name": n, "arguments": a}, st.sampled_from(NAMES), arguments)
call_lists = st.lists(calls, max_size=5)

_SETTINGS = settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow])


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _tools(expected: list[dict[str, Any]], typed: bool) -> list[ToolSpec]:
    """Schemas the expected calls satisfy: every type a property takes, or none."""
    seen: dict[str, dict[str, set[str]]] = {n: {} for n in NAMES}
    for call in expected:
        for key, value in call["arguments"].items():
            seen[call["name"]].setdefault(key, set()).add(_kind(value))
    tools = []
    for name, props in seen.items():
        schema: dict[str, Any] = {"type": "object", "properties": {}}
        if typed:
            for key, kinds in props.items():
                if "integer" in kinds and "number" in kinds:
                    kinds = kinds - {"integer"}
                schema["properties"][key] = {"type": sorted(kinds)}
        tools.append(ToolSpec(name=name, parameters=schema))
    return tools


def _case(expected: list[dict[str, Any]], order: str = "any") -> Case:
    return Case.model_validate({"id": "p", "prompt": "p", "expected": expected, "order": order})


@_SETTINGS
@given(call_lists, st.booleans(), st.sampled_from(RUBRICS), st.sampled_from(["any", "strict"]))
def test_judge_own_expected_calls_always_correct(
    expected: list[dict[str, Any]], typed: bool, rubric: str, order: str
) -> None:
    case = _case(expected, order)
    result = judge(case, case.expected, tools=_tools(expected, typed), rubric=rubric)  # type: ignore[arg-type]
    assert result.status is Status.CORRECT, [m.describe() for m in result.details]
    assert result.score == 1.0


@st.composite
def mutated(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Expected calls, and actual calls derived from them with some mistakes."""
    expected = draw(call_lists)
    actual = []
    for call in expected:
        action = draw(st.sampled_from(["keep", "keep", "drop", "twice", "rename", "change"]))
        if action in ("keep", "twice"):
            actual.append(call)
        if action == "twice":
            actual.append(call)
        if action == "rename":
            actual.append({**call, "name": draw(st.sampled_from([*NAMES, "zzz"]))})
        if action == "change":
            actual.append({**call, "arguments": draw(arguments)})
    actual += draw(st.lists(calls, max_size=2))
    return expected, actual


@_SETTINGS
@given(mutated(), st.randoms(use_true_random=False), st.sampled_from(RUBRICS), st.booleans())
def test_judge_permuting_actual_calls_keeps_verdict(
    pair: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    rng: Any,
    rubric: str,
    typed: bool,
) -> None:
    expected, actual = pair
    tools = _tools(expected, typed)
    case = _case(expected)
    shuffled = list(actual)
    rng.shuffle(shuffled)
    first = judge(case, actual, tools=tools, rubric=rubric)  # type: ignore[arg-type]
    second = judge(case, shuffled, tools=tools, rubric=rubric)  # type: ignore[arg-type]
    assert first.status == second.status
    assert abs(first.score - second.score) < 1e-9
    assert 0.0 <= first.score <= 1.0


@_SETTINGS
@given(call_lists, call_lists, st.sampled_from(RUBRICS), st.sampled_from(["any", "strict"]))
def test_judge_score_within_unit_interval(
    expected: list[dict[str, Any]], actual: list[dict[str, Any]], rubric: str, order: str
) -> None:
    result = judge(_case(expected, order), actual, tools=_tools(expected, True), rubric=rubric)  # type: ignore[arg-type]
    assert 0.0 <= result.score <= 1.0
    assert (result.score == 1.0) == (result.status is Status.CORRECT)


plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, 1.0, 2.0]),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(keys, inner, max_size=2),
    max_leaves=4,
)
plain_calls = st.lists(
    st.builds(
        lambda n, a: {"name": n, "arguments": a},
        st.sampled_from(NAMES),
        st.dictionaries(st.sampled_from(["x", "y"]), plain_values, max_size=2),
    ),
    max_size=4,
)


@_SETTINGS
@given(plain_calls, plain_calls, st.sampled_from(["any", "strict"]))
def test_judge_f1_agrees_with_score_calls_without_schemas(
    expected: list[dict[str, Any]], actual: list[dict[str, Any]], order: str
) -> None:
    # Without strings or schemas, semantic equality under strict mode is deep equality.
    case = _case(expected, order)
    result = judge(case, actual, tools=None, rubric="f1", strict=True)
    reference = score_calls(expected, actual, order=order)  # type: ignore[arg-type]
    assert result.score == pytest.approx(reference.f1)
    assert sum(p.verdict == "correct" for p in result.pairs) == len(reference.correct)
