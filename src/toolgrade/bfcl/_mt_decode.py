"""BFCL multi-turn step decoding: one raw model step -> the call strings BFCL executes.

bfcl-eval 2026.3.23 turns every recorded step into Python call strings before it runs
them (`handler.decode_execute`), and drops a step whose decoding raises or gives no
call. Both of its decoders are reproduced here, with their quirks, without `eval`:

- function calling (`convert_to_function_call`): a list (or one dict) of
  `{name: arguments}`, the arguments a JSON string or a dict, rendered as
  `name(k=repr(v),...)`; a text step fails (dropped), and so does non-object JSON;
- prompting (`default_decode_execute_prompting`): the text, stripped of backticks,
  newlines and spaces and wrapped in `[...]`, parsed with `ast`; only keyword arguments
  are kept (positional ones vanish), a bare name becomes its string, any unary operator
  negates its operand, a nested call with keywords is rendered back as a call (run
  later), one without becomes its source text, and arithmetic (`BinOp`) is evaluated —
  here by `literal_arithmetic`, which does numbers, strings, lists and tuples only
  (BFCL's `eval` would also run names and calls inside it; such a step is dropped here).

A toolgrade step (`Step.raw_response`, an OpenAI-style assistant message) is first put
in the form BFCL's handlers record (`bfcl_step`).
"""

from __future__ import annotations

import ast
import json
import operator
from collections.abc import Callable
from typing import Any

from toolgrade._core.json_data import JsonValue
from toolgrade.extract import quiet_source

__all__ = ["DecodeError", "bfcl_step", "decode_step", "literal_arithmetic"]


class DecodeError(ValueError):
    """A step BFCL's decoder fails on (the step is dropped)."""


_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_MAX_SIZE = 100_000
"""The largest string/list, and the most bits of an integer, arithmetic may build."""


def bfcl_step(raw: JsonValue, *, prompt_mode: bool) -> object:
    """A toolgrade step's raw output in the form BFCL's handler would have recorded.

    An assistant message (a dict with `role`) becomes, in native mode, its calls as
    `[{name: arguments}]` (BFCL's OpenAI handler) or its text when it has none; in prompt
    mode, its text. Anything else (BFCL's own recorded forms) is returned as it is.
    """
    if not (isinstance(raw, dict) and "role" in raw):
        return raw
    content = raw.get("content")
    if prompt_mode:
        return content
    calls = raw.get("tool_calls")
    if not isinstance(calls, list) or not calls:
        return content
    out: list[object] = []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            return content
        out.append({function.get("name"): function.get("arguments")})
    return out


def decode_step(step: object, *, prompt_mode: bool) -> list[str]:
    """The call strings BFCL decodes one recorded step to.

    Raises:
        DecodeError: BFCL's decoder raises on this step (the step is dropped).
    """
    try:
        return _decode_prompting(step) if prompt_mode else _decode_fc(step)
    except DecodeError:
        raise
    except Exception as exc:  # whatever BFCL's decoder would have raised on
        raise DecodeError(f"{type(exc).__name__}: {exc}") from None


def _decode_fc(step: Any) -> list[str]:
    """`convert_to_function_call` (model_handler/utils.py), on values, not text."""
    calls = [step] if type(step) is dict else step
    out: list[str] = []
    for call in calls:  # a non-iterable raises, as in BFCL
        for key, value in call.items():
            args = json.loads(value) if type(value) is str else value
            rendered = ",".join(f"{k}={v!r}" for k, v in args.items())
            out.append(f"{key}({rendered})")
    return out


def _decode_prompting(step: Any) -> list[str]:
    """`default_decode_execute_prompting` + `decoded_output_to_execution_list`."""
    text = step.strip("`\n ")  # None raises, as in BFCL
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    parsed: Any = ast.parse(quiet_source(text.strip().strip("'")), mode="eval")  # as BFCL: any node
    decoded: list[dict[str, Any]] = []
    if isinstance(parsed.body, ast.Call):
        decoded.append(_resolve_call(parsed.body))
    else:
        for elem in parsed.body.elts:
            if not isinstance(elem, ast.Call):
                raise DecodeError("not a call")
            decoded.append(_resolve_call(elem))
    out: list[str] = []
    for function_call in decoded:
        for key, value in function_call.items():
            rendered = ", ".join(f"{k}={_nested(v)}" for k, v in value.items())
            out.append(f"{key}({rendered})")
    return out


def _resolve_call(elem: ast.Call) -> dict[str, Any]:
    """`resolve_ast_call`: `{dotted name: {keyword: value}}`; positional args are lost."""
    parts: list[str] = []
    func: ast.expr = elem.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    args: dict[str | None, Any] = {}
    for keyword in elem.keywords:
        args[keyword.arg] = _resolve(keyword.value)
    return {".".join(reversed(parts)): args}


def _resolve(value: ast.expr) -> Any:
    """`resolve_ast_by_type`, with `literal_arithmetic` for BFCL's `eval` of a BinOp."""
    if isinstance(value, ast.Constant):
        return "..." if value.value is Ellipsis else value.value
    if isinstance(value, ast.UnaryOp):  # BFCL negates whatever the operator
        return -value.operand.value  # type: ignore[attr-defined]
    if isinstance(value, ast.List):
        return [_resolve(v) for v in value.elts]
    if isinstance(value, ast.Dict):
        if any(k is None for k in value.keys):
            raise DecodeError("Unsupported AST type: <class 'NoneType'>")
        return {_resolve(k): _resolve(v) for k, v in zip(value.keys, value.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(value, ast.BinOp):
        return literal_arithmetic(value)
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Call):
        return ast.unparse(value) if not value.keywords else _resolve_call(value)
    if isinstance(value, ast.Tuple):
        return tuple(_resolve(v) for v in value.elts)
    if isinstance(value, ast.Subscript):  # `value.body` never exists: BFCL's fallback
        return ast.unparse(value.value) + "[" + ast.unparse(value.slice) + "]"
    raise DecodeError(f"Unsupported AST type: {type(value)}")  # Lambda fails in BFCL too


def _nested(value: Any) -> str:
    """`parse_nested_value`: a dict of dicts is a call (its first key), else `repr`."""
    if isinstance(value, dict):
        if all(isinstance(v, dict) for v in value.values()):
            name = list(value)[0]  # noqa: RUF015 - an empty dict raises IndexError, as in BFCL
            args = value[name]
            return f"{name}({', '.join(f'{k}={_nested(v)}' for k, v in args.items())})"
        return "{" + ", ".join(f"'{k}': {_nested(v)}" for k, v in value.items()) + "}"
    return repr(value)


def literal_arithmetic(node: ast.expr) -> Any:
    """The value Python's `eval` gives an arithmetic expression of literals.

    Numbers, strings, bytes, lists, tuples, sets and dicts of them, unary and binary
    operators; sizes are capped (`DecodeError` beyond). Names, calls and anything
    else raise `DecodeError`, as do the operations Python rejects.

    Examples:
        >>> literal_arithmetic(ast.parse("2 + 3 * 4", mode="eval").body)
        14
        >>> literal_arithmetic(ast.parse("'ab' * 2", mode="eval").body)
        'abab'
    """
    try:
        return _arith(node)
    except DecodeError:
        raise
    except Exception as exc:  # TypeError, ZeroDivisionError, OverflowError, ...
        raise DecodeError(f"{type(exc).__name__}: {exc}") from None


def _arith(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List):
        return [_arith(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_arith(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return {_arith(e) for e in node.elts}
    if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
        return {_arith(k): _arith(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _sized(_UNARY[type(node.op)](_arith(node.operand)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _arith(node.left), _arith(node.right)
        _guard(node.op, left, right)
        return _sized(_BINOPS[type(node.op)](left, right))
    raise DecodeError(f"not literal arithmetic: {ast.unparse(node)}")


def _guard(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse operations whose result would be huge before computing them."""
    if (
        isinstance(op, ast.Pow)
        and _is_int(left)
        and _is_int(right)
        and right > 0
        and abs(left) > 1
        and right * abs(left).bit_length() > _MAX_SIZE
    ):
        raise DecodeError("power too large")
    if isinstance(op, ast.LShift) and _is_int(right) and right > _MAX_SIZE:
        raise DecodeError("shift too large")
    if isinstance(op, ast.Mult):
        for seq, times in ((left, right), (right, left)):
            sized = isinstance(seq, str | bytes | list | tuple) and _is_int(times)
            if sized and len(seq) * max(times, 0) > _MAX_SIZE:
                raise DecodeError("repetition too large")


def _is_int(value: object) -> bool:
    return isinstance(value, int)


def _sized(value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > _MAX_SIZE:
        raise DecodeError("integer too large")
    return value
