"""The compiled checker (the `bfcl` profile's fast path) gives `check_calls`'s verdicts.

`check_calls` is BFCL's checker ported rule for rule, on plain docs and answers; the
profile compiles it once per case (`toolgrade.bfcl._compiled`). Both must give the same
`BfclCheck` (valid, error type, message, parameter, pairs) on every call list: the whole
agreement corpus, and every argument of every corpus entry's ground truth replaced by
values of other types, other spellings, other list items and other source texts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

import pytest
from bfcl_agreement import Group, load_corpus, model_output
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolgrade.bfcl._answer import prepare_answer
from toolgrade.bfcl._checker import BfclCheck, check_calls
from toolgrade.bfcl._codec import decode_answer, function_from_schema
from toolgrade.bfcl._data import BfclCategory, BfclEntry
from toolgrade.bfcl._import import entry_to_case
from toolgrade.bfcl._profile import checker_for, language_of
from toolgrade.calls import ToolCall
from toolgrade.extract import extract_calls
from toolgrade.suite import Case, ToolSpec


def general_verdict(case: Case, tools: Sequence[ToolSpec], calls: Sequence[ToolCall]) -> BfclCheck:
    """The profile's verdict the plain way: docs and answers rebuilt, `check_calls`."""
    language = language_of(case)
    functions = [function_from_schema(t.name, t.parameters, language) for t in tools]

    def check(expected: Sequence[ToolCall]) -> BfclCheck:
        answers = [prepare_answer(c.name, decode_answer(c.arguments)) for c in expected]
        return check_calls(functions, answers, calls, language=language)

    first = check(case.expected)
    if first.valid:
        return first
    for alternative in case.alternatives:
        verdict = check(alternative)
        if verdict.valid:
            return verdict
    return first


@cache
def _corpus() -> tuple[Group, ...]:
    return tuple(g for g in load_corpus() if g.case.expected)


def _agree(group: Group, calls: Sequence[ToolCall]) -> None:
    fast = checker_for(group.case, group.tools).check(calls)
    assert fast == general_verdict(group.case, group.tools, calls), (group.case.id, calls)


def test_compiled_checker_corpus_outputs_same_verdicts() -> None:
    checked = 0
    for group in _corpus():
        for item in group.items:
            extraction = extract_calls(model_output(item))
            if extraction.errors:
                continue  # a decode failure never reaches the checker
            _agree(group, extraction.calls)
            checked += 1
    assert checked > 2000


_PLAIN: list[Any] = [0, 1, -1, 2.5, 1.0, 0.0, True, False, None, "", " ", "x", [], {}, [1], ["x"]]
_SOURCE = ["true", "false", "1", "-3", "1.5", "1.5f", "2L", "7n", '"x"', "'x'", "[1, 2]", "{}"]


def _variants(value: Any) -> Iterator[Any]:
    """Values near `value`: other types, spellings, items; then unrelated ones."""
    yield from _PLAIN
    if isinstance(value, bool):
        yield int(value)
        yield str(value).lower()
    elif isinstance(value, int | float):
        yield float(value)
        yield int(value)
        yield str(value)
        yield -value
        yield [value]
    elif isinstance(value, str):
        yield value.upper()
        yield value.lower()  # in a Java or JavaScript dict or list: the values' case
        yield value.replace(" ", "_")
        yield f" {value}."
        yield value[:-1]
        yield [value]
        yield from _SOURCE
        yield f'"{value}"'
        # Java and JavaScript number spellings (the compiled rules know some by heart).
        for suffix in ("L", "l", "f", "F", "n", ".0", "e0"):
            yield f"{value}{suffix}"
        yield value.rstrip("LlfFn")
    elif isinstance(value, list):
        yield list(reversed(value))
        yield value[:-1]
        yield [*value, *value[:1]]
        yield [str(v) for v in value]
        yield [float(v) if type(v) is int else v for v in value]
        yield [v.upper() if isinstance(v, str) else v for v in value]
        yield ", ".join(map(str, value))
        yield tuple(value)
    elif isinstance(value, dict):
        yield {k: str(v) for k, v in value.items()}
        yield {**value, "extra": 1}
        yield dict(list(value.items())[:-1])
        yield [value]
        yield [value, value]


def _ground_truths(group: Group) -> Iterator[list[ToolCall]]:
    for item in group.items:
        if item.mutation == "ground_truth":
            extraction = extract_calls(model_output(item))
            if not extraction.errors and extraction.calls:
                yield list(extraction.calls)


def _with(calls: list[ToolCall], index: int, key: str, value: Any) -> list[ToolCall]:
    arguments = {**calls[index].arguments, key: value}
    changed = ToolCall.model_construct(name=calls[index].name, arguments=arguments)
    return [*calls[:index], changed, *calls[index + 1 :]]


@pytest.mark.slow
def test_compiled_checker_mutated_arguments_same_verdicts() -> None:
    checked = 0
    for group in _corpus():
        for calls in _ground_truths(group):
            for index, call in enumerate(calls):
                for key, value in call.arguments.items():
                    for other in _variants(value):
                        _agree(group, _with(calls, index, key, other))
                        checked += 1
                    without = {k: v for k, v in call.arguments.items() if k != key}
                    _agree(group, [*calls[:index], call.model_copy(update={"arguments": without})])
            _agree(group, calls[::-1])
            _agree(group, [*calls, calls[0]])
    assert checked > 20_000


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-3, 3) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_compiled_checker_random_values_same_verdicts(data: st.DataObject) -> None:
    groups = _corpus()
    group = groups[data.draw(st.integers(0, len(groups) - 1))]
    calls = next(_ground_truths(group), None)
    if not calls:
        return
    index = data.draw(st.integers(0, len(calls) - 1))
    keys = sorted(calls[index].arguments) or ["x"]
    key = data.draw(st.sampled_from(keys))
    _agree(group, _with(calls, index, key, data.draw(_JSON)))


DOC = {
    "name": "f",
    "description": "d",
    "parameters": {
        "type": "dict",
        "properties": {
            "xs": {"type": "array", "items": {"type": "integer"}},
            "n": {"type": "float"},
            "s": {"type": "string"},
            "d": {"type": "dict", "properties": {}},
            "ds": {"type": "array", "items": {"type": "dict"}},
        },
        "required": ["xs"],
    },
}


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ({"xs": [[1, "x"]]}, [1, "x"]),  # an option with an item of another type
        ({"xs": [[1, 2], ""]}, [1, 2.0]),
        ({"xs": [[]]}, []),
        ({"xs": []}, [1]),  # BFCL's empty list of answers
        ({"xs": ["12"]}, [1, 2]),  # a string answer is a list of characters
        ({"xs": [[1]], "n": [2.0, ""]}, [1]),
        ({"xs": [[1]], "s": ["A b", 3]}, [1]),
        ({"xs": [[1]], "d": [{"k": ["v", ""], "n": [1]}]}, [1]),
        ({"xs": [[1]], "d": [{"k": "vw"}, ""]}, [1]),  # a bare string: its characters
        ({"xs": [[1]], "d": [{"k": ["w"]}, "x", {"k": ["v"]}]}, [1]),  # BFCL stops at "x"
        ({"xs": [[1]], "d": ["", {"k": ["V w"], "n": [1, ""]}]}, [1]),
        ({"xs": [[1]], "ds": [[{"k": ["v"]}, {"n": [1]}], [{"k": ["v"]}]]}, [1]),
        ({"xs": [[1]], "ds": [[{"k": ["v"]}, ""]]}, [1]),
    ],
)
def test_compiled_checker_edge_answers_same_verdicts(
    answer: dict[str, Any], value: list[Any]
) -> None:
    entry = BfclEntry("edge", [[{"role": "user", "content": "?"}]], (DOC,), ({"f": answer},))
    case = entry_to_case(entry, BfclCategory.SIMPLE_PYTHON)
    group = Group(case=case, tools=case.tool_definitions, items=())
    extras: list[dict[str, Any]] = [
        {},
        {"n": 2},
        {"n": True},
        {"s": "a-B"},
        {"s": 3},
        {"s": "3"},
        {"d": {"k": "v", "n": 1}},
        {"d": {"k": "v"}},
        {"d": {"n": 1}},
        {"d": {"k": "v", "n": True}},
        {"d": {"k": "V-w", "n": 1.0}},
        {"d": {"k": "v", "x": 1}},
        {"d": {"k": "w"}},
        {"d": {}},
        {"d": [{"k": "v"}]},
        {"ds": [{"k": "v"}, {"n": 1}]},
        {"ds": [{"k": "v"}]},
        {"ds": [{"k": "V"}, {"n": 1.0}]},
        {"ds": [{"k": "v"}, "x"]},
        {"ds": [{"k": "v"}, {}]},
    ]
    for extra in extras:
        _agree(group, [ToolCall(name="f", arguments={"xs": value, **extra})])
