"""NVIDIA When2Call's published JSONL -> a toolgrade suite of cases with an expected outcome.

When2Call (github.com/NVIDIA/When2Call, `data/test/when2call_test_mcq.jsonl` and
`when2call_test_llm_judge.jsonl`) is built from BFCL v2 live entries: one JSON object a
line, with `uuid`, `question` (the user's message), `correct_answer` (`tool_call`,
`request_for_info`, `cannot_answer` or `direct`), `tools` (the BFCL function docs offered,
each a JSON string), `answers` (a reply of each category; `answers.tool_call` a call as a
JSON string), `target_tool`, `held_out_param` (the argument taken out of the question for
`request_for_info`), `source` and `source_id` (the BFCL entry).

Each line becomes one case with the line's `uuid` as id and its category as category:
the tools become the case's own `tool_definitions` (BFCL types mapped to JSON Schema as
`import_bfcl` maps them, the descriptions as When2Call shows them), and the category the
expected outcome: `tool_call` -> `call` with `answers.tool_call` as the expected call
(any offered call when the line gives none), `request_for_info` -> `clarify` with the
held-out parameter as `missing`, `cannot_answer` -> `refuse`, `direct` -> `answer`.
"""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from toolgrade._core.files import read_text
from toolgrade._core.json_data import JsonObject, JsonValue, loads_checked
from toolgrade.bfcl._codec import schema_from_bfcl
from toolgrade.errors import InputError
from toolgrade.suite import Case, Outcome, Suite, ToolSpec

__all__ = ["WHEN2CALL_OUTCOMES", "import_when2call"]

WHEN2CALL_OUTCOMES: dict[str, Outcome] = {
    "tool_call": "call",
    "request_for_info": "clarify",
    "cannot_answer": "refuse",
    "direct": "answer",
}
"""When2Call's answer categories and the outcome each expects, in When2Call's order."""


class _LineError(Exception):
    """A problem of one line: the field at fault and what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)


def import_when2call(path: str | Path, *, name: str | None = None) -> Suite:
    """Read a When2Call JSONL file into a suite: one case a line, with its outcome.

    Args:
        path: a When2Call file (`when2call_test_mcq.jsonl`, `..._llm_judge.jsonl`, or
            one of the same format).
        name: the suite name (default `when2call`).

    Returns:
        The suite (`schema_version` 1), its cases in the file's order, its categories
        When2Call's four.

    Raises:
        InputError: the file cannot be read, holds no line, or a line is malformed (the
            error names the file, the line, the field and the case id when known).

    Examples:
        >>> suite = import_when2call("when2call_test_llm_judge.jsonl")  # doctest: +SKIP
        >>> suite.cases[0].turns[0].expect  # doctest: +SKIP
        'refuse'
    """
    source = str(path)
    text = read_text(Path(path), error=InputError)
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        case_id: str | None = None
        try:
            entry = _entry(line)
            case_id = _text(entry, "uuid")
            if case_id in seen:
                raise _LineError("uuid", f"the same as line {seen[case_id]}'s")
            seen[case_id] = number
            cases.append(_case(entry, case_id))
        except _LineError as exc:
            raise InputError(
                str(exc), path=source, location=f"line {number}", case_id=case_id
            ) from None
    if not cases:
        raise InputError("no When2Call line in the file", path=source)
    return Suite(
        name=name or "when2call",
        description=f"When2Call: {len(cases)} questions from {Path(path).name}, each "
        "expecting a call, a question back, a refusal or a direct answer.",
        categories=tuple(WHEN2CALL_OUTCOMES),
        cases=tuple(cases),
    )


def _loads(text: str, field: str) -> JsonValue:
    """JSON text read strictly: no NaN, no number out of range, no key given twice."""
    try:
        value, issues = loads_checked(text)
    except json.JSONDecodeError as exc:
        raise _LineError(field, f"not JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise _LineError(field, "nested too deeply") from None
    if issues:
        where = f"{field}{issues[0].path[1:]}" if field else issues[0].path
        raise _LineError(where, issues[0].message)
    return value


def _entry(line: str) -> JsonObject:
    value = _loads(line, "")
    if not isinstance(value, dict):
        raise _LineError("", "not a JSON object")
    return value


def _text(entry: JsonObject, field: str) -> str:
    value = entry.get(field)
    if not isinstance(value, str) or not value.strip():
        raise _LineError(field, "missing" if value is None else "not a non-empty string")
    return value


def _case(entry: JsonObject, case_id: str) -> Case:
    category = _text(entry, "correct_answer")
    outcome = WHEN2CALL_OUTCOMES.get(category)
    if outcome is None:
        raise _LineError(
            "correct_answer", f"{category!r} is not one of {', '.join(WHEN2CALL_OUTCOMES)}"
        )
    tools = _tools(entry.get("tools"))
    expected: list[JsonObject] = []
    missing: tuple[str, ...] = ()
    notes = [f"When2Call {category}"]
    source = " ".join(str(entry[k]) for k in ("source", "source_id") if entry.get(k))
    if source:
        notes[0] += f", from {source}"
    if outcome == "call":
        call = _answer_call(entry.get("answers"), tools)
        if call is not None:
            arguments, loosened = _fit(call[1], tools[call[0]])
            expected = [{"name": call[0], "arguments": arguments}]
            if loosened:
                notes.append(
                    f"answers.tool_call leaves out or contradicts the tool's schema for "
                    f"{', '.join(loosened)}: expected present, value unchecked"
                )
    elif outcome == "clarify":
        missing = _held_out(entry.get("held_out_param"), tools)
    return Case(
        id=case_id,
        category=category,
        tags=("when2call",),
        prompt=_text(entry, "question"),
        tools=(),
        tool_definitions=tuple(tools.values()),
        expected=expected,
        any_call=outcome == "call" and not expected,
        expect=outcome,
        missing=missing,
        notes="; ".join(notes),
    )


def _json_object(value: JsonValue, field: str) -> JsonObject:
    """A JSON object given as itself or as a JSON string (When2Call writes strings)."""
    if isinstance(value, str):
        value = _loads(value, field)
    if not isinstance(value, dict):
        raise _LineError(field, "not a JSON object")
    return value


def _tools(value: JsonValue) -> dict[str, ToolSpec]:
    if not isinstance(value, list):
        raise _LineError("tools", "missing" if value is None else "not a list")
    tools: dict[str, ToolSpec] = {}
    for i, raw in enumerate(value):
        field = f"tools[{i}]"
        doc = _json_object(raw, field)
        name = doc.get("name")
        if not isinstance(name, str) or not name or any(c.isspace() for c in name):
            raise _LineError(f"{field}.name", "not a tool name (a string without spaces)")
        if name in tools:
            raise _LineError(field, f"a second tool named {name!r}")
        description = doc.get("description")
        parameters = doc.get("parameters", {})
        if not isinstance(parameters, dict):
            raise _LineError(f"{field}.parameters", "not a JSON object")
        tools[name] = ToolSpec(
            name=name,
            description=description if isinstance(description, str) else "",
            parameters=schema_from_bfcl(parameters, "python"),
        )
    return tools


def _answer_call(answers: JsonValue, tools: dict[str, ToolSpec]) -> tuple[str, JsonObject] | None:
    """`answers.tool_call`'s tool and arguments; None when the line gives no call."""
    if answers is None:
        return None
    if not isinstance(answers, dict):
        raise _LineError("answers", "not a JSON object")
    raw = answers.get("tool_call")
    if raw is None or raw == "":
        return None
    call = _json_object(raw, "answers.tool_call")
    name = call.get("name")
    arguments = call.get("arguments", {})
    if not isinstance(name, str) or name not in tools:
        offered = ", ".join(tools) or "none"
        raise _LineError("answers.tool_call.name", f"{name!r} is not a tool offered ({offered})")
    if not isinstance(arguments, dict):
        raise _LineError("answers.tool_call.arguments", "not a JSON object")
    return name, arguments


def _fit(arguments: JsonObject, tool: ToolSpec) -> tuple[JsonObject, list[str]]:
    """The answer's arguments, each its schema refuses (or a required one left out) loosened.

    When2Call keeps one value of BFCL's acceptable ones and drops those that are false,
    zero or empty, so an answer may leave out a required argument or give a value the
    tool's schema refuses (`2012` where it lists `"2012"`). Such an argument is expected
    present with any value (`{"$present": true}`), and named in the case's notes.
    """
    fitted: JsonObject = dict(arguments)
    loosened: list[str] = []
    try:
        errors = list(Draft202012Validator(tool.parameters).iter_errors(arguments))
    except Exception:
        return fitted, loosened
    for error in errors:
        if error.path and isinstance(error.path[0], str):
            name = error.path[0]
        elif error.validator == "required" and isinstance(error.instance, dict):
            name = next((r for r in _required(error.validator_value) if r not in fitted), "")
        else:
            continue
        if name and name not in loosened:
            fitted[name] = {"$present": True}
            loosened.append(name)
    return fitted, loosened


def _required(value: object) -> list[str]:
    return [r for r in value if isinstance(r, str)] if isinstance(value, list) else []


def _held_out(value: JsonValue, tools: dict[str, ToolSpec]) -> tuple[str, ...]:
    """The held-out parameter as the one `missing` name (none when the line names none)."""
    if value is None:
        return ()
    if not isinstance(value, str) or not value:
        raise _LineError("held_out_param", "not a parameter name")
    if not any(t.argument_schema(value) is not None for t in tools.values()):
        offered = ", ".join(tools) or "none"
        raise _LineError(
            "held_out_param", f"{value!r} is no parameter of a tool offered ({offered})"
        )
    return (value,)
