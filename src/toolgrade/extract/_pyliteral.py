"""Python call syntax read with `ast`, literals only: the core of the pythonic formats.

Model output is never evaluated. The text is parsed with `ast.parse` and only these nodes
are turned into values: constants (str, int, float, bool, None), `-`/`+` on numbers,
lists, tuples (as lists), dicts with string keys, and the bare names `true`, `false`,
`null` (models trained on JSON write them). Anything else (names, calls, operators,
comprehensions, sets, bytes, complex numbers, non-finite floats) is not a literal.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
from dataclasses import dataclass, field

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.extract._brackets import bracket_depth, matching_bracket
from toolgrade.extract._common import MAX_DEPTH, MAX_INT_DIGITS
from toolgrade.extract._pysource import quiet_source
from toolgrade.extract._pysource import segments as _segments

__all__ = [
    "MAX_ELEMENTS",
    "CallBlock",
    "NotLiteral",
    "bracket_depth",
    "literal_value",
    "matching_bracket",
    "parse_python_literal",
    "read_call_block",
]

_NAMED_LITERALS: dict[str, JsonValue] = {"true": True, "false": False, "null": None}
_RESERVED_SUFFIX = "__toolgrade_kw"
_STRUCTURAL = ",([{=:"
MAX_ELEMENTS = 4000
"""Python call text with more values, items and strings than this is refused unparsed."""
_INT_BOUND = 10**MAX_INT_DIGITS
"""Integers at least this large (more than `MAX_INT_DIGITS` digits) are not literals.

Hexadecimal, octal and binary literals have no conversion limit in Python, and a huge
one could not be written back as JSON text."""
_TOO_LONG = f"an integer with more than {MAX_INT_DIGITS} digits"


class NotLiteral(ValueError):
    """A node that is not a plain literal (the message says which)."""


def literal_value(node: ast.AST, depth: int = 0) -> JsonValue:
    """Convert a literal AST node to a JSON value.

    Raises:
        NotLiteral: the node is not a literal, or nests deeper than `MAX_DEPTH`.
    """
    if depth > MAX_DEPTH:
        raise NotLiteral(f"value nested deeper than {MAX_DEPTH} levels")
    if isinstance(node, ast.Constant):
        return _constant(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = node.operand
        number = operand.value if isinstance(operand, ast.Constant) else None
        if isinstance(number, int | float) and not isinstance(number, bool):
            return _constant(-number if isinstance(node.op, ast.USub) else number)
        raise NotLiteral("a sign applies only to a number")
    if isinstance(node, ast.List | ast.Tuple):
        return [literal_value(item, depth + 1) for item in node.elts]
    if isinstance(node, ast.Dict):
        return _dict_value(node, depth)
    if isinstance(node, ast.Name) and node.id in _NAMED_LITERALS:
        return _NAMED_LITERALS[node.id]
    raise NotLiteral(f"not a literal: {_describe(node)}")


def _constant(value: object) -> JsonValue:
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, int):
        if -_INT_BOUND < value < _INT_BOUND:
            return value
        raise NotLiteral(_TOO_LONG)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotLiteral("a number too large for JSON")
        return value
    raise NotLiteral(f"not a JSON literal: {type(value).__name__}")


def _dict_value(node: ast.Dict, depth: int) -> JsonObject:
    result: JsonObject = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            raise NotLiteral("dictionary keys must be strings")
        result[key.value] = literal_value(value, depth + 1)
    return result


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"the name {node.id!r}"
    if isinstance(node, ast.Call):
        return "a nested call"
    return f"a {type(node).__name__} expression"


def parse_python_literal(text: str) -> JsonValue:
    """Parse one Python literal (e.g. `{'k': [1, None]}`) without evaluating anything.

    Raises:
        NotLiteral: the text is not a single literal, or is nested too deeply.
    """
    if bracket_depth(text) > MAX_DEPTH:
        raise NotLiteral(f"value nested deeper than {MAX_DEPTH} levels")
    if _too_many_elements(text):
        raise NotLiteral(f"more than {MAX_ELEMENTS} syntax elements")
    try:
        # Rewritten so that the parser never warns: the value is the same under any
        # warnings filter (see `quiet_source`).
        tree = ast.parse(quiet_source(text.strip()), mode="eval")
    except SyntaxError as exc:
        raise NotLiteral(_syntax_problem(exc, "not Python literal syntax")) from None
    except (ValueError, RecursionError, MemoryError):
        raise NotLiteral("not Python literal syntax") from None
    return literal_value(tree.body)


@dataclass(slots=True)
class CallBlock:
    """What `read_call_block` found in a piece of Python call syntax."""

    calls: list[tuple[str, JsonObject]] = field(default_factory=list)
    """Well-formed calls: name and keyword arguments."""
    problems: list[str] = field(default_factory=list)
    """Calls that are call-shaped but not acceptable (positional or non-literal args)."""
    syntax_error: str = ""
    """Why the text does not parse as Python at all (empty when it parses)."""
    shaped: bool = False
    """True when the text is call syntax (a call or a list of calls)."""
    keyword_calls: int = 0
    """How many calls pass arguments by keyword (evidence the text is meant as calls)."""


def read_call_block(text: str) -> CallBlock:
    """Read `[f(a=1), g(b="x")]`, `f(a=1)`, or calls one per line, with literal arguments.

    Never raises: syntax errors, excessive nesting and non-literal arguments are reported
    in the returned `CallBlock`.
    """
    block = CallBlock()
    if bracket_depth(text) > MAX_DEPTH:
        block.syntax_error = f"nested deeper than {MAX_DEPTH} levels"
        return block
    if _too_many_elements(text):
        block.syntax_error = f"more than {MAX_ELEMENTS} syntax elements"
        return block
    tree = _parse_module(quiet_source(text.strip()))
    if isinstance(tree, str):
        block.syntax_error = tree
        return block
    nodes = _call_nodes(tree)
    if nodes is None:
        return block
    block.shaped = True
    for node in nodes:
        _read_call(node, block)
    return block


def _parse_module(text: str) -> ast.Module | str:
    """Parse text, retrying with repairs models need; return the tree or the syntax error."""
    first_error = ""
    for candidate in _repairs(text):
        try:
            return ast.parse(candidate, mode="exec")
        except SyntaxError as exc:
            first_error = first_error or _syntax_problem(exc, f"invalid call syntax: {exc.msg}")
        except (ValueError, RecursionError, MemoryError):
            return "input Python's parser refuses"
    return first_error


def _syntax_problem(exc: SyntaxError, default: str) -> str:
    """The parser's complaint; its integer-size refusal said as extraction says it."""
    # Python's own message names `sys.set_int_max_str_digits()`, advice for programmers.
    return _TOO_LONG if "integer string conversion" in str(exc.msg) else default


def _repairs(text: str) -> list[str]:
    """The text, then with raw newlines in strings escaped, then with keyword names renamed."""
    candidates = [text]
    escaped = _escape_raw_newlines(text)
    for candidate in (escaped, _rename_keyword_args(escaped)):
        if candidate != candidates[-1]:
            candidates.append(candidate)
    return candidates


_RAW_CONTROL = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_raw_newlines(text: str) -> str:
    """Escape raw newlines and tabs inside one-line strings (models emit them)."""
    if not any(ch in text for ch in _RAW_CONTROL):
        return text
    out: list[str] = []
    for code, string in _segments(text):
        out.append(code)
        if string[:3] in _TRIPLE_QUOTES:
            out.append(string)
        else:
            out.append("".join(_RAW_CONTROL.get(ch, ch) for ch in string))
    return "".join(out)


_TRIPLE_QUOTES = ("'" * 3, '"' * 3)


def _too_many_elements(text: str) -> bool:
    """True when the text holds more than `MAX_ELEMENTS` values, items or strings.

    `ast.parse` costs about 30 us per call element, so hostile input with a huge number of
    them is refused before parsing. Punctuation inside strings does not count: a long
    code argument is one element.
    """
    rough = sum(text.count(ch) for ch in _STRUCTURAL) + text.count("'") + text.count('"')
    if rough <= MAX_ELEMENTS:
        return False
    segments = _segments(text, limit=MAX_ELEMENTS)
    code = sum(c.count(ch) for c, _ in segments for ch in _STRUCTURAL)
    return code + len(segments) > MAX_ELEMENTS


_KEYWORD_ARG = re.compile(r"([(,]\s*)([A-Za-z_]\w*)(\s*=(?!=))")


def _rename_keyword_args(text: str) -> str:
    """Rename Python keywords used as argument names (`from=`), which tools allow."""

    def rename(match: re.Match[str]) -> str:
        name = match.group(2)
        if keyword.iskeyword(name):
            name += _RESERVED_SUFFIX
        return match.group(1) + name + match.group(3)

    return "".join(_KEYWORD_ARG.sub(rename, code) + string for code, string in _segments(text))


def _call_nodes(tree: ast.Module) -> list[ast.Call] | None:
    """The calls of `[f(), g()]`, `f()` or one call per line; None if it is not all calls."""
    calls: list[ast.Call] = []
    for statement in tree.body:
        if not isinstance(statement, ast.Expr):
            return None
        value = statement.value
        if isinstance(value, ast.Call):
            calls.append(_unwrap_print(value))
        elif isinstance(value, ast.List | ast.Tuple) and value.elts:
            if not all(isinstance(e, ast.Call) for e in value.elts):
                return None
            calls.extend(_unwrap_print(e) for e in value.elts if isinstance(e, ast.Call))
        else:
            return None
    return calls or None


def _unwrap_print(call: ast.Call) -> ast.Call:
    """A call wrapped in a print call is the call: Gemma's tool_code examples do that."""
    if (
        isinstance(call.func, ast.Name)
        and call.func.id == "print"
        and len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Call)
    ):
        return call.args[0]
    return call


def _call_name(func: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    parts.append(func.id)
    return ".".join(reversed(parts))


def _read_call(node: ast.Call, block: CallBlock) -> None:
    name = _call_name(node.func)
    if name is None:
        block.problems.append("a call whose function is not a plain name")
        return
    if node.keywords:
        block.keyword_calls += 1
    if node.args:
        block.problems.append(f"call of '{name}' passes positional arguments")
        return
    arguments: JsonObject = {}
    for kw in node.keywords:
        if kw.arg is None:
            block.problems.append(f"call of '{name}' unpacks **arguments")
            return
        key = kw.arg.removesuffix(_RESERVED_SUFFIX)
        if key in arguments:
            block.problems.append(f"call of '{name}' repeats argument '{key}'")
            return
        try:
            arguments[key] = literal_value(kw.value)
        except NotLiteral as exc:
            block.problems.append(f"argument '{key}' of '{name}': {exc}")
            return
    block.calls.append((name, arguments))
