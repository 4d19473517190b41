"""The package-level import graph of src/toolgrade: no cycle, and `match` stays low.

Each top-level module or subpackage of toolgrade is a node (`match`, `judge`, `bfcl`,
`_json`, ...; `toolgrade` is the package's own `__init__`). An edge is any import of
one node from a module of another, at module level or inside a function, read with
`ast` without importing anything. Imports under `if TYPE_CHECKING:` are left out: they
never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "toolgrade"
ROOT = "toolgrade"
# `match` is value equality and alignment: it must know values, not suites, verdicts
# or the runs and benchmarks built on them.
MATCH_MUST_NOT_IMPORT = ("suite", "_judge", "bfcl", "runner")
# `_vocab` is the bottom layer (ToolCall, Mismatch, Status, PairKind, Rubric): every
# node may import it, so it may import nothing of toolgrade but `_json`.
BOTTOM = "_vocab"
BOTTOM_MAY_IMPORT = {"_json"}
# Entry-point modules that only a host program loads (pytest through `pytest11`) are
# nodes of their own: like the CLI they sit on top (the plugin reads the CLI's option
# groups for its marker), and no module may import them.
ENTRY_POINTS = {"agent._plugin"}


def _node_of(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    dotted = ".".join(parts)
    if dotted in ENTRY_POINTS:
        return dotted
    return ROOT if parts == ("__init__",) else parts[0]


def _package_of(path: Path) -> list[str]:
    """The dotted package a module's relative imports start from."""
    parts = [ROOT, *path.relative_to(SRC).with_suffix("").parts]
    return parts[:-1]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement except those only under `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _runtime_nodes(ast.Module(body=[child], type_ignores=[]))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _runtime_nodes(node)


def _targets(stmt: ast.Import | ast.ImportFrom, path: Path) -> Iterator[str]:
    """The dotted toolgrade modules (or module.name) one import statement reads."""
    if isinstance(stmt, ast.Import):
        yield from (alias.name for alias in stmt.names)
        return
    if stmt.level:
        package = _package_of(path)
        base = package[: len(package) - stmt.level + 1]
        module = ".".join([*base, stmt.module] if stmt.module else base)
    else:
        module = stmt.module or ""
    for alias in stmt.names:
        yield f"{module}.{alias.name}"


def _target_node(dotted: str) -> str | None:
    parts = dotted.split(".")
    if parts[0] != ROOT:
        return None
    if len(parts) == 1:
        return ROOT
    for entry in ENTRY_POINTS:
        if ".".join(parts[1:]).startswith(entry):
            return entry
    # `from toolgrade import CaseResult` reads the package's `__init__`, while
    # `from toolgrade import judge` reads the module `judge`.
    name = parts[1]
    if (SRC / name).is_dir() or (SRC / f"{name}.py").is_file():
        return name
    return ROOT


def import_graph() -> dict[str, set[str]]:
    """Node -> the nodes it imports (itself excluded)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        source = _node_of(path)
        edges = graph.setdefault(source, set())
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for stmt in _runtime_nodes(tree):
            for dotted in _targets(stmt, path):
                target = _target_node(dotted)
                if target is not None and target != source:
                    edges.add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path `[a, b, ..., a]`, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found is not None:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found is not None:
                return found
    return None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_import_graph_covers_the_package(graph: dict[str, set[str]]) -> None:
    for node in ("match", "_judge", "bfcl", "suite", "runner", "results", "compare", "agent"):
        assert node in graph, node
    for node in (BOTTOM, ROOT):
        assert node in graph, node
    # The bfcl profile plugs into judge; judge finds it by name, never by an import.
    assert "_judge" in graph["bfcl"]
    assert "bfcl" not in graph["_judge"]


def test_import_graph_has_no_cycle(graph: dict[str, set[str]]) -> None:
    cycle = find_cycle(graph)
    if cycle is not None:
        print("import cycle:", " -> ".join(cycle))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_import_graph_match_imports_no_higher_layer(graph: dict[str, set[str]]) -> None:
    wrong = sorted(graph["match"] & set(MATCH_MUST_NOT_IMPORT))
    assert wrong == [], f"match imports {wrong}"


def test_import_graph_bottom_layer_imports_only_json(graph: dict[str, set[str]]) -> None:
    assert graph[BOTTOM] <= BOTTOM_MAY_IMPORT, f"{BOTTOM} imports {sorted(graph[BOTTOM])}"


def test_import_graph_bottom_layer_is_used_by_the_layers_above(graph: dict[str, set[str]]) -> None:
    # The vocabulary is declared once, there: the layers that speak it import it.
    for node in ("match", "results", "suite", "agent", "runner", "extract"):
        assert BOTTOM in graph[node], node


def test_import_graph_entry_points_are_imported_by_nothing(graph: dict[str, set[str]]) -> None:
    for entry in ENTRY_POINTS:
        assert entry in graph, entry
        importers = sorted(node for node, edges in graph.items() if entry in edges)
        assert importers == [], f"{entry} is imported by {importers}"


def test_find_cycle_reports_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_import_graph_skips_type_checking_imports(tmp_path: Path) -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from toolgrade.suite import Case\n"
        "def f():\n    from toolgrade._judge import judge\n"
    )
    found = [n.module for n in _runtime_nodes(tree) if isinstance(n, ast.ImportFrom)]
    assert found == ["typing", "toolgrade._judge"]
