"""`toolgrade.match` imports its heavier parts on first use: the table and the imports agree."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import toolgrade.match as match


def _type_checking_imports() -> dict[str, str]:
    """What `match/__init__.py` imports for type checkers: name -> private module."""
    tree = ast.parse(Path(match.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If))
    return {
        alias.name: node.module.removeprefix("toolgrade.match.")
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def test_lazy_names_match_what_type_checkers_read() -> None:
    assert _type_checking_imports() == match._HOME


def test_every_lazy_name_is_the_object_of_its_module() -> None:
    for name, module in match._HOME.items():
        home = sys.modules.get(f"toolgrade.match.{module}") or __import__(
            f"toolgrade.match.{module}", fromlist=[name]
        )
        assert getattr(match, name) is getattr(home, name), name


def test_scoring_imports_neither_matchers_nor_schemas() -> None:
    code = (
        "import sys, toolgrade; toolgrade.score_calls([{'name': 'a', 'arguments': {}}], []); "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('toolgrade.match.',"
        " 'jsonschema', 're2')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    assert not loaded & {f"toolgrade.match.{m}" for m in match._LAZY}, loaded
    assert not {m for m in loaded if m.startswith(("jsonschema", "re2"))}, loaded
