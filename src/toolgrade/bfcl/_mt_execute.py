"""BFCL multi-turn execution, reproduced without `eval`: one side's instances and calls.

bfcl-eval 2026.3.23 (`execute_multi_turn_func_call`, multi_turn_utils.py) keeps one
instance per involved class for each side of an entry (the model's, the ground
truth's), built as `cls()` then `_load_scenario(deepcopy(config), long_context=...)`
(not for the stateless `MathAPI`). For each call string it:

1. prefixes every `name(` that is a public method of an instance with the instance's
   global name (`{model}_eval_{id}_{Class}_instance`, `-./:` made `_`) — by regex over
   the whole text, so a `name(` inside a string argument is rewritten too;
2. refuses `kill`, `exit`, `quit`, `remove`, `unlink`, `popen`, `Popen`, `run`;
3. `eval`s the text and turns the value into a string (`str` as is, a `dict` as
   `json.dumps`, else `str(...)`); an exception is `"Error during execution: {e}"`.

`BfclSide` does the same, but step 3 parses the text with `ast` and interprets it:
literals, containers, operators on them, the instances' public methods (nested calls
included) and a few pure builtins (`len`, `str`, ...). Any other name fails as
Python's `eval` would (`name 'x' is not defined`); the few constructs BFCL's `eval`
would also accept (attribute access on values, comprehensions, other module globals)
are an error result here. No model text is ever executed.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from toolgrade.bfcl._mt_apis import bfcl_api_classes, new_instance
from toolgrade.bfcl._mt_decode import DecodeError, literal_arithmetic

__all__ = ["BfclSide", "instance_name", "result_string"]

_FORBIDDEN = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
_METHOD_NAME = re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")
_PURE_BUILTINS = frozenset(
    {"abs", "bool", "dict", "float", "int", "len", "list", "max", "min", "round", "sorted"}
    | {"str", "sum", "tuple"}
)
"""Builtins a call string may use, as under BFCL's `eval`: pure, on plain values."""


@cache
def _public_methods(cls: type) -> tuple[str, ...]:
    """The public method names BFCL maps for an instance of `cls` (getmembers order)."""
    instance = cls()
    return tuple(
        n for n, _ in inspect.getmembers(instance, predicate=inspect.ismethod) if n[0] != "_"
    )


def instance_name(model_name: str, entry_id: str, class_name: str) -> str:
    """The global name BFCL gives an instance (`model_name` already has `_eval`)."""
    return re.sub(r"[-./:]", "_", f"{model_name}_{entry_id}_{class_name}_instance")


def result_string(value: object) -> str:
    """A method's return value as BFCL records it."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except Exception:
            return str(value)
    return str(value)


_KEYWORD = re.compile(r"\b([A-Za-z_]\w*)\s*=(?!=)")


def _repeated_keyword(text: str, tree: ast.Expression) -> bool:
    """Whether a call in the tree names a keyword argument twice.

    The text first: no `name=` written twice (the usual case) needs no walk of the tree.
    """
    written = _KEYWORD.findall(text)
    if len(written) == len(set(written)):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.keywords) > 1:
            names = [k.arg for k in node.keywords if k.arg is not None]
            if len(names) != len(set(names)):
                return True
    return False


class _Unsupported(Exception):
    """An expression the interpreter does not run (BFCL's `eval` might)."""


class BfclSide:
    """One side's instances of one entry, and the calls executed on them.

    Args:
        involved_classes: the entry's classes, in order.
        initial_config: the entry's `initial_config` (class name -> scenario).
        long_context: load the scenarios with BFCL's long-context extensions.
        model_name: the name BFCL's instance names start with (`_eval` is added).
        entry_id: the BFCL entry id.

    Raises:
        ConfigError: bfcl-eval (or mpmath) is not installed.
        ValueError: an unknown class name.
    """

    def __init__(
        self,
        involved_classes: Sequence[str],
        initial_config: Mapping[str, Any],
        *,
        long_context: bool,
        model_name: str,
        entry_id: str,
    ) -> None:
        self.instances: dict[str, object] = {}
        """Class name -> instance, in `involved_classes` order."""
        self._by_name: dict[str, object] = {}
        mapping: dict[str, str] = {}
        classes = bfcl_api_classes()
        for class_name in involved_classes:
            cls = classes.get(class_name)
            if cls is None:
                raise ValueError(f"unknown BFCL API class {class_name!r}")
            instance = new_instance(cls, class_name, initial_config, long_context=long_context)
            name = instance_name(f"{model_name}_eval", entry_id, class_name)
            self.instances[class_name] = instance
            self._by_name[name] = instance
            for method in _public_methods(cls):
                mapping[method] = name
        self._mapping = mapping

    def execute(self, calls: Sequence[str]) -> list[str]:
        """Execute call strings in order; one result string each."""
        return [self._one(call) for call in calls]

    def _one(self, text: str) -> str:
        mapping = self._mapping

        def prefix(match: re.Match[str]) -> str:
            name = match.group(1)
            return f"{mapping[name]}.{name}" if name in mapping else name

        processed = _METHOD_NAME.sub(prefix, text)
        try:
            head = processed.split("(")[0] if "(" in processed else processed
            if "." in head:
                head = head.split(".")[1]
            if head in _FORBIDDEN:
                raise Exception(f"Function call {head} is not allowed.")
            # The same parser as `eval`'s: the same syntax errors, word for word; a
            # keyword given twice is the compiler's error, raised before anything runs.
            tree = ast.parse(processed, filename="<string>", mode="eval")
            if _repeated_keyword(processed, tree):
                compile(tree, "<string>", "eval")
            return result_string(self._eval(tree.body))
        except Exception as exc:
            return f"Error during execution: {exc}"

    def _eval(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Attribute):
            owner = self._eval(node.value)
            if node.attr.startswith("_") or not any(owner is i for i in self._by_name.values()):
                raise _Unsupported(f"attribute access is not supported: {ast.unparse(node)}")
            return getattr(owner, node.attr)
        if isinstance(node, ast.List):
            return [self._eval(e) for e in node.elts]
        if isinstance(node, ast.Tuple):
            return tuple(self._eval(e) for e in node.elts)
        if isinstance(node, ast.Set):
            return {self._eval(e) for e in node.elts}
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            for key, value in zip(node.keys, node.values, strict=True):
                if key is None:
                    raise _Unsupported("dict unpacking is not supported")
                out[self._eval(key)] = self._eval(value)
            return out
        if isinstance(node, ast.Constant | ast.UnaryOp | ast.BinOp):
            return self._arithmetic(node)
        raise _Unsupported(f"unsupported expression: {ast.unparse(node)}")

    def _arithmetic(self, node: ast.Constant | ast.UnaryOp | ast.BinOp) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        try:
            return literal_arithmetic(node)
        except DecodeError:
            pass
        # Operands that are not literals (a nested call): evaluate them, then operate.
        if isinstance(node, ast.UnaryOp):
            operand = ast.Constant(self._eval(node.operand))
            return literal_arithmetic(ast.UnaryOp(op=node.op, operand=operand))
        left, right = ast.Constant(self._eval(node.left)), ast.Constant(self._eval(node.right))
        try:
            return literal_arithmetic(ast.BinOp(left=left, op=node.op, right=right))
        except DecodeError as exc:
            raise _Unsupported(str(exc)) from None

    def _name(self, name: str) -> Any:
        found = self._by_name.get(name)
        if found is not None:
            return found
        if name in _PURE_BUILTINS:
            return getattr(builtins, name)
        raise NameError(f"name {name!r} is not defined")

    def _call(self, node: ast.Call) -> Any:
        func: Callable[..., Any] = self._eval(node.func)
        if not callable(func):
            raise TypeError(f"'{type(func).__name__}' object is not callable")
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise _Unsupported("argument unpacking is not supported")
        args = [self._eval(a) for a in node.args]
        kwargs = {k.arg: self._eval(k.value) for k in node.keywords if k.arg is not None}
        return func(*args, **kwargs)
