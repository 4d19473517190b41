r"""The fuzz campaign: hostile output in every format, through the whole pipeline, 0 exceptions.

The generator is biased toward what broke toolgrade before: lone UTF-16 surrogates (raw,
and as `\udXXX` / `\U0000dXXX` escapes), huge numbers (640+ digits, `1e999`, `-0`),
deep nesting, and regex bait (long runs of `a`, spaces, `!`), written inside each
format's own markup (the format registry: every format, forced and auto-detected),
around it, or in the structured messages. Each output is extracted, judged against
cases with `pattern`, `patternProperties`, `enum` and nested schemas and `$regex`,
`$unordered`, `$any_of`, `$not` expectations, written to a run folder, read back and
rendered as the text, JSON and HTML reports (`_campaign.pipeline`, in a worker process
with a deadline). `make test` runs a short campaign; `pytest tests/extract --fuzz-long`
(or `TOOLGRADE_FUZZ_EXAMPLES=N`) a long one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from toolgrade.extract import list_formats
from toolgrade.extract._structured import STRUCTURED

from ._campaign import CampaignWorker, Job
from ._fuzz_inputs import fragments, fuzz_message, fuzz_text
from ._samples import TEMPLATES, sample

_STRUCTURED = {fmt.name for fmt in STRUCTURED}
_NAMES = [fmt.name for fmt in list_formats()]
_QUICK = 40
"""Campaign examples in `make test` (a few seconds); the long campaign takes the
extraction fuzz's count (`--fuzz-long`, `TOOLGRADE_FUZZ_EXAMPLES`)."""
_SETTINGS = {
    "deadline": None,
    "derandomize": False,
    # A hang costs the worker's whole wall limit per try: shrinking would take minutes.
    "phases": (Phase.explicit, Phase.reuse, Phase.generate),
    "suppress_health_check": (HealthCheck.too_slow, HealthCheck.data_too_large),
}

# --- what the generator is biased toward ---------------------------------------------------

RAW_SURROGATES = ("\ud83d", "\udc00", "\udfff", "\ud800", "\ude00\ud83d")
ESCAPED_SURROGATES = (
    "\\ud83d", "\\uDC00", "\\udfff", "\\ud83d\\ude00", "\\ude00\\ud83d", "\\U0000d83d",
)  # fmt: skip
HUGE_NUMBERS = (
    "1" * 641, "-" + "9" * 700, "1" * 640, "1" * 4301, "1e999", "-1e999", "1e-999", "-0",
    "-0.0", "0." + "0" * 700 + "1", "0x" + "f" * 700, "9" * 20 + ".5e308", "1_000" * 200,
)  # fmt: skip
DEEP_NESTING = (
    "[" * 150 + "]" * 150,
    '{"a": ' * 150 + "1" + "}" * 150,
    "[{" * 120 + "}]" * 120,
    "[" * 3000,
    "{" * 3000 + "}" * 10,
    "(" * 200 + ")" * 200,
    "f(a=" * 120 + "1" + ")" * 120,
)
REGEX_BAIT = (
    "a" * 5000, " " * 5000, "!" * 5000, "a" * 5000 + "!", "ab" * 3000 + "!",
    "a " * 5000 + "!", "x-" + "a" * 5000, "\\" * 5001, "\\d" * 3000,
)  # fmt: skip
HOSTILE = RAW_SURROGATES + ESCAPED_SURROGATES + HUGE_NUMBERS + DEEP_NESTING + REGEX_BAIT


def _quoted(body: str, quote: str = '"') -> str:
    return quote + body + quote


def fixed_values() -> list[str]:
    """One value text of each family (every format gets each, deterministically)."""
    return [
        _quoted("notes \\ud83d.md"),
        _quoted("raw \ud83d half"),
        _quoted("\\udc00" + "a" * 3000 + "!"),
        "'\\ud83d \\U0000dc00'",
        "1" * 641,
        "1e999",
        "-0",
        "[" * 150 + "1" + "]" * 150,
        _quoted("a" * 5000),
        _quoted(" " * 5000 + "!"),
        json.dumps({"x-a": 1, "a" * 40 + "!": "\ud83d", "p": ["ab" * 50 + "!"]}),
    ]


_piece = st.sampled_from(HOSTILE) | st.text(max_size=6) | st.characters(categories=["Cs"])
_json_leaf = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**639, max_value=10**700)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(categories=["Cs"]) | st.characters(), max_size=8)
    | st.sampled_from(REGEX_BAIT)
)
_json_values = st.recursive(
    _json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(st.characters(categories=["Cs"]) | st.characters(), max_size=6), inner
        )
    ),
    max_leaves=8,
)


@st.composite
def value_text(draw: st.DrawFn) -> str:
    """The raw text of one argument value: JSON, a Python literal, or bare text."""
    kind = draw(st.sampled_from(("quoted", "python", "bare", "json", "json")))
    body = "".join(draw(st.lists(_piece, min_size=1, max_size=4)))
    if kind == "quoted":
        return _quoted(body)
    if kind == "python":
        return _quoted(body, "'")
    if kind == "bare":
        return body
    value = draw(_json_values)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    return text


@st.composite
def campaign_text(draw: st.DrawFn, name: str) -> str:
    """Calls in the format's markup holding hostile values, or marker soup around them."""
    if name in TEMPLATES and draw(st.integers(0, 3)) > 0:
        values = [draw(value_text()) for _ in range(draw(st.integers(1, 3)))]
        text = "".join(sample(name, 1, v).replace("f0", f"f{i % 2}") for i, v in enumerate(values))
    else:
        text = draw(fuzz_text(name, max_pieces=20))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(_piece) + text[at:]
    if draw(st.integers(0, 5)) == 0:
        text = f"<think>{draw(_piece)}</think>{text}"
    return text


@st.composite
def campaign_message(draw: st.DrawFn, name: str) -> object:
    """A structured message (or response) whose calls, names and text are hostile."""
    if draw(st.booleans()):
        return draw(fuzz_message(name))
    value = draw(_json_values)
    arguments: object = (
        {"a": value}
        if name == "ollama"
        else json.dumps({"a": value}, ensure_ascii=draw(st.booleans()))
    )
    if name == "openai" and draw(st.booleans()):
        arguments = '{"a": ' + draw(value_text()) + "}"
    function = {"name": draw(st.sampled_from(("f0", "f1", "f0\ud83d", "f\\ud83d"))),
                "arguments": arguments}  # fmt: skip
    content = draw(st.none() | campaign_text("hermes"))
    if name == "openai_function_call":
        return {"role": "assistant", "content": content, "function_call": function}
    calls = [{"type": "function", "function": function}] * draw(st.integers(1, 3))
    message = {"role": "assistant", "content": content, "tool_calls": calls}
    return {"message": message} if name == "ollama" else message


# --- the campaign ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def worker() -> Iterator[CampaignWorker]:
    running = CampaignWorker()
    yield running
    running.close()


@pytest.fixture
def examples(pytestconfig: pytest.Config, fuzz_examples: int) -> int:
    """Short in `make test`; the extraction fuzz's count in the long campaign."""
    from .conftest import QUICK_EXAMPLES

    return _QUICK if fuzz_examples == QUICK_EXAMPLES else fuzz_examples


def _fixed_jobs(name: str) -> list[Job]:
    if name in _STRUCTURED:
        outputs: list[object] = [
            {"role": "assistant", "content": "\ud83d", "tool_calls": [
                {"function": {"name": "f0\ud83d", "arguments": '{"a": ' + v + "}"}}]}
            for v in fixed_values()
        ]  # fmt: skip
    else:
        outputs = [sample(name, 2, v) for v in fixed_values()]
    tools = ("none", "names", "specs")
    return [
        (output, fmt, tools[i % 3]) for i, output in enumerate(outputs) for fmt in (name, "auto")
    ]


@pytest.mark.parametrize("name", _NAMES)
def test_campaign_every_format_fixed_hostile_values(
    worker: CampaignWorker, tmp_path: Path, name: str
) -> None:
    """Each format, forced and auto-detected, with one value of every hostile family."""
    assert worker.run(tmp_path, _fixed_jobs(name)) == ""


def test_campaign_fuzz_every_format(worker: CampaignWorker, tmp_path: Path, examples: int) -> None:
    @settings(max_examples=examples, **_SETTINGS)  # type: ignore[arg-type]
    @given(st.data())
    def check(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(_NAMES), label="format")
        if name in _STRUCTURED:
            output: object = data.draw(campaign_message(name), label="output")
        else:
            output = data.draw(campaign_text(name), label="output")
        tools = data.draw(st.sampled_from(("none", "names", "specs")), label="tools")
        assert worker.run(tmp_path, [(output, name, tools), (output, "auto", tools)]) == ""

    check()


def test_campaign_every_format_has_a_template_or_is_structured() -> None:
    for name in _NAMES:
        assert name in TEMPLATES or name in _STRUCTURED, name
        assert name in _STRUCTURED or fragments(name), name
