"""BFCL's AST checker, ported rule for rule, on plain Python values.

Reference: `bfcl_eval/eval_checker/ast_eval/ast_checker.py` (bfcl-eval 2026.3.23). Each
function below names the BFCL function it reproduces. The rules, BFCL's quirks included,
are documented in docs/bfcl.md. Values compare with Python's own `==` and `type()`, as
in BFCL: `True == 1`, `1 == 1.0`, but `type(True) is not int`. Its answers (`BfclCheck`)
are in `_check_result`, its dict checkers in `_dicts`. This is the general path: the `bfcl` profile
judges with the same rules compiled once per case (`_compiled`), which hands every value
it does not evidently accept to `check_param` here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from toolgrade.bfcl._answer import (
    BfclAnswer,
    BfclCall,
    Options,
    answer_type,
    contains,
    standardize_string,
    std,
)
from toolgrade.bfcl._check_result import OK, OK_VARIABLE, BfclCheck, ErrorType, fail, valid_pairs
from toolgrade.bfcl._convert import (
    JAVA_TYPES,
    JS_TYPES,
    ConversionUnsupported,
    java_convert,
    js_convert,
)
from toolgrade.bfcl._dicts import dict_check, list_dict_check

__all__ = [
    "PYTHON_TYPES",
    "BfclCall",
    "BfclFunction",
    "BfclParam",
    "ErrorType",
    "Language",
    "BfclCheck",
    "check_calls",
    "check_param",
    "check_value",
    "doc_for",
    "fail",
    "standardize_string",
    "valid_pairs",
]

Language = Literal["python", "java", "javascript"]

PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
"""BFCL's `PYTHON_TYPE_MAPPING` (note `any` is checked as a string)."""

_NESTED_PYTHON = ("array", "tuple")
_NESTED_CONVERSION = ("Array", "ArrayList", "array")
_SPECIAL = (dict, list, str)  # the types `_special_check` checks values of


@dataclass(frozen=True, slots=True)
class BfclParam:
    """One parameter of a BFCL function doc: its BFCL type and its items' type."""

    type: str
    items: str | None = None


@dataclass(frozen=True, slots=True)
class BfclFunction:
    """A BFCL function doc, as far as the checker reads it."""

    name: str
    params: Mapping[str, BfclParam]
    required: tuple[str, ...]


def check_calls(
    functions: Sequence[BfclFunction],
    expected: Sequence[BfclAnswer],
    actual: Sequence[BfclCall],
    *,
    language: Language,
) -> BfclCheck:
    """BFCL's `ast_checker` for one case: count, then each expected call in turn.

    Several expected calls use BFCL's `parallel_function_checker_no_order`: each
    expected call, in order, takes the first unused actual call it accepts (greedy).
    One expected call needs exactly one actual call (`simple_function_checker`).
    """
    if len(actual) != len(expected):
        return fail("wrong_count", "Wrong number of functions.")
    used: list[int] = []
    for answer in expected:
        doc = doc_for(functions, answer.name)
        if doc is None:
            return fail("missing_doc", f"no function doc for {answer.name!r}")
        found = OK
        for j, call in enumerate(actual):
            if j in used:
                continue
            found = check_one(doc, call, answer, language=language)
            if found.valid:
                used.append(j)
                break
        if not found.valid:
            return found
    return valid_pairs(tuple(enumerate(used)))


def doc_for(functions: Sequence[BfclFunction], name: str) -> BfclFunction | None:
    """The first doc of that name (BFCL looks the doc up by name)."""
    for function in functions:
        if function.name == name:
            return function
    return None


def check_one(
    doc: BfclFunction,
    call: BfclCall,
    answer: BfclAnswer,
    *,
    language: Language,
) -> BfclCheck:
    """BFCL's `simple_function_checker`: one call against one possible answer."""
    # Models whose API forbids dots answer `uber_ride` for `uber.ride`; BFCL renames
    # per model, toolgrade accepts both spellings.
    if call.name != doc.name and call.name != doc.name.replace(".", "_"):
        return fail("wrong_func_name", f"Function name {doc.name!r} not found in model output.")
    args = call.arguments
    for param in doc.required:
        if param not in args:
            return fail("missing_required", f"Missing required parameter: {param!r}.", param)
    for param, value in args.items():
        spec = doc.params.get(param)
        options = answer.options.get(param)
        if spec is None or options is None:
            return fail("unexpected_param", f"Unexpected parameter: {param!r}.", param)
        found = check_param(param, value, spec, options, language)
        if not found.valid:
            return found
    for param, options in answer.options.items():
        if param not in args and not options.optional:
            return fail(
                "missing_optional",
                f"Optional parameter {param!r} not provided and not marked as optional.",
                param,
            )
    return OK


def check_param(
    param: str, value: object, spec: BfclParam, options: Options, language: Language
) -> BfclCheck:
    nested: type | None = None
    if language == "python":
        expected = PYTHON_TYPES.get(spec.type)
        if expected is None:
            return fail("unknown_type", f"BFCL has no Python type {spec.type!r}", param)
        if spec.type in _NESTED_PYTHON and spec.items is not None:
            nested = PYTHON_TYPES.get(spec.items)
        if spec.type == "float" and type(value) is int:
            # BFCL lets Python promote an int to float (but not inside lists).
            value = float(value)
    else:
        converted = _convert(param, value, spec, language)
        if isinstance(converted, BfclCheck):
            return converted
        value, expected, nested = converted
    return check_value(param, value, expected, nested, options)


def check_value(
    param: str, value: object, expected: type, nested: type | None, options: Options
) -> BfclCheck:
    """`check_param` after its conversion: BFCL's type check, then its value checks.

    `value` is converted already (Java and JavaScript source text), `expected` and
    `nested` are the doc's type and item type as `check_param` looks them up.
    """
    values = options.values
    answer = options.answer_type
    if nested is None and type(value) is expected:  # `_type_check`'s commonest case
        typed = OK_VARIABLE if answer is not None and answer is not expected else OK
    else:
        typed = _type_check(param, value, values, expected, nested, answer=answer)
    if not typed.valid:
        return typed
    if typed.param != "variable" and expected in _SPECIAL:
        special = _special_check(param, value, options, expected, nested)
        if special is not None:
            return special
    if not contains(values, value):
        return fail(
            "value_error:others",
            f"Invalid value for parameter {param!r}: {value!r}. Expected one of {options.shown}.",
            param,
        )
    return OK


def _convert(
    param: str, value: object, spec: BfclParam, language: Language
) -> BfclCheck | tuple[object, type, type | None]:
    table = JAVA_TYPES if language == "java" else JS_TYPES
    convert = java_convert if language == "java" else js_convert
    expected = table.get(spec.type)
    if expected is None:
        return fail("unknown_type", f"BFCL has no {language} type {spec.type!r}", param)
    if type(value) is not str:
        return fail(
            "type_error:java" if language == "java" else "type_error:js",
            f"Incorrect type for parameter {param!r}. Expected type String, "
            f"got {type(value).__name__}. Parameter value: {value!r}.",
            param,
        )
    nested: type | None = None
    try:
        if spec.type in _NESTED_CONVERSION:
            nested = table.get(spec.items or "")
            if nested is None:
                return fail("unknown_type", f"no items type for {param!r}", param)
            value = convert(value, spec.type, spec.items)
        else:
            value = convert(value, spec.type)
    except ConversionUnsupported as exc:
        return fail("conversion_unsupported", str(exc), param)
    return value, expected, nested


def _type_check(
    param: str,
    value: object,
    options: Sequence[object],
    expected: type,
    nested: type | None,
    *,
    answer: type | None,
) -> BfclCheck:
    """BFCL's `type_checker` (`answer`: `answer_type(options)`); param `variable`: is_variable."""
    # A possible answer of another type than the doc's is a variable name (a string).
    ok = OK_VARIABLE if answer is not None and answer is not expected else OK
    nested_failed = False
    if type(value) is expected:
        if nested is None:
            return ok
        for option in options:
            if (
                type(option) is list
                and isinstance(value, list)
                and not _items_typed(value, nested, answer_type(option))
            ):
                continue
            return ok
        nested_failed = True
    if answer is not None and type(value) is answer:
        if nested_failed:
            return fail("type_error:nested", f"Nested type checking failed for {param!r}.", param)
        return OK_VARIABLE
    return fail(
        "type_error:simple",
        f"Incorrect type for parameter {param!r}. Expected type {expected.__name__}, "
        f"got {type(value).__name__}. Parameter value: {value!r}.",
        param,
    )


def _items_typed(value: list[object], nested: type, inner: type | None) -> bool:
    """Whether BFCL's `type_checker` passes every item against a list option.

    Its check of one item (with no nested type, against the option's answer type
    `inner`) passes an item of the nested type, or of `inner` (a variable name).
    """
    for item in value:
        kind = type(item)
        if kind is not nested and (inner is None or kind is not inner):
            return False
    return True


def _special_check(
    param: str, value: object, options: Options, expected: type, nested: type | None
) -> BfclCheck | None:
    values = options.values
    if expected is dict and isinstance(value, dict):
        return dict_check(param, value, values)
    if expected is list and nested is dict and isinstance(value, list):
        return list_dict_check(param, value, values)
    if expected is str and isinstance(value, str):
        if standardize_string(value) in options.strings:
            return OK
        return fail(
            "value_error:string",
            f"Invalid value for parameter {param!r}: {value!r}. Expected one of {options.shown}.",
            param,
        )
    if expected is list and isinstance(value, list):
        # `std` of each item, inline (the failing Java lists have many).
        given = [standardize_string(v) if type(v) is str else v for v in value]
        # A string answer is compared as the list of its characters, as BFCL does.
        if given in options.lists or any(
            given == [std(x) for x in o] for o in values if isinstance(o, str)
        ):
            return OK
        return fail(
            "value_error:list/tuple",
            f"Invalid value for parameter {param!r}: {value!r}. Expected one of {options.shown}.",
            param,
        )
    return None
