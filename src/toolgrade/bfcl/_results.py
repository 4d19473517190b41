"""BFCL result files -> toolgrade responses files (for `replay/` runs and `evaluate`).

BFCL writes one JSON line per entry: `{"id": ..., "result": ..., "latency": ...}`. A
prompting-style model's `result` is its raw text (`"[func(a=1)]"`); a function-calling
model's is a list of `{name: "<json arguments>"}`. The first becomes the response's
`output`, the second an OpenAI-style assistant `message` with `tool_calls`, so that
toolgrade extracts and judges them as if it had asked the model itself.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolgrade._files import read_text
from toolgrade._json import JsonObject, JsonValue
from toolgrade.backends import ReplayRecord
from toolgrade.errors import InputError

__all__ = ["convert_bfcl_results", "convert_result"]


def convert_result(case_id: str, result: JsonValue, latency: JsonValue = None) -> ReplayRecord:
    """Convert one BFCL result into a response line.

    Raises:
        ValueError: the result is not single-turn (a list of turns, or another shape).
    """
    latency_ms = float(latency) * 1000 if isinstance(latency, int | float) else None
    if isinstance(result, str):
        return ReplayRecord(case_id=case_id, output=result, latency_ms=latency_ms)
    if isinstance(result, list):
        calls = [_tool_call(i, item) for i, item in enumerate(result)]
        message: JsonObject = {"role": "assistant", "content": None if calls else ""}
        if calls:
            message["tool_calls"] = list(calls)
        return ReplayRecord(case_id=case_id, message=message, latency_ms=latency_ms)
    raise ValueError(f"unsupported result of type {type(result).__name__}")


def _tool_call(index: int, item: JsonValue) -> JsonValue:
    if not isinstance(item, dict) or len(item) != 1:
        raise ValueError(
            "a function-calling result must be a list of {name: arguments} objects "
            "(lists of turns are multi-turn results, which are out of scope)"
        )
    ((name, arguments),) = item.items()
    # Arguments stay as BFCL recorded them: invalid JSON is the model's error, and
    # extraction reports it (BFCL's decoder fails on it too).
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": name, "arguments": text},
    }


def convert_bfcl_results(path: str | Path) -> list[ReplayRecord]:
    """Read a BFCL result file (JSON Lines) and convert every entry.

    Args:
        path: a BFCL result file, e.g. `BFCL_v4_simple_python_result.json`.

    Returns:
        One response line per entry, in file order.

    Raises:
        InputError: unreadable file, or a line that is not a single-turn BFCL result
            (the message gives the line number).
    """
    source = Path(path)
    text = read_text(source)
    out: list[ReplayRecord] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", path=str(source), location=where) from None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) or "result" not in row:
            raise InputError(
                "not a BFCL result (needs id and result)", path=str(source), location=where
            )
        try:
            out.append(convert_result(row["id"], row["result"], row.get("latency")))
        except ValueError as exc:
            raise InputError(
                str(exc), path=str(source), location=where, case_id=row["id"]
            ) from None
    return out
