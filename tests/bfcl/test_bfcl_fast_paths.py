"""The `bfcl` profile's fast paths give exactly what the plain ones give, on the corpus."""

from __future__ import annotations

import pytest
from bfcl_agreement import Group, load_corpus, model_output

from toolgrade.bfcl._answer import prepare_answer
from toolgrade.extract import Extraction, _api, extract_calls
from toolgrade.extract._api import make_context
from toolgrade.extract._pyliteral import read_call_block
from toolgrade.extract._pythonic import _unwrap, read_simple_block
from toolgrade.extract._shortcut import message_shortcut, plain_shortcut
from toolgrade.judging._judge import judge
from toolgrade.results import CaseResult


@pytest.fixture(scope="module")
def corpus() -> list[Group]:
    return load_corpus()


def test_read_simple_block_corpus_outputs_read_as_ast_does(corpus: list[Group]) -> None:
    read = 0
    for group in corpus:
        for item in group.items:
            output = model_output(item)
            if not isinstance(output, str):
                continue
            whole = _unwrap(output)
            fast = read_simple_block(whole)
            if fast is not None:
                read += 1
                assert fast == read_call_block(whole), whole
    assert read > 1000  # the plain reader does read most prompting outputs


def test_extract_shortcuts_corpus_outputs_same_as_full_path(
    corpus: list[Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs = [model_output(item) for group in corpus for item in group.items]
    tools = [None, ["get_weather"]]
    fast = [extract_calls(o, tools=t) for o in outputs for t in tools]
    answered = sum(
        (plain_shortcut(o, make_context(t)) if isinstance(o, str) else message_shortcut(o))
        is not None
        for o in outputs
        for t in tools
    )
    monkeypatch.setattr(_api, "plain_shortcut", lambda text, ctx: None)
    monkeypatch.setattr(_api, "message_shortcut", lambda output: None)
    full = [extract_calls(o, tools=t) for o in outputs for t in tools]
    assert fast == full
    assert [e.model_fields_set for e in fast] == [e.model_fields_set for e in full]
    assert answered > 3000  # most corpus outputs take a shortcut


def test_judge_bfcl_corpus_results_are_valid_models(corpus: list[Group]) -> None:
    # Results and extractions are built without validation: validating their dump must
    # give back equal models with the same fields set.
    for group in corpus:
        for item in group.items:
            extraction = extract_calls(model_output(item))
            assert Extraction.model_validate(extraction.model_dump()) == extraction
            result = judge(group.case, extraction, tools=group.tools, profile="bfcl")
            validated = CaseResult.model_validate(result.model_dump())
            assert validated == result
            assert result.model_fields_set == set(CaseResult.model_fields)


def test_prepare_answer_options_hold_what_the_checker_derives() -> None:
    answer = prepare_answer(
        "f", {"city": ["New York, NY", "NYC"], "unit": ["", "cm"], "xs": [[1, "A b"]], "n": 5}
    )
    city, unit, xs, n = (answer.options[k] for k in ("city", "unit", "xs", "n"))
    assert city.values == ["New York, NY", "NYC"]
    assert city.strings == ("newyorkny", "nyc")
    assert city.answer_type is str
    assert not city.optional
    assert unit.optional
    assert unit.answer_type is str  # the first value that is not ""
    assert xs.lists == ([1, "ab"],)
    assert n.values == [5]
    assert n.answer_type is int
