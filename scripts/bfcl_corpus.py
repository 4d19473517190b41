"""Build the BFCL agreement corpus: ground truths and systematic mutations of them.

Standard library only, so that scripts/bfcl_verdicts.py can run it inside the bfcl-eval
venv. Each group is one BFCL entry (its function docs and possible answer, or a small
hand-written entry in BFCL's format) with model outputs in BFCL's result shapes:
prompting style (Python call text, as BFCL's prompting models answer) and
function-calling style (a list of `{name: "<json arguments>"}`). Java and JavaScript
entries are answered in function-calling style only, with source-text values.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

Call = tuple[str, dict[str, Any]]
Output = dict[str, Any]

SAMPLES = {
    "simple_python": 30,
    "simple_java": 20,
    "simple_javascript": 15,
    "multiple": 20,
    "parallel": 20,
    "parallel_multiple": 20,
    "live_simple": 20,
    "live_multiple": 25,
    "live_parallel": 10,
    "live_parallel_multiple": 10,
    "irrelevance": 15,
    "live_irrelevance": 15,
    "live_relevance": 10,
}
"""How many entries of each category the corpus samples."""

DEFAULT_EXTRA = 6
"""Entries per category added because a documented default can be passed in them."""

LANGUAGES = {"simple_java": "java", "simple_javascript": "javascript"}
NO_ANSWER = ("irrelevance", "live_irrelevance", "live_relevance")
NO_CALL_TEXT = "I'm sorry, none of the available functions can answer this question."
GARBAGE_TEXT = "<<<tool>>> ]] {not: a call"
FC_STYLE_MUTATIONS = frozenset(
    {"ground_truth", "wrong_type", "int_float", "missing_required", "reordered", "no_call"}
)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def load_groups(data: Path, seed: int = 8) -> list[dict[str, Any]]:
    """Sample entries of every category from BFCL's data folder (plus synthetic ones)."""
    rng = random.Random(seed)
    groups: list[dict[str, Any]] = []
    for category, count in SAMPLES.items():
        entries = read_jsonl(data / f"BFCL_v4_{category}.json")
        answers: dict[str, Any] = {}
        if category not in NO_ANSWER:
            answer_rows = read_jsonl(data / "possible_answer" / f"BFCL_v4_{category}.json")
            answers = {row["id"]: row["ground_truth"] for row in answer_rows}
        chosen = rng.sample(entries, min(count, len(entries)))
        if answers:
            # Entries where passing a documented default is possible are rare in a
            # random sample; add a few so that BFCL's behaviour on them is recorded.
            ids = {e["id"] for e in chosen}
            extra = [e for e in entries if e["id"] not in ids and _has_default(e, answers)]
            chosen += rng.sample(extra, min(DEFAULT_EXTRA, len(extra)))
        for entry in sorted(chosen, key=_order):
            groups.append(_group(category, entry, answers.get(entry["id"])))
    groups.extend(synthetic_groups())
    return groups


def _group(category: str, entry: dict[str, Any], answer: Any) -> dict[str, Any]:
    return {
        "id": entry["id"],
        "category": category,
        "question": entry["question"],
        "functions": entry["function"],
        "possible_answer": answer,
    }


def _has_default(entry: dict[str, Any], answers: dict[str, Any]) -> bool:
    group = _group("", entry, answers[entry["id"]])
    return m_documented_default(group, ground_truth(group["possible_answer"])) is not None


def _order(entry: dict[str, Any]) -> tuple[int, str]:
    tail = entry["id"].rsplit("_", 1)[-1].split("-")[0]
    return (int(tail) if tail.isdigit() else 0, entry["id"])


def synthetic_groups() -> list[dict[str, Any]]:
    """Entries where BFCL's greedy parallel matching fails a correct set of calls."""
    weather = {
        "name": "get_weather",
        "description": "Weather in a city.",
        "parameters": {
            "type": "dict",
            "properties": {
                "city": {"type": "string", "description": "City name."},
                "unit": {"type": "string", "description": "Unit.", "default": "celsius"},
            },
            "required": ["city"],
        },
    }
    answer = [
        {"get_weather": {"city": ["Paris"], "unit": ["", "celsius", "fahrenheit"]}},
        {"get_weather": {"city": ["Paris"], "unit": ["fahrenheit"]}},
    ]
    shift = {
        "name": "shift",
        "description": "Shift a value.",
        "parameters": {
            "type": "dict",
            "properties": {"by": {"type": "integer", "description": "Amount."}},
            "required": ["by"],
        },
    }
    shift_answer = [{"shift": {"by": [1, 2]}}, {"shift": {"by": [1]}}]
    first = _synthetic("parallel", "synthetic_greedy_0", weather, answer, "Paris weather, twice.")
    first["traps"] = [
        [
            ["get_weather", {"city": "Paris", "unit": "fahrenheit"}],
            ["get_weather", {"city": "Paris"}],
        ]
    ]
    second = _synthetic("parallel", "synthetic_greedy_1", shift, shift_answer, "Shift by 1 or 2.")
    second["traps"] = [[["shift", {"by": 1}], ["shift", {"by": 2}]]]
    three = [
        {"shift": {"by": [1, 2, 3]}},
        {"shift": {"by": [1, 2]}},
        {"shift": {"by": [1]}},
    ]
    third = _synthetic("parallel_multiple", "synthetic_greedy_2", shift, three, "Shift thrice.")
    third["traps"] = [
        [["shift", {"by": 1}], ["shift", {"by": 2}], ["shift", {"by": 3}]],
        [["shift", {"by": 2}], ["shift", {"by": 1}], ["shift", {"by": 3}]],
    ]
    return [first, second, third]


def _synthetic(
    category: str, entry_id: str, function: dict[str, Any], answer: Any, text: str
) -> dict[str, Any]:
    return {
        "id": entry_id,
        "category": category,
        "question": [[{"role": "user", "content": text}]],
        "functions": [function],
        "possible_answer": answer,
    }


# ---------------------------------------------------------------- ground truth


def first_value(options: list[Any]) -> tuple[bool, Any]:
    """The first acceptable value of an argument (False when only omission is listed)."""
    for option in options:
        if option != "":
            return True, _concrete(option)
    return False, None


def _concrete(option: Any) -> Any:
    if isinstance(option, dict):
        out = {}
        for key, values in option.items():
            if isinstance(values, list):
                found, value = first_value(values)
                if found:
                    out[key] = value
            else:
                out[key] = values
        return out
    if isinstance(option, list) and option and all(isinstance(x, dict) for x in option):
        return [_concrete(x) for x in option]
    return copy.deepcopy(option)


def ground_truth(answer: list[dict[str, Any]]) -> list[Call]:
    calls: list[Call] = []
    for call in answer:
        ((name, params),) = call.items()
        args = {}
        for param, options in params.items():
            found, value = first_value(options)
            if found:
                args[param] = value
        calls.append((name, args))
    return calls


def doc_of(group: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in group["functions"] if f["name"] == name)


def props_of(group: dict[str, Any], name: str) -> dict[str, Any]:
    doc = next((f for f in group["functions"] if f["name"] == name), None)
    return {} if doc is None else doc["parameters"].get("properties", {})


# ---------------------------------------------------------------- mutations

Mutation = Callable[[dict[str, Any], list[Call]], list[Call] | None]


def _with_arg(calls: list[Call], index: int, key: str, value: Any) -> list[Call]:
    out = copy.deepcopy(calls)
    out[index][1][key] = value
    return out


def _without_arg(calls: list[Call], index: int, key: str) -> list[Call]:
    out = copy.deepcopy(calls)
    del out[index][1][key]
    return out


def _first_arg(
    group: dict[str, Any], calls: list[Call], test: Callable[[Any, dict[str, Any]], bool]
):
    for index, (name, args) in enumerate(calls):
        props = props_of(group, name)
        for key, value in args.items():
            if test(value, props.get(key, {})):
                return index, key, value
    return None


def m_wrong_value(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    found = _first_arg(group, calls, lambda v, s: True)
    if found is None:
        return None
    index, key, value = found
    if isinstance(value, bool):
        new: Any = not value
    elif isinstance(value, int):
        new = value + 7
    elif isinstance(value, float):
        new = value + 1.25
    elif isinstance(value, str):
        new = "Zanzibar" if value.lower() != "zanzibar" else "Oslo"
    elif isinstance(value, list):
        new = [*value, value[0]] if value else ["extra"]
    elif isinstance(value, dict):
        new = {**value, "unexpected_key": "x"}
    else:
        new = "something else"
    return _with_arg(calls, index, key, new)


def m_wrong_type(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    found = _first_arg(group, calls, lambda v, s: True)
    if found is None:
        return None
    index, key, value = found
    if isinstance(value, bool):
        new: Any = 1 if value else 0
    elif isinstance(value, int | float):
        new = str(value)
    elif isinstance(value, str):
        new = 12345
    else:
        new = "a string instead"
    return _with_arg(calls, index, key, new)


def m_int_float(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    def numeric(v: Any, s: dict[str, Any]) -> bool:
        if isinstance(v, bool):
            return False
        if isinstance(v, int | float):
            return True
        return isinstance(v, list) and bool(v) and all(_is_number(x) for x in v)

    found = _first_arg(group, calls, numeric)
    if found is None:
        return None
    index, key, value = found
    return _with_arg(calls, index, key, _flip_number(value))


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _flip_number(value: Any) -> Any:
    if isinstance(value, list):
        return [_flip_number(x) for x in value]
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    return float(value)


def m_bool_string(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    found = _first_arg(group, calls, lambda v, s: isinstance(v, bool))
    if found is not None:
        index, key, value = found
        return _with_arg(calls, index, key, "true" if value else "false")
    found = _first_arg(group, calls, lambda v, s: v in ("true", "false", "True", "False"))
    if found is None:
        return None
    index, key, value = found
    return _with_arg(calls, index, key, value.lower() == "true")


def m_missing_required(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    for index, (name, args) in enumerate(calls):
        for key in doc_of(group, name)["parameters"].get("required", []):
            if key in args:
                return _without_arg(calls, index, key)
    return None


def m_missing_optional(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    for index, (name, args) in enumerate(calls):
        required = set(doc_of(group, name)["parameters"].get("required", []))
        for key in args:
            if key not in required:
                return _without_arg(calls, index, key)
    return None


def m_extra_arg(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    if not calls:
        return None
    return _with_arg(calls, 0, "unrequested_option", "yes")


def m_documented_default(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    for index, (name, args) in enumerate(calls):
        answer = _answer_for(group, index)
        for key, spec in props_of(group, name).items():
            options = answer.get(key, [])
            default = spec.get("default")
            listed = any(type(o) is type(default) and o == default for o in options)
            if key not in args and default is not None and "" in options and not listed:
                return _with_arg(calls, index, key, spec["default"])
    return None


def _answer_for(group: dict[str, Any], index: int) -> dict[str, Any]:
    ((_, params),) = group["possible_answer"][index].items()
    return params


def m_string_format(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    found = _first_arg(group, calls, lambda v, s: isinstance(v, str) and " " in v.strip())
    if found is None:
        return None
    index, key, value = found
    return _with_arg(calls, index, key, value.upper().replace(" ", "_"))


def m_wrong_function(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    if not calls:
        return None
    others = [f["name"] for f in group["functions"] if f["name"] != calls[0][0]]
    out = copy.deepcopy(calls)
    out[0] = (others[0] if others else calls[0][0] + "_v2", out[0][1])
    return out


def m_reordered(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    return list(reversed(calls)) if len(calls) > 1 else None


def m_dropped(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    return calls[:-1] if len(calls) > 1 else None


def m_duplicated(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    return [*calls, copy.deepcopy(calls[0])] if calls else None


def m_alternative_value(group: dict[str, Any], calls: list[Call]) -> list[Call] | None:
    for index, (_, args) in enumerate(calls):
        for key, options in _answer_for(group, index).items():
            values = [o for o in options if o != ""]
            if key in args and len(values) > 1:
                return _with_arg(calls, index, key, _concrete(values[1]))
    return None


MUTATIONS: dict[str, Mutation] = {
    "ground_truth": lambda g, c: c,
    "alternative_value": m_alternative_value,
    "wrong_value": m_wrong_value,
    "wrong_type": m_wrong_type,
    "int_float": m_int_float,
    "bool_string": m_bool_string,
    "missing_required": m_missing_required,
    "missing_optional": m_missing_optional,
    "extra_arg": m_extra_arg,
    "documented_default": m_documented_default,
    "string_format": m_string_format,
    "wrong_function": m_wrong_function,
    "reordered": m_reordered,
    "dropped": m_dropped,
    "duplicated": m_duplicated,
}


# ---------------------------------------------------------------- rendering


def prompting_text(calls: list[Call]) -> str:
    body = ", ".join(
        f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})" for name, args in calls
    )
    return f"[{body}]"


def fc_result(calls: list[Call], *, underscore: bool = True) -> list[dict[str, str]]:
    return [
        {(name.replace(".", "_") if underscore else name): json.dumps(args)} for name, args in calls
    ]


def source_calls(group: dict[str, Any], calls: list[Call], language: str) -> list[Call]:
    """Java/JavaScript: every value as the source text a model would send."""
    out: list[Call] = []
    for name, args in calls:
        props = props_of(group, name)
        rendered = {}
        for key, value in args.items():
            spec = props.get(key, {})
            rendered[key] = render_source(value, spec.get("type", "any"), spec, language)
        out.append((name, rendered))
    return out


def render_source(value: Any, bfcl_type: str, spec: dict[str, Any], language: str) -> Any:
    if not isinstance(value, bool | int | float | str | list | dict):
        return value
    if isinstance(value, str) and bfcl_type not in (
        "Array",
        "ArrayList",
        "array",
        "HashMap",
        "dict",
    ):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        if language == "java" and bfcl_type == "long":
            return f"{value}L"
        if language == "java" and bfcl_type == "float":
            return f"{value}f"
        return str(value)
    if isinstance(value, list):
        items = ", ".join(_source_item(v) for v in value)
        if language == "java" and bfcl_type == "ArrayList":
            return f"new ArrayList<>(Arrays.asList({items}))"
        if language == "java":
            item_type = spec.get("items", {}).get("type", "Object")
            return f"new {item_type}[]{{{items}}}"
        return f"[{items}]"
    if isinstance(value, dict):
        if language == "java":
            puts = " ".join(f'put("{k}", {_source_item(v)});' for k, v in value.items())
            return f"new HashMap<String, String>() {{{{ {puts} }}}}"
        return "{" + ", ".join(f"'{k}': {_source_item(v)}" for k, v in value.items()) + "}"
    return value


def _source_item(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def outputs_for(group: dict[str, Any]) -> list[Output]:
    """Every model output of one group, with its mutation and style."""
    if group["possible_answer"] is None:
        return _relevance_outputs(group)
    language = LANGUAGES.get(group["category"], "python")
    truth = ground_truth(group["possible_answer"])
    out: list[Output] = []
    for mutation, make in MUTATIONS.items():
        calls = make(group, truth)
        if calls is None:
            continue
        if language != "python":
            out.append(_fc(mutation, source_calls(group, calls, language)))
            if mutation == "wrong_type":
                out.append(_fc("raw_json_value", calls))
            continue
        out.append({"mutation": mutation, "style": "prompting", "output": prompting_text(calls)})
        if mutation in FC_STYLE_MUTATIONS:
            out.append(_fc(mutation, calls))
    for trap in group.get("traps", []):
        calls = [(name, args) for name, args in trap]
        out.append(
            {"mutation": "greedy_trap", "style": "prompting", "output": prompting_text(calls)}
        )
        out.append(_fc("greedy_trap", calls))
    out.append({"mutation": "no_call", "style": "prompting", "output": NO_CALL_TEXT})
    out.append({"mutation": "no_call", "style": "fc", "output": []})
    out.append({"mutation": "garbage", "style": "prompting", "output": GARBAGE_TEXT})
    out.append({"mutation": "garbage", "style": "fc", "output": [{truth[0][0]: "{not json"}]})
    return out


def _fc(mutation: str, calls: list[Call]) -> Output:
    return {"mutation": mutation, "style": "fc", "output": fc_result(calls)}


def _relevance_outputs(group: dict[str, Any]) -> list[Output]:
    function = group["functions"][0]
    props = function["parameters"].get("properties", {})
    args = {k: _placeholder(v.get("type")) for k, v in props.items()}
    call: list[Call] = [(function["name"], args)]
    unlisted: list[Call] = [("lookup_anything", {"query": "x"})]
    return [
        {"mutation": "unlisted_call", "style": "prompting", "output": prompting_text(unlisted)},
        {"mutation": "unlisted_call", "style": "fc", "output": fc_result(unlisted)},
        {"mutation": "a_call", "style": "prompting", "output": prompting_text(call)},
        {"mutation": "a_call", "style": "fc", "output": fc_result(call)},
        {"mutation": "no_call", "style": "prompting", "output": NO_CALL_TEXT},
        {"mutation": "no_call", "style": "fc", "output": []},
        {"mutation": "empty_list", "style": "prompting", "output": "[]"},
        {"mutation": "garbage", "style": "prompting", "output": GARBAGE_TEXT},
        {"mutation": "garbage", "style": "fc", "output": [{function["name"]: "{not json"}]},
    ]


def _placeholder(bfcl_type: Any) -> Any:
    return {"integer": 1, "float": 1.5, "boolean": True, "array": [], "dict": {}}.get(
        bfcl_type, "x"
    )
