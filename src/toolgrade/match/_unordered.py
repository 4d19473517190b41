"""`$unordered`: a maximum bipartite matching of expected items to actual items.

Item `i` may stand for actual item `j` when comparing them finds no difference. The
array matches when every expected item gets an actual item of its own: a perfect
matching, found by augmenting paths (Kuhn's algorithm, iterative, each search in
linear time) after a greedy start.

Most items are plain values (no matcher inside). For those, "i matches j" is equality
of a key: the item's value as the comparison sees it (strings trimmed or paths
normalised by the schema, `1 == 1.0`, an object's members compared by name, a missing
member read as its schema default, a `null` member read as left out where the comparison
reads it so). `_project` builds that key from the actual item,
read through the shape of the expected one (its members, its array lengths), so that
an actual object with more members still matches. Actual items are indexed by key
once per shape: 2,000 literal items cost O(n). Items that hold matchers are compared
with each actual item (n comparisons each; equal items share one row), so the whole
stays polynomial: at most n² comparisons and O(n·E) for the matching.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.match._coerce import child_schema
from toolgrade.match._keys import deep_key
from toolgrade.match._matchers import is_matcher
from toolgrade.match._nulls import is_required, reads_as_absent

if TYPE_CHECKING:
    from toolgrade.match._values import MismatchReason, _Walker

__all__ = ["unordered_problem"]

_MAX_SHAPES = 16
"""Distinct item shapes indexed by key; items of further shapes are compared one by one."""
_SHOWN_ITEMS = 3
_NO: Hashable = ("no match",)
"""The key of an actual item that cannot match the shape (another kind, length or member
set); no expected item's key equals it."""
_STR, _BOOL, _LIST, _DICT = "s", "b", "l", "d"

Text = Callable[[str, JsonObject | None, str | None], str]


@dataclass(frozen=True, slots=True)
class _Reading:
    """How the comparison reads values.

    Its string rule, `strict`, `semantic`, and whether every `null` member is read as
    left out (`null_is_absent`).
    """

    text: Text
    strict: bool
    semantic: bool
    null_is_absent: bool


def unordered_problem(
    walker: _Walker,
    items: list[JsonValue],
    actual: JsonValue,
    *,
    path: str,
    schema: JsonObject | None,
    name: str | None,
) -> tuple[MismatchReason, str] | None:
    """Why `actual` is not the `items` in some order, or None when it is."""
    if not isinstance(actual, list):
        return ("type", "expected an array")
    if len(items) != len(actual):
        return ("value", f"{len(actual)} items instead of {len(items)}")
    classes = _Classes(walker, items, actual, path=path, schema=schema, name=name)
    mate = _matching(classes.of_item, classes.members)
    unmatched = [i for i, j in enumerate(mate) if j < 0]
    if not unmatched:
        return None
    taken = set(mate)
    spare = [j for j in range(len(actual)) if j not in taken]
    return ("value", _message(items, actual, unmatched, spare))


class _Classes:
    """Expected items grouped by what they match.

    `members[c]` lists the actual items class `c` matches; `of_item[i]` is item i's class.
    """

    def __init__(
        self,
        walker: _Walker,
        items: list[JsonValue],
        actual: list[JsonValue],
        *,
        path: str,
        schema: JsonObject | None,
        name: str | None,
    ) -> None:
        self.walker = walker
        self.actual = actual
        self.path = path
        self.schema = schema
        self.name = name
        self.members: list[list[int]] = []
        self.of_item: list[int] = []
        self._by_key: dict[tuple[Hashable, Hashable], int] = {}
        self._indexes: dict[Hashable, dict[Hashable, list[int]]] = {}
        # Per-position item schemas (`prefixItems`) make "i matches j" depend on j.
        self._uniform = not schema or not (
            isinstance(schema.get("prefixItems"), list) or isinstance(schema.get("items"), list)
        )
        options = walker.options
        text: Text = walker.text if options.semantic else _raw
        self._reading = _Reading(text, options.strict, options.semantic, options.null_is_absent)
        for item in items:
            self.of_item.append(self._class(item))

    def _class(self, item: JsonValue) -> int:
        literal = self._uniform and _is_literal(item)
        shape = _shape(item) if literal else None
        if literal and (shape in self._indexes or len(self._indexes) < _MAX_SHAPES):
            key: Hashable = self._key(item, item)
            memo = (shape, key)
        else:
            memo = ("trial", deep_key(item))
        found = self._by_key.get(memo)
        if found is not None:
            return found
        if memo[0] == "trial":
            matches = self._compared(item)
        else:
            matches = self._index(shape, item).get(key, [])
        self._by_key[memo] = len(self.members)
        self.members.append(matches)
        return len(self.members) - 1

    def _key(self, value: JsonValue, shape: JsonValue) -> Hashable:
        schema = child_schema(self.schema, 0)
        return _project(value, shape, schema, self.name, self._reading)

    def _index(self, shape: Hashable, item: JsonValue) -> dict[Hashable, list[int]]:
        index = self._indexes.get(shape)
        if index is None:
            index = {}
            for j, value in enumerate(self.actual):
                index.setdefault(self._key(value, item), []).append(j)
            self._indexes[shape] = index
        return index

    def _compared(self, item: JsonValue) -> list[int]:
        schema, name, path = self.schema, self.name, self.path
        return [
            j
            for j, value in enumerate(self.actual)
            if not self.walker.trial(
                item, value, f"{path}[{j}]", schema=child_schema(schema, j), name=name
            )
        ]


def _raw(value: str, schema: JsonObject | None, name: str | None) -> str:
    return value


def _is_literal(value: object) -> bool:
    """A value of JSON types only, with no matcher anywhere inside."""
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is dict:
            if is_matcher(node):
                return False
            stack.extend(node.values())  # type: ignore[attr-defined]
        elif kind is list:
            stack.extend(node)  # type: ignore[arg-type]
        elif kind not in (str, int, float, bool, type(None)):
            return False
    return True


def _shape(value: JsonValue) -> Hashable:
    """What a key depends on besides the leaves: member names and array lengths."""
    if isinstance(value, dict):
        return (_DICT, tuple(sorted((k, _shape(v)) for k, v in value.items())))
    if isinstance(value, list):
        return (_LIST, tuple(_shape(v) for v in value))
    return None


def _project(
    value: JsonValue,
    shape: JsonValue,
    schema: JsonObject | None,
    name: str | None,
    reading: _Reading,
) -> Hashable:
    """The key of `value` read through `shape` (a literal expected item).

    `_project(a, e) == _project(e, e)` exactly when comparing `e` with `a` (the
    walker's `value`) finds no difference.
    """
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return _NO
        if reading.strict and _extra(value, shape, schema, reading):
            return _NO
        members: list[Hashable] = []
        everywhere = reading.null_is_absent
        for key in sorted(shape):
            sub_schema = child_schema(schema, key)
            required = is_required(schema, key)
            if key in value and not reads_as_absent(
                value[key], sub_schema, everywhere=everywhere, required=required
            ):
                member = value[key]
            elif shape[key] is None and reads_as_absent(
                None, sub_schema, everywhere=everywhere, required=required
            ):
                members.append(None)  # left out, as the expected null reads
                continue
            elif reading.semantic and sub_schema and "default" in sub_schema:
                member = sub_schema["default"]  # the semantic comparison's default rule
            else:
                return _NO
            projected = _project(member, shape[key], sub_schema, key, reading)
            if projected is _NO:
                return _NO
            members.append(projected)
        return (_DICT, tuple(members))
    if isinstance(shape, list):
        if type(value) is not list or len(value) != len(shape):
            return _NO
        out = []
        for k, (item, item_shape) in enumerate(zip(value, shape, strict=True)):
            projected = _project(item, item_shape, child_schema(schema, k), name, reading)
            if projected is _NO:
                return _NO
            out.append(projected)
        return (_LIST, tuple(out))
    return _leaf(value, schema, name, reading.text)


def _extra(
    value: JsonObject, shape: JsonObject, schema: JsonObject | None, reading: _Reading
) -> bool:
    """Whether `value` has a member `shape` lacks (strict), a `null` read as left out aside."""
    everywhere = reading.null_is_absent
    return any(
        key not in shape
        and not reads_as_absent(
            member,
            child_schema(schema, key),
            everywhere=everywhere,
            required=is_required(schema, key),
        )
        for key, member in value.items()
    )


def _leaf(value: JsonValue, schema: JsonObject | None, name: str | None, text: Text) -> Hashable:
    if isinstance(value, str):
        return (_STR, text(value, schema, name))
    if isinstance(value, bool):
        return (_BOOL, value)
    if isinstance(value, int | float):
        return value if value == value else object()  # NaN equals nothing
    if value is None:
        return None
    return _NO  # an array or object where the expected item has a plain value


def _matching(of_item: list[int], members: list[list[int]]) -> list[int]:
    """A maximum matching: `mate[i]`, the actual item of expected item i, or -1."""
    n = len(of_item)
    mate = [-1] * n
    owner: dict[int, int] = {}  # actual item -> the expected item it is matched to
    start = [0] * len(members)  # per class: its members before this one are all taken
    for i, c in enumerate(of_item):
        row = members[c]
        k = start[c]
        while k < len(row) and row[k] in owner:
            k += 1
        start[c] = k
        if k < len(row):
            mate[i], owner[row[k]] = row[k], i
    # Actual items (and classes) a failed search reached cannot reach a free actual item
    # until the matching changes: later searches skip them.
    dead: set[int] = set()
    dead_classes: set[int] = set()
    for root in range(n):
        if mate[root] >= 0:
            continue
        if _augment(root, of_item, members, mate, owner, dead, dead_classes):
            dead.clear()
            dead_classes.clear()
    return mate


def _augment(
    root: int,
    of_item: list[int],
    members: list[list[int]],
    mate: list[int],
    owner: dict[int, int],
    dead: set[int],
    dead_classes: set[int],
) -> bool:
    """Search (breadth first) for an augmenting path from `root`; flip it when found."""
    reached_from: dict[int, int] = {}  # actual item -> the expected item that reached it
    seen_classes: set[int] = set()
    queue = [root]
    for i in queue:
        c = of_item[i]
        if c in seen_classes or c in dead_classes:
            continue  # an equal item already reached every member of this class
        seen_classes.add(c)
        for j in members[c]:
            if j in reached_from or j in dead:
                continue
            reached_from[j] = i
            if j not in owner:
                while True:  # flip the path back to the root
                    i = reached_from[j]
                    previous = mate[i]
                    mate[i], owner[j] = j, i
                    if i == root:
                        return True
                    j = previous
            queue.append(owner[j])
    dead.update(reached_from)
    dead_classes.update(seen_classes)
    return False


def _message(
    items: list[JsonValue], actual: list[JsonValue], unmatched: list[int], spare: list[int]
) -> str:
    def listed(values: list[JsonValue], indexes: list[int]) -> str:
        shown = ", ".join(f"[{k}] {_shown(values[k])}" for k in indexes[:_SHOWN_ITEMS])
        more = len(indexes) - _SHOWN_ITEMS
        return shown + (f" and {more} more" if more > 0 else "")

    return (
        f"no ordering of the items matches: {len(unmatched)} of {len(items)} expected "
        f"items unmatched: {listed(items, unmatched)}; actual items left over: "
        f"{listed(actual, spare)}"
    )


def _shown(value: JsonValue) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 40 else text[:37] + "..."
