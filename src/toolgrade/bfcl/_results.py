"""BFCL result files -> toolgrade responses files (for `replay/` runs and `evaluate`).

BFCL writes one JSON line per entry: `{"id": ..., "result": ..., "latency": ...}`.

Single-turn entries: a prompting-style model's `result` is its raw text (`"[func(a=1)]"`);
a function-calling model's is a list of `{name: "<json arguments>"}`. The first becomes
the response's `output`, the second an OpenAI-style assistant `message` with
`tool_calls`, so that toolgrade extracts and judges them as if it had asked the model.

Multi-turn entries (`multi_turn_*` ids; `result` a list of turns, each a list of steps,
each step the model's raw reply) become one line per step, with its `turn` and `step`,
so that a replay asks for them in BFCL's order and the `bfcl` profile sees every step
BFCL's checker decodes. The rules that keep BFCL's verdict (see docs/bfcl.md):

- A file is function-calling (`fc`) when any step is a `{name: args}` list or object,
  else prompting. In an `fc` file every step becomes an assistant `message` (text steps
  as its `content`), in a prompting file every step an `output`: the `bfcl` profile
  decodes a `message` as BFCL's FC handlers do and an `output` as its prompting decoder.
- A step BFCL cannot decode at all (`null`, a number, a list item that is not an
  object) becomes an empty reply, the original kept in `note`: both drop it.
- A turn BFCL recorded with no step gets one empty reply, which both decoders drop.
- After a turn's last step, when toolgrade reads calls in it (BFCL's inference did
  not, or it stopped at its step limit), an empty reply ends the turn (`note`: "end of
  BFCL's recorded turn"), so that the replay does not run out of steps there.
- An entry whose `result` is not a list (BFCL: `"Error during inference: ..."`) is one
  `error` line (turn 0, step 0): BFCL's `multi_turn:inference_error`.
- A step before a turn's last where toolgrade reads no call (BFCL's decoder did: a
  prompting call with positional arguments, JSON arguments holding `NaN`) ends the
  replayed turn there; its `note` says so, and the turn's later steps are not replayed.
- Turns BFCL never ran (force-terminated inference) get no line: the replay then fails
  with `no recorded response for repeat 0 turn T step 0`, which the `bfcl` profile
  reads as BFCL's `multi_turn:force_terminated`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolgrade._core.files import read_text
from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends import ReplayRecord, extractable
from toolgrade.errors import InputError
from toolgrade.extract import extract_calls

__all__ = [
    "EARLY_END",
    "END_OF_TURN",
    "NO_STEP",
    "BfclResults",
    "Style",
    "convert_bfcl_results",
    "convert_multi_turn_result",
    "convert_result",
    "is_multi_turn",
    "read_bfcl_results",
    "result_style",
]

Style = Literal["fc", "prompting"]
"""How a BFCL model answered: function calls (`fc`) or text (`prompting`)."""

END_OF_TURN = "end of BFCL's recorded turn"
"""The note of the empty reply added after a turn's last step."""
NO_STEP = "BFCL recorded no step in this turn"
"""The note of the empty reply standing for a turn without steps."""
EARLY_END = "toolgrade reads no call here: the replay ends the turn, BFCL went on"
"""The note of a step where toolgrade's replay ends a turn that BFCL's inference went on
with (its later steps are not replayed)."""


def convert_result(case_id: str, result: JsonValue, latency: JsonValue = None) -> ReplayRecord:
    """Convert one single-turn BFCL result into a response line.

    Raises:
        ValueError: the result is not single-turn (a list of turns, or another shape).
    """
    latency_ms = float(latency) * 1000 if isinstance(latency, int | float) else None
    if isinstance(result, str):
        return ReplayRecord(case_id=case_id, output=result, latency_ms=latency_ms)
    if isinstance(result, list):
        calls = [_tool_call(f"call_{i}", item) for i, item in enumerate(result)]
        message: JsonObject = {"role": "assistant", "content": None if calls else ""}
        if calls:
            message["tool_calls"] = list(calls)
        return ReplayRecord(case_id=case_id, message=message, latency_ms=latency_ms)
    raise ValueError(f"unsupported result of type {type(result).__name__}")


def _tool_call(call_id: str, item: JsonValue) -> JsonValue:
    if not isinstance(item, dict) or len(item) != 1:
        raise ValueError(
            "a function-calling result must be a list of {name: arguments} objects "
            "(a list of turns is a multi-turn result: its id must name a multi_turn category)"
        )
    ((name, arguments),) = item.items()
    return _call(call_id, name, arguments)


def _call(call_id: str, name: str, arguments: JsonValue) -> JsonValue:
    # Arguments stay as BFCL recorded them: invalid JSON is the model's error, and
    # extraction reports it (BFCL's decoder fails on it too).
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def is_multi_turn(case_id: str, result: JsonValue) -> bool:
    """Whether a BFCL result line is a multi-turn entry's (by its id, or a list of turns)."""
    if "multi_turn" in case_id:
        return True
    return isinstance(result, list) and bool(result) and all(isinstance(t, list) for t in result)


def _is_calls(step: JsonValue) -> bool:
    """A function-calling step: a `{name: args}` object or a list of them."""
    return isinstance(step, dict) or (isinstance(step, list) and bool(step))


def result_style(results: Sequence[JsonValue]) -> Style:
    """`fc` when any step of any multi-turn result holds calls, else `prompting`."""
    for result in results:
        if isinstance(result, list) and any(
            _is_calls(step) for turn in result if isinstance(turn, list) for step in turn
        ):
            return "fc"
    return "prompting"


def _latency_ms(latency: JsonValue, turn: int, step: int) -> float | None:
    """A step's recorded latency (BFCL: seconds, per turn, per step) in milliseconds."""
    if not isinstance(latency, list) or turn >= len(latency):
        return None
    row = latency[turn]
    if not isinstance(row, list) or step >= len(row):
        return None
    value = row[step]
    return float(value) * 1000 if isinstance(value, int | float) else None


def _fc_step(step: JsonValue, turn: int, index: int) -> tuple[JsonObject, str | None]:
    """A function-calling step as an assistant message, and a note when it was altered."""
    if isinstance(step, str):
        return {"role": "assistant", "content": step}, None
    items = [step] if isinstance(step, dict) else step
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        # BFCL's convert_to_function_call raises on it: the step is dropped.
        return {"role": "assistant", "content": ""}, f"BFCL recorded {json.dumps(step)}"
    calls: list[JsonValue] = []
    for item in items:
        assert isinstance(item, dict)
        for name, arguments in item.items():
            calls.append(_call(f"call_{turn}_{index}_{len(calls)}", name, arguments))
    if not calls:
        return {"role": "assistant", "content": ""}, None
    return {"role": "assistant", "content": None, "tool_calls": calls}, None


def _step_line(
    case_id: str, step: JsonValue, turn: int, index: int, style: Style, latency: JsonValue
) -> ReplayRecord:
    """One recorded step as a line of turn `turn`, step `index`."""
    message: JsonObject | None = None
    output: str | None = None
    note: str | None = None
    if style == "fc":
        message, note = _fc_step(step, turn, index)
    elif isinstance(step, str):
        output = step
    else:  # a prompting model's step is text; anything else fails BFCL's decoder
        output, note = "", f"BFCL recorded {json.dumps(step)}"
    return ReplayRecord(
        case_id=case_id,
        repeat=0,
        turn=turn,
        step=index,
        output=output,
        message=message,
        note=note,
        latency_ms=_latency_ms(latency, turn, index),
    )


def _empty_line(case_id: str, turn: int, index: int, style: Style, note: str) -> ReplayRecord:
    """An empty reply: no call in either decoder, so it ends the turn and changes nothing."""
    message: JsonObject | None = {"role": "assistant", "content": ""} if style == "fc" else None
    return ReplayRecord(
        case_id=case_id,
        repeat=0,
        turn=turn,
        step=index,
        output=None if message else "",
        message=message,
        note=note,
    )


def _reads_calls(line: ReplayRecord) -> bool:
    """Whether a replay reads calls in the line (then it asks for one more step).

    The runner extracts as here (any name: the `bfcl` profile reads every call); the
    default profile reads only the offered tools' calls, so never more than this.
    """
    raw: JsonValue = line.output if line.output is not None else line.message
    if not raw:
        return False
    return bool(extract_calls(extractable(raw), tools=None).calls)


def convert_multi_turn_result(
    case_id: str, result: JsonValue, latency: JsonValue = None, *, style: Style | None = None
) -> list[ReplayRecord]:
    """Convert one multi-turn BFCL result into response lines, one per step.

    Args:
        case_id: the entry's id (`multi_turn_base_0`).
        result: the entry's `result`: a list of turns, each a list of raw steps, or
            the text of an inference error.
        latency: BFCL's per-turn, per-step latencies in seconds, if recorded.
        style: `fc` or `prompting`; None: the entry's own (see `result_style`).

    Returns:
        The lines in turn and step order (see the module's rules).
    """
    if not isinstance(result, list):
        # BFCL writes "Error during inference: ..." here; any non-list is that error.
        text = result if isinstance(result, str) else f"not a list of turns: {json.dumps(result)}"
        return [ReplayRecord(case_id=case_id, repeat=0, turn=0, step=0, error=text or "Error")]
    chosen = style or result_style([result])
    lines: list[ReplayRecord] = []
    for turn, steps in enumerate(result):
        # BFCL iterates whatever a turn is; nothing in a non-list turn decodes to a call.
        recorded = steps if isinstance(steps, list) else []
        if not recorded:
            lines.append(_empty_line(case_id, turn, 0, chosen, NO_STEP))
            continue
        done = [_step_line(case_id, s, turn, i, chosen, latency) for i, s in enumerate(recorded)]
        lines.extend(
            line.model_copy(update={"note": EARLY_END})
            if index < len(done) - 1 and line.note is None and not _reads_calls(line)
            else line
            for index, line in enumerate(done)
        )
        if _reads_calls(lines[-1]):
            lines.append(_empty_line(case_id, turn, len(recorded), chosen, END_OF_TURN))
    return lines


@dataclass(frozen=True, slots=True)
class BfclResults:
    """A converted BFCL result file."""

    lines: list[ReplayRecord]
    """The response lines, in file order."""
    multi_turn: bool
    """Whether the file holds multi-turn entries."""
    style: Style
    """How the model answered: `fc` (function calls) or `prompting` (text)."""

    @property
    def early_ends(self) -> int:
        """Steps where the replay ends a turn that BFCL's inference went on with."""
        return sum(line.note == EARLY_END for line in self.lines)

    def evaluate_command(self, responses: str | Path, suite: str = "SUITE.json") -> str:
        """The command that judges the responses again with the `bfcl` profile.

        A prompting model's multi-turn steps are text the `bfcl` profile decodes only in
        prompt mode, which `evaluate` does not take: `run --model replay/...` does.
        """
        if self.multi_turn and self.style == "prompting":
            return (
                f"toolgrade run --suite {suite} --model replay/{responses} --profile bfcl"
                " --mode prompt"
            )
        return f"toolgrade evaluate --suite {suite} --responses {responses} --profile bfcl"


def read_bfcl_results(path: str | Path, *, style: Style | None = None) -> BfclResults:
    """Read a BFCL result file (JSON Lines) and convert every entry.

    Args:
        path: a BFCL result file, e.g. `BFCL_v4_simple_python_result.json` or
            `BFCL_v4_multi_turn_base_result.json`.
        style: `fc` or `prompting` for the multi-turn entries; None: `fc` when any step
            of the file holds calls.

    Raises:
        InputError: unreadable file, or a line that is not a BFCL result (the message
            gives the line number).
    """
    source = Path(path)
    rows: list[tuple[int, JsonObject]] = []
    for number, line in enumerate(read_text(source).splitlines(), start=1):
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
        rows.append((number, row))
    multi = [r["result"] for _, r in rows if is_multi_turn(str(r["id"]), r["result"])]
    if multi:
        chosen = style or result_style(multi)
    else:
        calls = any(isinstance(r["result"], list) for _, r in rows)
        chosen = style or ("fc" if calls else "prompting")
    out: list[ReplayRecord] = []
    for number, row in rows:
        case_id, result = str(row["id"]), row["result"]
        try:
            if is_multi_turn(case_id, result):
                latency = row.get("latency")
                out.extend(convert_multi_turn_result(case_id, result, latency, style=chosen))
            else:
                out.append(convert_result(case_id, result, row.get("latency")))
        except ValueError as exc:
            raise InputError(
                str(exc), path=str(source), location=f"line {number}", case_id=case_id
            ) from None
    return BfclResults(out, multi_turn=bool(multi), style=chosen)


def convert_bfcl_results(path: str | Path) -> list[ReplayRecord]:
    """Read a BFCL result file (JSON Lines) and convert every entry.

    Args:
        path: a BFCL result file, single-turn (`BFCL_v4_simple_python_result.json`: one
            line per entry) or multi-turn (`BFCL_v4_multi_turn_base_result.json`: one
            line per step, with its `turn` and `step`).

    Returns:
        The response lines, in file order.

    Raises:
        InputError: unreadable file, or a line that is not a BFCL result (the message
            gives the line number).
    """
    return read_bfcl_results(path).lines
