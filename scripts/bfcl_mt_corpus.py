"""Build the BFCL multi-turn agreement corpus: ground-truth replays and perturbations.

Standard library only (scripts/bfcl_verdicts.py runs it in the bfcl-eval venv). For
each multi-turn entry it makes model `result`s in BFCL's recorded shapes — per turn, a
list of steps; a function-calling step is `[{name: "<json arguments>"}]`, a prompting
step is the text — and the final text step every real turn ends with. Every entry gets
both ground-truth replays; a deterministic choice (seeded by the id) of perturbations
is added. Ground-truth calls come with their positional arguments bound to parameter
names by `bind` (BFCL's method signatures, given by the caller).
"""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

Call = tuple[str, dict[str, Any]]
Binder = Callable[[str], Call]

CATEGORIES = ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param")
CATEGORIES += ("multi_turn_long_context",)
PERTURBATIONS_PER_ENTRY = 8
DONE = "Done."
READ_ONLY = {
    "GorillaFileSystem": ("pwd", {}),
    "MathAPI": ("add", {"a": 1, "b": 2}),
    "MessageAPI": ("list_users", {}),
    "TwitterAPI": ("posting_get_login_status", {}),
    "TicketAPI": ("ticket_get_login_status", {}),
    "TradingBot": ("get_current_time", {}),
    "TravelAPI": ("travel_get_login_status", {}),
    "VehicleControlAPI": ("check_tire_pressure", {}),
}
"""A call per class that changes no state (pure reads)."""


def read_entries(data: Path) -> list[dict[str, Any]]:
    """Every multi-turn entry (id, classes, config, ground truth), in category order."""
    out: list[dict[str, Any]] = []
    for category in CATEGORIES:
        name = f"BFCL_v4_{category}.json"
        truths = {e["id"]: e["ground_truth"] for e in _jsonl(data / "possible_answer" / name)}
        for entry in _jsonl(data / name):
            out.append(
                {
                    "id": entry["id"],
                    "involved_classes": entry["involved_classes"],
                    "initial_config": entry.get("initial_config", {}),
                    "ground_truth": truths[entry["id"]],
                }
            )
    return out


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def fc_step(calls: list[Call], *, as_dict: bool = False) -> list[dict[str, Any]]:
    """One function-calling step (OpenAI's recorded form, or Claude's dict arguments)."""
    return [{n: (dict(a) if as_dict else json.dumps(a)) for n, a in [c]} for c in calls]


def prompt_text(calls: list[Call]) -> str:
    """One prompting step: `[name(k=v, ...), ...]`."""
    return _bracketed(_call_text(n, a) for n, a in calls)


def _bracketed(texts: Iterable[str]) -> str:
    return "[" + ", ".join(texts) + "]"


def _call_text(name: str, args: dict[str, Any], written: dict[str, str] | None = None) -> str:
    """`name(k=v, ...)`, an argument in `written` as its text there."""
    texts = written or {}
    return f"{name}(" + ", ".join(f"{k}={texts.get(k, repr(v))}" for k, v in args.items()) + ")"


def _turn(calls: list[Call], style: str) -> list[Any]:
    if not calls:
        return [DONE]
    return [fc_step(calls) if style == "fc" else prompt_text(calls), DONE]


def _result(turns: list[list[Call]], style: str) -> list[list[Any]]:
    return [_turn(t, style) for t in turns]


def variants(entry: dict[str, Any], bind: Binder) -> list[dict[str, Any]]:
    """The corpus items of one entry: `{"variant", "style", "result"}`."""
    turns = [[bind(text) for text in turn] for turn in entry["ground_truth"]]
    rng = random.Random(entry["id"])
    out = [
        {"variant": "gt_fc", "style": "fc", "result": _result(turns, "fc")},
        {"variant": "gt_prompt", "style": "prompt", "result": _result(turns, "prompt")},
    ]
    makers = list(PERTURBATIONS)
    rng.shuffle(makers)
    made = 0
    for name in makers:
        if made >= PERTURBATIONS_PER_ENTRY:
            break
        item = PERTURBATIONS[name](entry, turns, rng)
        if item is None:
            continue
        style, result = item
        out.append({"variant": name, "style": style, "result": result})
        made += 1
    return out


def _called(turns: list[list[Call]]) -> list[int]:
    return [i for i, t in enumerate(turns) if t]


def _call_spots(turns: list[list[Call]]) -> list[tuple[int, int]]:
    """(turn, call) of every call."""
    return [(i, j) for i, t in enumerate(turns) for j in range(len(t))]


def _arg_spots(
    turns: list[list[Call]], kind: Callable[[Any], bool] = lambda v: True
) -> list[tuple[int, int, str]]:
    """(turn, call, argument) of every argument whose value is of the kind."""
    return [
        (i, j, k)
        for i, t in enumerate(turns)
        for j, (_, a) in enumerate(t)
        for k, v in a.items()
        if kind(v)
    ]


def _copy(turns: list[list[Call]]) -> list[list[Call]]:
    return [[(n, dict(a)) for n, a in t] for t in turns]


def _any_style(turns: list[list[Call]], rng: random.Random) -> tuple[str, list[list[Any]]]:
    """The turns as a result in a style chosen at random."""
    style = rng.choice(("fc", "prompt"))
    return style, _result(turns, style)


def _rewritten(
    turns: list[list[Call]], spot: tuple[int, int, str], write: Callable[[Any], str]
) -> list[list[Any]]:
    """The prompting result with one argument's value written as `write(value)`."""
    i, j, k = spot
    result = _result(turns, "prompt")
    texts = [_call_text(n, a) for n, a in turns[i]]
    name, args = turns[i][j]
    texts[j] = _call_text(name, args, {k: write(args[k])})
    result[i][0] = _bracketed(texts)
    return result


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, list):
        return value[:-1] if value else ["x"]
    return None


def p_wrong_value(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    spots = _arg_spots(turns)
    if not spots:
        return None
    i, j, k = rng.choice(spots)
    out = _copy(turns)
    out[i][j][1][k] = _changed(out[i][j][1][k])
    return _any_style(out, rng)


def p_missing_call(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    spots = _call_spots(turns)
    if not spots:
        return None
    i, j = rng.choice(spots)
    out = _copy(turns)
    del out[i][j]
    return _any_style(out, rng)


def p_duplicated_call(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    """A ground-truth call made twice: harmless for reads, a change for writes."""
    spots = _call_spots(turns)
    if not spots:
        return None
    i, j = rng.choice(spots)
    out = _copy(turns)
    out[i].insert(j, out[i][j])
    return _any_style(out, rng)


def p_extra_read(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    i = rng.randrange(len(turns))
    name, args = READ_ONLY[rng.choice(entry["involved_classes"])]
    out = _copy(turns)
    out[i].append((name, dict(args)))
    return _any_style(out, rng)


def p_swapped_turns(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    pairs = [i for i in range(len(turns) - 1) if turns[i] != turns[i + 1]]
    if not pairs:
        return None
    i = rng.choice(pairs)
    out = _copy(turns)
    out[i], out[i + 1] = out[i + 1], out[i]
    return "fc", _result(out, "fc")


def p_empty_turn(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    called = _called(turns)
    if not called:
        return None
    out = _copy(turns)
    out[rng.choice(called)] = []
    return _any_style(out, rng)


def p_text_steps(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    """Chat, empty and null steps around the calls (dropped by the decoders)."""
    style, result = _any_style(turns, rng)
    for steps in result:
        steps.insert(0, rng.choice(["Let me check.", "", None, []]))
    return style, result


def p_unknown_name(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    spots = _call_spots(turns)
    if not spots:
        return None
    i, j = rng.choice(spots)
    out = _copy(turns)
    name, args = out[i][j]
    out[i][j] = (rng.choice([name + "_v2", "remove", "len"]), args)
    return _any_style(out, rng)


def p_nested_call(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    """A string argument written as `str(object=...)` (prompting: a nested call, run)."""
    spots = _arg_spots(turns, lambda v: isinstance(v, str))
    if not spots:
        return None
    return "prompt", _rewritten(turns, rng.choice(spots), lambda v: f"str(object={v!r})")


def p_name_in_string(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    spots = _arg_spots(turns, lambda v: isinstance(v, str))
    if not spots:
        return None
    i, j, k = rng.choice(spots)
    out = _copy(turns)
    out[i][j][1][k] += rng.choice([" ls()", " then pwd( )", " see cd(x)"])
    return _any_style(out, rng)


def p_fewer_turns(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    return "fc", _result(turns, "fc")[:-1]


def p_extra_turn(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    return "fc", [*_result(turns, "fc"), [DONE]]


def p_inference_error(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    return "fc", "Error during inference: Request timed out."


def p_split_steps(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    """One call per step, some with dict arguments (Claude's recorded form)."""
    result = []
    for t in turns:
        steps: list[Any] = [fc_step([c], as_dict=rng.random() < 0.5) for c in t]
        result.append([*steps, DONE])
    return "fc", result


def p_positional(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    """Prompting text with the ground truth's own text (positional arguments are lost)."""
    texts = entry["ground_truth"]
    if not any(_has_positional(t) for turn in texts for t in turn):
        return None
    return "prompt", [[_bracketed(t), DONE] if t else [DONE] for t in texts]


def _has_positional(text: str) -> bool:
    node = ast.parse(text, mode="eval").body
    return isinstance(node, ast.Call) and bool(node.args)


def p_arithmetic(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    """A number argument as `(n - 1) + 1` or `+n` (BFCL negates any unary operand)."""
    spots = _arg_spots(turns, lambda v: isinstance(v, int | float) and not isinstance(v, bool))
    if not spots:
        return None
    spot = rng.choice(spots)
    form = rng.choice(["({v!r} - 1) + 1", "+{v!r}", "{v!r} * 2 / 2"])
    return "prompt", _rewritten(turns, spot, lambda v: form.format(v=v))


def p_bad_json(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    called = _called(turns)
    if not called:
        return None
    result = _result(turns, "fc")
    i = rng.choice(called)
    step = result[i][0]
    name = next(iter(step[0]))
    step[0] = {name: rng.choice(["{bad json", "[1, 2]", '{"a": NaN}'])}
    return "fc", result


def p_early_calls(entry: dict[str, Any], turns: list[list[Call]], rng: random.Random) -> Any:
    """A turn without ground truth makes the next turn's calls (miss_func/miss_param)."""
    spots = [i for i in range(len(turns) - 1) if not turns[i] and turns[i + 1]]
    if not spots:
        return None
    i = rng.choice(spots)
    out = _copy(turns)
    out[i] = list(out[i + 1])
    if rng.random() < 0.5:
        out[i + 1] = []
    return _any_style(out, rng)


PERTURBATIONS: dict[str, Callable[[dict[str, Any], list[list[Call]], random.Random], Any]] = {
    "wrong_value": p_wrong_value,
    "missing_call": p_missing_call,
    "duplicated_call": p_duplicated_call,
    "extra_read": p_extra_read,
    "swapped_turns": p_swapped_turns,
    "empty_turn": p_empty_turn,
    "text_steps": p_text_steps,
    "unknown_name": p_unknown_name,
    "nested_call": p_nested_call,
    "name_in_string": p_name_in_string,
    "fewer_turns": p_fewer_turns,
    "extra_turn": p_extra_turn,
    "inference_error": p_inference_error,
    "split_steps": p_split_steps,
    "positional": p_positional,
    "arithmetic": p_arithmetic,
    "bad_json": p_bad_json,
    "early_calls": p_early_calls,
}
"""Perturbation name -> maker (None when it does not apply to the entry)."""
