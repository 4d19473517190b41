"""Each rule of the decision classifier, the malformed-call rule, and its bounds."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade._core.transcript import Step, TurnResult
from toolgrade.decision import Decision, classify_reply, decision_of, turn_decision
from toolgrade.results import CaseResult


def _rule(text: str, **kwargs: object) -> tuple[str, str]:
    verdict = classify_reply(text, calls=0, **kwargs)  # type: ignore[arg-type]
    return verdict.kind.value, verdict.rule


def test_calls_decide_first() -> None:
    assert _rule("") == ("unclassified", "empty")
    verdict = classify_reply("I can't do that.", calls=2)
    assert (verdict.kind, verdict.rule, verdict.evidence) == (Decision.CALL, "calls", "2 calls")


def test_a_malformed_call_is_a_call_never_an_abstention() -> None:
    # gorilla#1362: a `<tool_call>` that did not parse counted as a correct abstention.
    verdict = classify_reply("I cannot help with that.", calls=0, parse_errors=1)
    assert (verdict.kind, verdict.rule) == (Decision.CALL, "malformed_call")


@pytest.mark.parametrize(
    "text",
    [
        "functions.read_file:",
        '<tool_call>\n{"name": "f", "arguments": {}',
        '{"name": "book_flight", "arguments": {"to": "LIS"}}',
    ],
)
def test_call_written_as_text(text: str) -> None:
    assert _rule(text) == ("call", "call_text")


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Which file do you want me to read?", "question_to_user"),
        ("Sure. Please provide the path to the file.", "detail_request"),
        ("Quel fichier voulez-vous que je lise ?", "question_to_user"),
        ("Bitte geben Sie den Namen der Datei an.", "detail_request"),
        ("¿Cuál es el nombre del archivo?", "question_to_user"),
    ],
)
def test_clarify(text: str, rule: str) -> None:
    assert _rule(text) == ("clarify", rule)


@pytest.mark.parametrize(
    "text",
    [
        "I can't book flights: none of the tools I have does that.",
        "I'm sorry, there is no tool to send email here.",
        "Je ne peux pas envoyer de courriel avec ces outils.",
        "Ich kann keine E-Mails senden, dafür habe ich kein Werkzeug.",
        "No puedo reservar vuelos con las herramientas disponibles.",
    ],
)
def test_refuse(text: str) -> None:
    assert _rule(text) == ("refuse", "cannot_with_tools")


def test_answer_and_an_offer_after_it() -> None:
    assert _rule("A tuple is immutable; a list is not.") == ("answer", "answer")
    assert _rule("Done. Would you like me to run the tests too?") == ("answer", "answer")


@pytest.mark.parametrize(
    ("text", "rule", "prompt"),
    [
        ("Sorry, I can't open it. Which path do you mean?", "conflict", None),
        ("打开文件 文档/说明.md 并读取内容。", "abstain_language", None),
        ("Это просто ответ на вопрос.", "abstain_language", None),
        ("It.", "too_short", None),
        ('```json\n{"debug": false}\n```', "code_only", None),
        ('<tool_response>\n{"ok": true}\n</tool_response>', "echo_tool_result", None),
        ("You are a coding agent working in a repository.", "echo_prompt", None),
        ("Delete it. You are a helpful assistant.", "echo_prompt", None),
        (
            "Can you explain the difference between a list and a tuple in Python?",
            "echo_prompt",
            "What's the difference between a list and a tuple in Python?",
        ),
        ("the same loop again and " * 20, "repetition", None),
    ],
)
def test_abstains_when_unsure(text: str, rule: str, prompt: str | None) -> None:
    assert _rule(text, prompt=prompt) == ("unclassified", rule)


def test_an_answer_restating_the_question_is_still_an_answer() -> None:
    prompt = "What's the default timeout in src/invoicer/config.py?"
    text = "The default timeout in src/invoicer/config.py is 10 seconds."
    assert _rule(text, prompt=prompt) == ("answer", "answer")


def test_reasoning_is_removed_first() -> None:
    text = "<think>I can't tell which file. Which one?</think>The file has 12 lines."
    assert _rule(text) == ("answer", "answer")


def test_only_the_end_of_a_long_reply_is_read() -> None:
    text = "Which file do you mean? " + "x" * 10_000 + " The answer is four."
    assert _rule(text) == ("answer", "answer")


def test_evidence_is_clipped() -> None:
    verdict = classify_reply("word " * 500 + "end.", calls=0)
    assert len(verdict.evidence) <= 80


def test_decision_of_a_result_and_of_a_turn() -> None:
    result = CaseResult(
        case_id="c",
        status="missed_call",
        score=0.0,
        prompt=[{"role": "user", "content": "Open it."}],
        raw_response={"role": "assistant", "content": "Which file should I open?"},
    )
    assert decision_of(result).kind is Decision.CLARIFY
    malformed = result.model_copy(update={"extraction_errors": ("malformed_json: x",)})
    assert decision_of(malformed).rule == "malformed_call"
    turn = TurnResult(
        index=0,
        user="Send an email.",
        steps=(Step(raw_response={"role": "assistant", "content": "I cannot send email."}),),
        reply="I cannot send email.",
    )
    assert turn_decision(turn).kind is Decision.REFUSE
    assert turn_decision(TurnResult(index=0, user="x")).rule == "empty"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=3000), st.integers(0, 3), st.integers(0, 2), st.none() | st.text())
def test_never_raises_and_is_bounded(
    text: str, calls: int, errors: int, prompt: str | None
) -> None:
    verdict = classify_reply(text, calls=calls, parse_errors=errors, prompt=prompt)
    assert verdict.kind in Decision
    assert len(verdict.evidence) <= 80


@pytest.mark.parametrize(
    "text",
    ["?" * 200_000, "{" * 200_000, "```\n" * 50_000, "a " * 200_000, "you are a " * 50_000],
)
def test_adversarial_text_is_fast(text: str) -> None:
    start = time.perf_counter()
    classify_reply(text, calls=0, prompt=text)
    assert time.perf_counter() - start < 1.0
