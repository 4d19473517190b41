"""BFCL's multi-turn API classes as one toolgrade Python environment: `BfclApis`.

BFCL's multi-turn categories run the model's calls on instances of eight API classes
(a file system, a trading bot, a travel agency...) that ship in the `bfcl-eval`
distribution. They are imported from the installed `bfcl_eval` package (never copied
into toolgrade). One conversation involves one or two of them, built exactly as BFCL
builds them: `cls()`, then `_load_scenario(copy.deepcopy(config), long_context=...)`
unless the class is stateless (`MathAPI`).

toolgrade's Python environment builds one object with `Class(**initial_state)` and
dispatches a call to a plain public `def` found in that class's namespace. So
`BfclApis` takes `{"involved_classes", "initial_config", "long_context"}` as its
initial state, and every public method of the eight classes is a plain `def` on it,
generated when this module is imported, delegating to the instance of the class that
owns the method. A method of a class the conversation does not involve raises an error
the model sees. Exceptions of BFCL's methods propagate (the environment reports them as
error results). Nothing private of BFCL's objects is reachable: only the generated
delegates are public.

Importing this module without `bfcl_eval` (or `mpmath`) installed succeeds; building a
`BfclApis` then raises a `ConfigError` saying how to install them.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import inspect
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.errors import ConfigError

__all__ = [
    "BACKEND_PACKAGE",
    "CLASS_MODULES",
    "ENVIRONMENT_CLASS",
    "STATELESS_CLASSES",
    "BfclApis",
    "bfcl_api_classes",
    "is_long_context",
    "method_owner",
    "new_instance",
]

BACKEND_PACKAGE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
"""The package holding BFCL's API classes (its `__init__`s are empty: importing is safe)."""

CLASS_MODULES: Mapping[str, str] = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}
"""The multi-turn API classes by name, with their module (BFCL's `CLASS_FILE_PATH_MAPPING`)."""

STATELESS_CLASSES: frozenset[str] = frozenset({"MathAPI"})
"""Classes BFCL builds without loading a scenario."""
ENVIRONMENT_CLASS = "toolgrade.bfcl._mt_apis:BfclApis"
"""The Python environment class of conversations imported from BFCL (`BfclApis`)."""

_FILE_SYSTEM = f"{BACKEND_PACKAGE}.gorilla_file_system"
_INSTALL = "pip install --no-deps bfcl-eval==2026.3.23 mpmath"


def _load_classes() -> dict[str, type]:
    """Import BFCL's API classes, or raise a ConfigError saying how to install them."""
    if importlib.util.find_spec("bfcl_eval") is None:
        raise ConfigError(f"BFCL's multi-turn API classes need bfcl-eval: {_INSTALL}")
    classes: dict[str, type] = {}
    for name, module_name in CLASS_MODULES.items():
        try:
            module = importlib.import_module(f"{BACKEND_PACKAGE}.{module_name}")
        except Exception as exc:  # a missing mpmath, or the module's own code failing
            raise ConfigError(f"cannot import BFCL's {name} ({exc!r}): {_INSTALL}") from None
        found = getattr(module, name, None)
        if not isinstance(found, type):
            raise ConfigError(f"the installed bfcl_eval has no class {name}: {_INSTALL}")
        classes[name] = found
    return classes


def _public_methods(cls: type) -> dict[str, types.FunctionType]:
    """The methods BFCL offers of a class: its plain public `def`s (bound on an instance)."""
    out: dict[str, types.FunctionType] = {}
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        found = inspect.getattr_static(cls, name)
        if isinstance(found, types.FunctionType):
            out[name] = found
    return out


try:
    _CLASSES: dict[str, type] = _load_classes()
    _PROBLEM: ConfigError | None = None
except ConfigError as _exc:
    _CLASSES = {}
    _PROBLEM = _exc

_OWNERS: dict[str, tuple[str, ...]] = {}
"""Method name -> the classes defining it, in `CLASS_MODULES` order."""
_ORIGINALS: dict[str, types.FunctionType] = {}
"""Method name -> BFCL's function (the first owner's), for signatures and docs."""
for _class_name, _cls in _CLASSES.items():
    for _name, _function in _public_methods(_cls).items():
        _OWNERS[_name] = (*_OWNERS.get(_name, ()), _class_name)
        _ORIGINALS.setdefault(_name, _function)


def bfcl_api_classes() -> dict[str, type]:
    """BFCL's eight multi-turn API classes by name (a copy).

    Raises:
        ConfigError: bfcl-eval (or mpmath) is not installed.
    """
    if _PROBLEM is not None:
        raise _PROBLEM
    return dict(_CLASSES)


def method_owner(name: str) -> str:
    """The API class defining the method `name` (the first, should two define it).

    Raises:
        ConfigError: bfcl-eval is not installed.
        KeyError: no API class has this public method.
    """
    if _PROBLEM is not None:
        raise _PROBLEM
    return _OWNERS[name][0]


def new_instance(
    cls: type, class_name: str, initial_config: Mapping[str, Any], *, long_context: bool
) -> Any:
    """One API instance as BFCL builds it: `cls()`, then its scenario loaded.

    `_load_scenario` gets a deep copy of `initial_config[class_name]` (not for the
    stateless classes).
    """
    instance = cls()
    if class_name not in STATELESS_CLASSES:
        scenario = _plain_copy(initial_config.get(class_name, {}))
        instance._load_scenario(scenario, long_context=long_context)
    return instance


def _plain_copy(value: Any) -> Any:
    """`copy.deepcopy` of JSON data (what a scenario is), several times faster."""
    kind = type(value)
    if kind is dict:
        return {k: _plain_copy(v) for k, v in value.items()}
    if kind is list:
        return [_plain_copy(v) for v in value]
    if kind in (str, int, float, bool) or value is None:
        return value
    return copy.deepcopy(value)


def is_long_context(entry_id: str) -> bool:
    """Whether BFCL loads this entry's classes with `long_context=True` (from its id).

    Examples:
        >>> is_long_context("multi_turn_long_context_3"), is_long_context("multi_turn_base_3")
        (True, False)
    """
    category = entry_id.rsplit("_", 1)[0]
    return "long_context" in category or "composite" in category


class BfclApis:
    """The involved BFCL API instances of one conversation, their methods as plain `def`s.

    Examples:
        >>> apis = BfclApis(["MathAPI"], {})  # doctest: +SKIP
        >>> apis.add(a=2, b=3)  # doctest: +SKIP
        {'result': 5}
    """

    __slots__ = ("_instances", "_long_context")

    def __init__(
        self,
        involved_classes: Sequence[str],
        initial_config: Mapping[str, Any] | None = None,
        long_context: bool = False,
    ) -> None:
        """Build each involved class as BFCL does, each with a deep copy of its config.

        Args:
            involved_classes: BFCL class names, e.g. `["GorillaFileSystem", "TwitterAPI"]`.
            initial_config: per class name, the scenario its `_load_scenario` gets.
            long_context: BFCL's long-context loading (`multi_turn_long_context`).

        Raises:
            ConfigError: bfcl-eval is not installed.
            ValueError: an unknown class name, or a malformed config.
        """
        classes = bfcl_api_classes()
        if isinstance(involved_classes, str) or not isinstance(involved_classes, Sequence):
            raise ValueError("involved_classes must be a list of BFCL class names")
        config = initial_config if initial_config is not None else {}
        if not isinstance(config, Mapping):
            raise ValueError("initial_config must be an object (class name -> scenario)")
        self._long_context = bool(long_context)
        self._instances: dict[str, object] = {}
        for name in involved_classes:
            cls = classes.get(name) if isinstance(name, str) else None
            if cls is None:
                known = ", ".join(classes)
                raise ValueError(f"unknown BFCL API class {name!r} (known: {known})")
            self._instances[name] = new_instance(cls, name, config, long_context=self._long_context)

    @property
    def involved_classes(self) -> tuple[str, ...]:
        """The involved class names, in order."""
        return tuple(self._instances)

    @property
    def instances(self) -> Mapping[str, object]:
        """The live BFCL instances by class name (read-only; no tool call reaches them)."""
        return types.MappingProxyType(self._instances)

    def _call(self, name: str, args: tuple[object, ...], kwargs: dict[str, object]) -> object:
        owners = [c for c in _OWNERS.get(name, ()) if c in self._instances]
        if not owners:
            owner = _OWNERS[name][0] if name in _OWNERS else "no API class"
            raise RuntimeError(
                f"{name} belongs to {owner}, which this conversation does not involve"
            )
        # As BFCL maps names to instances: the last involved class defining it wins.
        owner = max(owners, key=list(self._instances).index)
        method: Callable[..., object] = getattr(self._instances[owner], name)
        return method(*args, **kwargs)

    def state(self) -> JsonValue:
        """Per involved class, its public attributes as JSON (`{class: {attr: value}}`).

        The file system's `Directory` and `File` objects become
        `{"name", "contents": {...}}` and `{"name", "content"}`; sets become sorted lists.
        """
        return {name: _public_state(obj) for name, obj in self._instances.items()}


def _public_state(instance: object) -> JsonObject:
    return {
        key: _jsonable(value)
        for key, value in sorted(vars(instance).items())
        if not key.startswith("_")
    }


def _jsonable(value: object) -> JsonValue:
    """A BFCL value as JSON: containers walked, file system objects by structure."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        items = [_jsonable(v) for v in value]
        try:
            return sorted(items)  # type: ignore[type-var]
        except TypeError:
            return sorted(items, key=repr)
    kind = type(value).__name__ if type(value).__module__ == _FILE_SYSTEM else ""
    if kind == "Directory" and hasattr(value, "contents"):
        return {
            "name": _jsonable(getattr(value, "name", None)),
            "contents": _jsonable(value.contents),
        }
    if kind == "File" and hasattr(value, "content"):
        return {
            "name": _jsonable(getattr(value, "name", None)),
            "content": _jsonable(value.content),
        }
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


def _delegate(name: str, original: types.FunctionType) -> Callable[..., object]:
    """A plain function delegating `name` to its owner, with BFCL's signature and doc."""

    def method(self: BfclApis, /, *args: object, **kwargs: object) -> object:
        return self._call(name, args, kwargs)

    method.__name__ = name
    method.__qualname__ = f"BfclApis.{name}"
    method.__doc__ = original.__doc__
    method.__signature__ = inspect.signature(original)  # type: ignore[attr-defined]
    return method


for _name, _function in _ORIGINALS.items():
    if _name in BfclApis.__dict__:  # a BFCL method named like BfclApis's own members
        _PROBLEM = ConfigError(f"BFCL method {_name!r} clashes with BfclApis.{_name}")
        continue
    setattr(BfclApis, _name, _delegate(_name, _function))
