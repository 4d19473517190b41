"""Every reader makes progress on every input: no hang, no superlinear blow-up, no crash.

Each check runs in a worker process with a deadline (`_deadline.Worker`), so a reader
stuck in a loop fails the test instead of hanging it. Every format is fuzzed with
inputs built from its own markers and grammar, both forced (`format=NAME`) and through
auto-detection; `--fuzz-long` (or TOOLGRADE_FUZZ_EXAMPLES=N) runs a longer campaign.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from toolgrade.extract import list_formats
from toolgrade.extract._structured import STRUCTURED

from ._deadline import Worker
from ._fuzz_inputs import examples, fragments, fuzz_message, fuzz_text

_STRUCTURED = {fmt.name for fmt in STRUCTURED}
_NAMES = [fmt.name for fmt in list_formats()]
_SETTINGS = {
    "deadline": None,
    "derandomize": False,
    # A hang costs the worker's whole wall limit per try: shrinking would take minutes.
    "phases": (Phase.explicit, Phase.reuse, Phase.generate),
    "suppress_health_check": (HealthCheck.too_slow, HealthCheck.data_too_large),
}


@pytest.fixture(scope="module")
def worker() -> Iterator[Worker]:
    running = Worker()
    yield running
    running.close()


# The inputs that hung or blew up before the fix, each with the format that showed it.
_REGRESSIONS: list[tuple[str, str, list[str] | None]] = [
    # Gemma readers: a bare value stopped before `}` inside `[...]` without consuming it.
    ("<|tool_call>call:n{s:[}}<tool_call|>", "gemma4", None),
    ("<start_function_call>call:f{a:[}}<end_function_call>", "functiongemma", None),
    ("<|tool_call>call:f{a:[1}}<tool_call|>", "gemma4", None),
    ('<|tool_call>call:f{a:[<|"|>x<|"|>}}<tool_call|>', "gemma4", None),
    # Qwen3-Coder: each parameter walked every `</parameter>` inside values again.
    (
        "<tool_call><function=f>" + "<parameter=a>\n" * 3000 + "</parameter>x" * 3000
        + "</function></tool_call>",
        "qwen3_coder",
        None,
    ),
]  # fmt: skip


def _number_tools() -> list[object]:
    from toolgrade.suite import ToolSpec

    schema = {"type": "object", "properties": {"a": {"type": "number"}}}
    return [ToolSpec(name="f", parameters=schema)]


@pytest.mark.parametrize(("output", "fmt", "tools"), _REGRESSIONS)
def test_progress_known_hang_input_finishes(
    worker: Worker, output: str, fmt: str, tools: list[str] | None
) -> None:
    assert worker.run(output, fmt, tools) == ""
    assert worker.run(output, "auto", tools) == ""


def test_progress_long_number_with_schema_is_linear(worker: Worker) -> None:
    # 400 values of 801 digits took about 4 s before the number pattern was fixed.
    params = "".join(f'<parameter name="a">{"1" * 801}</parameter>' for _ in range(400))
    output = f'<function_calls><invoke name="f">{params}</invoke></function_calls>'
    assert worker.run(output, "anthropic_xml", _number_tools()) == ""  # type: ignore[arg-type]


def test_progress_every_format_has_fuzz_material() -> None:
    for name in _NAMES:
        if name not in _STRUCTURED:
            assert examples(name) != ("",), name
            assert len(fragments(name)) >= 5, name


@pytest.mark.parametrize("name", _NAMES)
def test_progress_fuzz_format_forced_and_auto(
    worker: Worker, fuzz_examples: int, name: str
) -> None:
    @settings(max_examples=fuzz_examples, **_SETTINGS)  # type: ignore[arg-type]
    @given(st.data())
    def check(data: st.DataObject) -> None:
        if name in _STRUCTURED:
            output: object = data.draw(fuzz_message(name), label="output")
        else:
            output = data.draw(fuzz_text(name), label="output")
        tools = data.draw(st.sampled_from((None, ["f"], ["f0", "get_weather"])), label="tools")
        assert worker.run(output, name, tools) == ""
        assert worker.run(output, "auto", tools) == ""

    check()


@pytest.mark.fuzz_long
@pytest.mark.parametrize("size", [200, 2000])
def test_progress_fuzz_long_every_format_mixed(
    worker: Worker, fuzz_examples: int, size: int
) -> None:
    """Fragments of all formats in one output (formats detected ahead of the right one)."""
    names = [name for name in _NAMES if name not in _STRUCTURED]

    @settings(max_examples=fuzz_examples, **_SETTINGS)  # type: ignore[arg-type]
    @given(st.lists(st.sampled_from(names), min_size=1, max_size=4), st.data())
    def check(chosen: list[str], data: st.DataObject) -> None:
        parts = [data.draw(fuzz_text(name, max_pieces=size // 10)) for name in chosen]
        output = "".join(parts)
        assert worker.run(output, "auto", None) == ""
        assert worker.run(output, data.draw(st.sampled_from(chosen)), ["f"]) == ""

    check()
