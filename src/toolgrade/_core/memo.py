"""One memo of data derived from an object, keyed by the object's identity.

Hot paths derive data from the same objects again and again (a tool's compiled schema,
a case's checked matchers, a BFCL answer); hashing or comparing those objects would cost
more than the work saved. The object is kept with its data, so that its `id` cannot be
reused by another object while the entry lives.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["IdentityMemo"]

_K = TypeVar("_K")
_V = TypeVar("_V")


class IdentityMemo(Generic[_K, _V]):
    """Derived data per object, by identity, for the most recent `size` objects.

    Examples:
        >>> memo: IdentityMemo[list[int], int] = IdentityMemo(8)
        >>> numbers = [1, 2]
        >>> memo.get(numbers, sum), memo.get(numbers, len)  # the second is remembered
        (3, 3)
        >>> memo.find(numbers), memo.find([1, 2])  # an equal list is another object
        (3, None)
    """

    __slots__ = ("_lock", "_size", "entries")

    def __init__(self, size: int) -> None:
        self._size = size
        self.entries: OrderedDict[int, tuple[_K, _V]] = OrderedDict()
        """`id(key)` -> (key, data). Read only, by the hottest paths, which inline
        `find`: `hit = entries.get(id(key))`, a hit only when `hit[0] is key`."""
        self._lock = threading.Lock()

    def get(
        self,
        key: _K,
        make: Callable[[_K], _V],
        *,
        fresh: Callable[[_K, _V], bool] | None = None,
    ) -> _V:
        """The data of `key`, made by `make(key)` unless remembered.

        Args:
            key: the object.
            make: derives the data (not remembered when it raises).
            fresh: for a mutable `key`, whether remembered data still fits it; when it
                does not, the data is made again.

        Returns:
            The data.
        """
        found = self.entries.get(id(key))
        if found is not None and found[0] is key and (fresh is None or fresh(key, found[1])):
            return found[1]
        value = make(key)
        self.put(key, value)
        return value

    def find(self, key: _K) -> _V | None:
        """The data remembered for `key` (this very object), or None."""
        found = self.entries.get(id(key))
        return found[1] if found is not None and found[0] is key else None

    def put(self, key: _K, value: _V) -> None:
        """Remember `value` for `key`, forgetting the oldest entry past `size`."""
        with self._lock:
            self.entries[id(key)] = (key, value)
            if len(self.entries) > self._size:
                self.entries.popitem(last=False)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self.entries.clear()
