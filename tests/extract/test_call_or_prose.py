"""Call or prose: where call-shaped JSON sits decides whether an unknown name is a call.

docs/extraction.md, "Call or prose": the whole reply, a whole fenced block or an xLAM
list is a call whatever its name; JSON quoted in prose must name an offered tool.
"""

from __future__ import annotations

import pytest

from toolgrade import extract_calls

TOOLS = ["read_file"]
CALL = '{"name": "send_email", "arguments": {"to": "x"}}'


@pytest.mark.parametrize(
    ("output", "fmt"),
    [
        (CALL, "json"),
        (f"  \n{CALL}\n\n", "json"),
        (f"<think>draft</think>{CALL}", "json"),
        ('{"name": "send_email", "parameters": {"to": "x"}}', "llama3_json"),
        ('{"tool_calls": [' + CALL + "]}", "json"),
        ('{"type": "function", "function": {"name": "send_email", "arguments": "{}"}}', "json"),
        (f"[{CALL}]", "xlam"),
        (f"```json\n[{CALL}]\n```", "xlam"),
        (f"```json\n{CALL}\n```", "fenced_json"),
        (f"Sure.\n```\n{CALL}\n```\nDone.", "fenced_json"),
        (f"Sure.\n```tool_call\n{CALL}\n```", "fenced_json"),
        (f"```python\n{CALL}\n```", "fenced_json"),  # wholly a call, whatever the fence says
        ({"role": "assistant", "content": CALL}, "json"),
    ],
)
def test_call_or_prose_whole_call_with_unknown_name_is_call(output: object, fmt: str) -> None:
    found = extract_calls(output, tools=TOOLS)  # type: ignore[arg-type]
    assert (found.format, [c.name for c in found.calls], found.errors) == (
        fmt,
        ["send_email"],
        (),
    )


@pytest.mark.parametrize(
    "output",
    [
        f"You could call {CALL} if you had it.",
        f"As JSON: {CALL}",
        f"{CALL} is what it would look like.",
        f"```python\nresult = {CALL}\n```",  # code that holds a call object
        '{"name": "send_email"}',
        '{"name": "send_email", "parameters": {"type": "object", "properties": {}}}',
        {"role": "assistant", "content": f"Quoting {CALL} only."},
    ],
)
def test_call_or_prose_unknown_name_outside_whole_call_is_not_a_call(output: object) -> None:
    found = extract_calls(output, tools=TOOLS)  # type: ignore[arg-type]
    assert (found.format, found.calls) == ("none", ())


def test_call_or_prose_broken_fenced_call_with_unknown_name_is_parse_error() -> None:
    found = extract_calls(f"```json\n{CALL} and more\n```", tools=TOOLS)
    assert (found.format, found.calls) == ("fenced_json", ())
    assert [e.reason for e in found.errors] == ["parse_error"]


def test_call_or_prose_offered_name_in_prose_is_call() -> None:
    found = extract_calls(
        'I will call {"name": "read_file", "arguments": {"path": "a"}}.', tools=TOOLS
    )
    assert [c.name for c in found.calls] == ["read_file"]


def test_call_or_prose_unknown_tools_reads_prose_calls_as_before() -> None:
    found = extract_calls(f"You could call {CALL} if you had it.")
    assert [c.name for c in found.calls] == ["send_email"]


def test_call_or_prose_function_tag_body_decides_qwen3_coder_or_functionary() -> None:
    xml = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
    assert extract_calls(xml).format == "qwen3_coder"
    assert extract_calls('<function=f>{"a": 1}</function>').format == "functionary_v31"
