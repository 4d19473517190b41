"""Python environments: a class whose public methods are the tools, built with the case's state.

Loading the class runs the suite's code (the user named the suite); a model's call
never does anything but pick one of the class's own public methods by name and pass it
arguments that validated against the tool's schema. Dispatch looks names up statically
in the class's own namespaces (never on the instance, never through `__getattr__`,
never on `object`), so no call reaches a private, dunder or inherited attribute.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import importlib
import importlib.util
import inspect
import json
import sys
import types
import weakref
from collections.abc import Collection
from pathlib import Path
from typing import Any

from toolgrade._core.json_data import JsonObject, JsonValue, clean_text, clean_value
from toolgrade._core.transcript import Exchange
from toolgrade._core.vocab import ToolCall
from toolgrade.environments._scripted import shown_name, unknown_tool
from toolgrade.errors import SuiteError, ToolgradeError
from toolgrade.match import coerce_value, schema_mismatches
from toolgrade.suite import ToolSpec

__all__ = [
    "MAX_ERROR_CHARS",
    "MAX_RESULT_CHARS",
    "PythonToolEnvironment",
    "RENAMED_CLASSES",
    "build_instance",
    "load_python_class",
    "to_json",
]

RENAMED_CLASSES = {
    "toolgrade.conversation._workspace:Workspace": "toolgrade.environments:Workspace",
}
"""Where a built-in environment class that suites name lives now, by the name they use."""

MAX_RESULT_CHARS = 65_536
"""A method's result serialized longer than this reaches the model as cut text."""
MAX_ERROR_CHARS = 500
"""Characters of an exception's message the model sees."""

# Method signatures, read once per function (weakly: classes of finished suites go).
_SIGNATURES: weakref.WeakKeyDictionary[types.FunctionType, inspect.Signature] = (
    weakref.WeakKeyDictionary()
)
# Modules loaded from files next to suites, by resolved path and modification time.
_FILE_MODULES: dict[tuple[str, int], types.ModuleType] = {}


def _split_spec(spec: str) -> tuple[str, str]:
    module, sep, name = spec.partition(":")
    parts = module.split(".")
    if not sep or not name.isidentifier() or not all(p.isidentifier() for p in parts):
        raise SuiteError(f"environment class '{spec}' is not 'module:Class'")
    return module, name


def _module_file(module: str, base_dir: Path) -> Path | None:
    stem = base_dir.joinpath(*module.split("."))
    for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _load_file(path: Path, spec: str) -> types.ModuleType:
    key = (str(path), path.stat().st_mtime_ns)
    cached = _FILE_MODULES.get(key)
    if cached is not None:
        return cached
    # A private name per file and version: two suites' `env.py` never collide, and a
    # module under its own name in sys.modules lets dataclasses and pickling find it.
    digest = hashlib.sha256(f"{key[0]}\0{key[1]}".encode()).hexdigest()[:16]
    name = f"_toolgrade_suite_env_{digest}"
    found = importlib.util.spec_from_file_location(name, path)
    if found is None or found.loader is None:
        raise SuiteError(f"environment class '{spec}': cannot load {path}")
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module
    try:
        found.loader.exec_module(module)
    except Exception as exc:  # the suite's own code: any failure is the suite's
        del sys.modules[name]
        raise SuiteError(
            f"environment class '{spec}': loading {path} raised {_exception_text(exc)}"
        ) from exc
    _FILE_MODULES[key] = module
    return module


def _import_installed(module: str, spec: str, base_dir: Path | None) -> types.ModuleType:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name
        if missing is not None and (module == missing or module.startswith(missing + ".")):
            looked = f" (no {module.replace('.', '/')}.py in {base_dir})" if base_dir else ""
            message = f"environment class '{spec}': no module '{module}'{looked}"
            raise SuiteError(message) from exc
        message = f"environment class '{spec}': importing '{module}' raised {exc!r}"
        raise SuiteError(message) from exc
    except Exception as exc:  # the module's own code failed
        message = f"environment class '{spec}': importing '{module}' raised"
        raise SuiteError(f"{message} {_exception_text(exc)}") from exc


def load_python_class(spec: str, *, base_dir: Path | None) -> type:
    """The class named by `"module:Class"`: from a file next to the suite, else installed.

    `pkg.mod` is first looked for as `base_dir/pkg/mod.py` (or `pkg/mod/__init__.py`),
    loaded under a private module name of its own (cached while the file is unchanged);
    failing that, it is imported as an installed module. Loading runs the module's code.

    Args:
        spec: `module:Class`.
        base_dir: the suite's folder; None looks for installed modules only.

    Returns:
        The class.

    Raises:
        SuiteError: the spec is malformed, the module is missing or fails to load, or
            the attribute is missing or not a class.
    """
    module_name, class_name = _split_spec(RENAMED_CLASSES.get(spec, spec))
    path = _module_file(module_name, base_dir) if base_dir is not None else None
    if path is not None:
        module = _load_file(path, spec)
    else:
        module = _import_installed(module_name, spec, base_dir)
    found = module.__dict__.get(class_name)
    if found is None:
        raise SuiteError(f"environment class '{spec}': module has no '{class_name}'")
    if not isinstance(found, type):
        raise SuiteError(f"environment class '{spec}': '{class_name}' is not a class")
    return found


def build_instance(cls: type, initial_state: JsonObject, *, case_id: str | None = None) -> object:
    """`cls(**initial_state)`, its failures told as suite errors naming class and keys.

    Raises:
        SuiteError: the constructor refused the state or raised.
    """
    try:
        return cls(**initial_state)
    except Exception as exc:  # the suite's own code
        keys = ", ".join(sorted(initial_state)) or "none"
        message = (
            f"environment class '{cls.__module__}.{cls.__qualname__}' cannot be built from"
            f" the initial_state (keys: {keys}): {_exception_text(exc)}"
        )
        raise SuiteError(message, case_id=case_id) from exc


def _exception_text(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception:  # an exception whose __str__ fails
        message = "<unprintable>"
    text = clean_text(f"{type(exc).__name__}: {message}" if message else type(exc).__name__)
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


def _plain(value: object) -> object:
    """A non-JSON value as JSON: sets sorted (their order varies by run), dates ISO."""
    if isinstance(value, set | frozenset):
        try:
            return sorted(value)
        except TypeError:
            return sorted(value, key=repr)
    if isinstance(value, _dt.date | _dt.time):
        return value.isoformat()
    return str(value)


def to_json(value: object, *, limit: int | None = None) -> JsonValue:
    """A Python value as plain JSON (a copy), through a JSON round trip.

    Values JSON cannot hold become JSON-able (sets sorted lists, dates ISO text, others
    their `str`); NaN, cycles and excessive nesting make the whole value its text. With
    `limit`, a value serialized longer than that becomes its cut text with a marker. A
    lone UTF-16 surrogate in a string or key (half an emoji) becomes U+FFFD.

    Examples:
        >>> to_json({"tags": {"b", "a"}, "n": (1, 2)})
        {'tags': ['a', 'b'], 'n': [1, 2]}
        >>> to_json("x" * 20, limit=10)
        '"xxxxxxxx... [truncated: 22 characters in all]'
    """
    try:
        text = json.dumps(value, default=_plain, allow_nan=False, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):
        text = json.dumps(_bounded_text(value, limit or MAX_RESULT_CHARS))
    if limit is not None and len(text) > limit:
        return clean_text(f"{text[: limit - 1]}... [truncated: {len(text)} characters in all]")
    result: JsonValue = json.loads(text)
    return clean_value(result)


def _bounded_text(value: object, limit: int) -> str:
    try:
        text = str(value)
    except Exception:  # a value whose __str__ fails
        text = f"<{type(value).__name__}>"
    return text[:limit]


def _own_attribute(cls: type, name: str) -> object | None:
    """`name` as the class or a base other than `object` defines it (no descriptors run)."""
    for klass in cls.__mro__:
        if klass is object:
            return None
        if name in klass.__dict__:
            found: object = klass.__dict__[name]
            return found
    return None


def _method(cls: type, name: str) -> types.FunctionType | None:
    """The plain function a tool call of this name may reach, or None.

    Only an identifier without a leading underscore, other than `state`, naming a plain
    `def` in the class's own namespaces: never a property, classmethod, staticmethod,
    nested class, builtin or anything of `object` or the metaclass.
    """
    if not name.isidentifier() or name.startswith("_") or name == "state":
        return None
    found = _own_attribute(cls, name)
    return found if isinstance(found, types.FunctionType) else None


class PythonToolEnvironment:
    """A `ToolEnvironment` dispatching calls to the public methods of one instance.

    A call reaches a method only when the tool was offered, the name is one of the
    class's own plain public methods (see `_method`), every argument name is an
    identifier without a leading underscore, and the arguments validate against the
    tool's schema; anything else is `rejected`. A method that raises gives an `error`
    result; the instance keeps whatever the method changed before raising.
    """

    __slots__ = ("_cls", "_instance", "_tool_names")

    def __init__(self, instance: object, *, tool_names: Collection[str] | None = None) -> None:
        """Wrap an instance.

        Args:
            instance: the environment object (built with the case's initial state).
            tool_names: the only names calls may reach (the suite's tools); None: any
                public method.
        """
        self._instance = instance
        self._cls = type(instance)
        self._tool_names = frozenset(tool_names) if tool_names is not None else None

    def execute(self, call: ToolCall, *, call_id: str, tool: ToolSpec | None) -> Exchange:
        """Run one call on the instance (see the class docstring)."""
        name = call.name
        allowed = tool is not None and (self._tool_names is None or name in self._tool_names)
        function = _method(self._cls, name) if allowed else None
        if tool is None or function is None:
            return unknown_tool(call, call_id, note=_why_unknown(tool, name))
        arguments, problem = _checked_arguments(call.arguments, tool.parameters)
        if problem is not None:
            return _rejected(call, call_id, f"invalid arguments: {problem}")
        bound: Any = function.__get__(self._instance, self._cls)
        refused = _binding_problem(function, arguments)
        if refused is not None:
            return _rejected(call, call_id, f"invalid arguments: {refused}")
        try:
            returned = bound(**arguments)
        except (Exception, SystemExit) as exc:  # a tool failing is a result the model sees
            text = _exception_text(exc)
            return Exchange(
                id=call_id,
                call=call,
                result={"error": text},
                outcome="error",
                note=f"{shown_name(name)} raised {text}",
            )
        return Exchange(id=call_id, call=call, result=to_json(returned, limit=MAX_RESULT_CHARS))

    def state(self) -> JsonValue:
        """The instance's `state()` when its class defines one, else its public attributes.

        Raises:
            SuiteError: the class's `state()` raised.
        """
        function = _own_attribute(self._cls, "state")
        if isinstance(function, types.FunctionType):
            try:
                return to_json(function(self._instance))
            except ToolgradeError:
                raise
            except Exception as exc:  # the suite's own code
                name = self._cls.__qualname__
                message = f"environment class '{name}': state() raised {_exception_text(exc)}"
                raise SuiteError(message) from exc
        return to_json(_public_attributes(self._instance))


def _public_attributes(instance: object) -> dict[str, object]:
    try:
        attributes: dict[str, object] = dict(vars(instance))
    except TypeError:  # a class with __slots__ only
        attributes = {}
        for klass in type(instance).__mro__:
            slots = klass.__dict__.get("__slots__", ())
            for slot in (slots,) if isinstance(slots, str) else slots:
                if slot in klass.__dict__ and hasattr(instance, slot):
                    attributes.setdefault(slot, getattr(instance, slot))
    return {k: v for k, v in sorted(attributes.items()) if not k.startswith("_")}


def _binding_problem(function: types.FunctionType, arguments: JsonObject) -> str | None:
    """Why the method cannot take these arguments (its signature refuses them), or None."""
    signature = _SIGNATURES.get(function)
    if signature is None:
        signature = _SIGNATURES[function] = inspect.signature(function)
    try:
        signature.bind(None, **arguments)
    except TypeError as exc:
        return str(exc)
    return None


def _why_unknown(tool: ToolSpec | None, name: str) -> str:
    shown = shown_name(name)
    if tool is None:
        return f"no tool '{shown}' was offered"
    return f"'{shown}' is not a public method of the environment"


def _rejected(call: ToolCall, call_id: str, error: str) -> Exchange:
    return Exchange(id=call_id, call=call, result={"error": error}, outcome="rejected", note=error)


def _checked_arguments(arguments: JsonObject, schema: JsonObject) -> tuple[JsonObject, str | None]:
    """The arguments as the method gets them, or the first reason they are refused.

    Arguments are coerced by the schema first (`"5"` for an integer), as the judge reads
    them, so that a call the judge counts as valid is one the tool accepts.
    """
    for key in arguments:
        if not key.isidentifier() or key.startswith("_"):
            return arguments, f"argument name '{shown_name(key)}' is not allowed"
    coerced = coerce_value(arguments, schema) if schema else arguments
    ready = coerced if isinstance(coerced, dict) else arguments
    try:
        problems = schema_mismatches(ready, schema)
    except SuiteError:
        return arguments, "the tool's parameters are not a valid JSON Schema"
    if problems:
        return arguments, problems[0].describe()
    return ready, None
