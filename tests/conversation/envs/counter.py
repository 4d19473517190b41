"""A small Python environment for tests: a counter with a history.

Besides its tools (`increment`, `fail`, `tags`, `echo`, `big`, `add_note`) it holds
everything a model's call must never reach: a private method, a property, class
attributes that are not functions, a classmethod, a staticmethod, a nested class, a
`__getattr__` fallback and an instance attribute holding a function.
"""

from __future__ import annotations

import datetime
from typing import ClassVar

TOUCHED: list[str] = []
"""Names of the unreachable members that ran: a security test asserts it stays empty."""


class Base:
    """A base class: its public methods are tools of subclasses too."""

    def reset(self) -> str:
        """Set the count back to 0."""
        self.count = 0
        return "reset"


class Counter(Base):
    """A counter; `state()` is what checks read."""

    label = "counter"
    """A class attribute that is not a function."""
    limits: ClassVar[dict[str, int]] = {"max": 10}
    """Another one (a dict)."""

    def __init__(self, count: int = 0, notes: list[str] | None = None) -> None:
        """Start at `count`."""
        self.count = count
        self.notes = list(notes or [])
        self._hidden = "secret"
        self.instance_tool = self._instance_tool

    def _instance_tool(self) -> str:
        TOUCHED.append("instance_tool")
        return "instance attribute reached"

    def increment(self, by: int = 1) -> int:
        """Add `by` and return the new count."""
        self.count += by
        return self.count

    def add_note(self, text: str) -> dict[str, object]:
        """Append a note."""
        self.notes.append(text)
        return {"notes": len(self.notes)}

    def fail(self) -> None:
        """Change the count, then raise."""
        self.count += 100
        raise RuntimeError("disk on fire " + "!" * 1000)

    def tags(self) -> object:
        """A result JSON cannot hold as is."""
        return {"set": {"b", "c", "a"}, "when": datetime.date(2024, 1, 2)}

    def echo(self, **kwargs: object) -> dict[str, object]:
        """Return the arguments as received."""
        return dict(kwargs)

    def big(self) -> str:
        """A result far over the size bound."""
        return "x" * 200_000

    def _secret(self) -> str:
        TOUCHED.append("_secret")
        return "private reached"

    def __secret(self) -> str:
        TOUCHED.append("__secret")
        return "mangled reached"

    @property
    def doubled(self) -> int:
        """A property."""
        TOUCHED.append("doubled")
        return self.count * 2

    @classmethod
    def klass(cls) -> type:
        """A classmethod returning the class."""
        TOUCHED.append("klass")
        return cls

    @staticmethod
    def helper() -> str:
        """A staticmethod."""
        TOUCHED.append("helper")
        return "static reached"

    class Nested:
        """A nested class."""

        def __init__(self) -> None:
            TOUCHED.append("Nested")

    def __getattr__(self, name: str) -> object:
        TOUCHED.append(f"__getattr__:{name}")
        return lambda **_: f"getattr reached {name}"

    def state(self) -> dict[str, object]:
        """What checks read."""
        TOUCHED.append("state")
        return {"count": self.count, "notes": self.notes}


class Bag:
    """No `state()`: its public attributes are the state."""

    def __init__(self, items: list[str] | None = None) -> None:
        """Start with `items`."""
        self.items = list(items or [])
        self.seen = {"z", "y"}
        self._private = "not state"

    def put(self, item: str) -> int:
        """Add an item."""
        self.items.append(item)
        return len(self.items)


class Strict:
    """A class whose constructor takes no state."""

    def __init__(self) -> None:
        """Nothing to set."""

    def ping(self) -> str:
        """Answer."""
        return "pong"


NOT_A_CLASS = 3
"""An attribute that is not a class."""
