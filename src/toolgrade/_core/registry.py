"""`Registry`: named things, built in or from plug-ins, imported on first use.

Every extension point of toolgrade (backends, extraction formats, report formats, judge
profiles, matchers) is one `Registry`. An entry is either the object itself or a lazy
`"module:attr"` string, imported the first time the name is used and then cached; the
built-ins register that way, so that `import toolgrade` loads none of them.

A registry also reads one entry-point group (`toolgrade.backends`, ...) of the installed
distributions, once, the first time a name is missing or the names are listed: a package
declaring

    [project.entry-points."toolgrade.formats"]
    foo = "toolgrade_foo:FORMAT"

adds the format `foo` without any change to toolgrade. Nothing is read at import time.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from toolgrade.errors import ConfigError

__all__ = ["Registry", "load_target", "reset_plugins"]

T = TypeVar("T")

_ALL: list[Registry[object]] = []


def load_target(target: str) -> object:
    """Import `"package.module:attr"` (the attribute may be dotted) and return it.

    Raises:
        ConfigError: the module cannot be imported or has no such attribute.
    """
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"malformed registry target {target!r} (expected module:attr)")
    try:
        found: object = importlib.import_module(module_name)
        for part in attr.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot load {target!r}: {exc}") from exc
    return found


class Registry(Generic[T]):
    """Names -> objects of one kind, resolved lazily, with plug-ins from entry points.

    Args:
        kind: what an entry is, for messages (`model provider`, `report format`).
        group: the entry-point group plug-ins declare (`toolgrade.reports`).
        check: validates an object when it is resolved (raise `ConfigError`), or None.

    Examples:
        >>> reg: Registry[str] = Registry("greeting", "toolgrade.test-greetings")
        >>> reg.register("hi", "string:ascii_lowercase")
        >>> reg.get("hi")[:3], reg.names()
        ('abc', ['hi'])
    """

    def __init__(
        self,
        kind: str,
        group: str,
        *,
        check: Callable[[str, object], T] | None = None,
    ) -> None:
        self.kind = kind
        self.group = group
        self._check = check
        self._entries: dict[str, T | str] = {}
        self._plugins: set[str] = set()
        self._loaded = False
        self._loading = threading.Lock()
        self._version = 0
        self.resolved: dict[str, T] = {}
        """The names resolved so far, to their objects: a lookup for hot paths, which
        falls back on `find` for a name missing here. Emptied by every change."""
        _ALL.append(self)  # type: ignore[arg-type]

    def register(self, name: str, entry: T | str, *, replace: bool = True) -> None:
        """Register `entry` (the object, or a lazy `"module:attr"`) as `name`.

        Args:
            name: the name users write.
            entry: the object, or where to import it from on first use.
            replace: replace an entry of the same name (else keep the existing one).
        """
        if not replace and name in self._entries:
            return
        self._entries[name] = entry
        self._changed()

    def _changed(self) -> None:
        self._version += 1
        self.resolved.clear()

    @property
    def version(self) -> int:
        """A number that changes whenever an entry is added, replaced or removed."""
        return self._version

    def unregister(self, name: str) -> None:
        """Forget `name` (no error when unknown)."""
        self._entries.pop(name, None)
        self._plugins.discard(name)
        self._changed()

    def find(self, name: str) -> T | None:
        """The object registered as `name`, importing it if needed; None when unknown.

        Raises:
            ConfigError: the entry exists but cannot be imported.
        """
        value = self._find(name)
        if value is not None:
            # After any import it made: an import that registers empties `resolved`.
            self.resolved[name] = value
        return value

    def _find(self, name: str) -> T | None:
        if name not in self._entries:
            self.load_plugins()
            if name not in self._entries:
                return None
        entry = self._entries[name]
        if not isinstance(entry, str):
            return entry
        resolved = load_target(entry)
        if self._entries.get(name) is not entry:  # importing it registered the real one
            current = self._entries[name]
            if not isinstance(current, str):
                return current
        value: T = self._check(name, resolved) if self._check else resolved  # type: ignore[assignment]
        self._entries[name] = value
        return value

    def get(self, name: str) -> T:
        """The object registered as `name`.

        Raises:
            ConfigError: unknown name (the message lists the known ones and says how to
                add one), or an entry that cannot be imported.
        """
        found = self.find(name)
        if found is None:
            raise ConfigError(self.unknown_message(name))
        return found

    def unknown_message(self, name: str) -> str:
        """`unknown <kind> 'x' (known: ...)`, with how to add one."""
        return (
            f"unknown {self.kind} {name!r} (known: {', '.join(self.names())}); a plug-in"
            f" package adds one through the {self.group!r} entry-point group"
            " (see docs/extending.md)"
        )

    def names(self) -> list[str]:
        """Every registered name, plug-ins included, in registration order."""
        self.load_plugins()
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name not in self._entries:
            self.load_plugins()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def is_plugin(self, name: str) -> bool:
        """Whether `name` came from an installed distribution's entry point."""
        return name in self._plugins

    def load_plugins(self) -> None:
        """Read the entry-point group once; names registered in code take precedence."""
        if self._loaded:
            return
        # Extraction and judging run in worker threads: the first miss may come from
        # several at once, and none may see the group half read.
        with self._loading:
            if self._loaded:
                return
            # Imported here, not at the top: `importlib.metadata` and `logging` are slow
            # to import, and most commands never read a group (score_calls reads none).
            import importlib.metadata
            import logging

            for point in importlib.metadata.entry_points(group=self.group):
                if point.name in self._entries:
                    logging.getLogger(__name__).debug(
                        "%s %r: the registered one wins", self.kind, point.name
                    )
                    continue
                self._entries[point.name] = point.value
                self._plugins.add(point.name)
                self._changed()
            self._loaded = True

    def reset_plugins(self) -> None:
        """Forget the plug-ins read so far; the next miss reads the group again."""
        with self._loading:
            for name in self._plugins:
                self._entries.pop(name, None)
            self._plugins.clear()
            self._loaded = False
            self._changed()


def reset_plugins() -> None:
    """Forget the plug-ins of every registry (for tests that install a fake one)."""
    for registry in _ALL:
        registry.reset_plugins()
