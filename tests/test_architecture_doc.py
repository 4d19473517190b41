"""docs/architecture.md's table of layers is the `layers` contract of pyproject.toml.

`lint-imports` (in `make lint`) checks the code against the contracts; this checks the
page against the contract, so that the two cannot drift apart.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_ROW = re.compile(r"^\| (\d+) \| ([^|]+) \|")


def _contract_layers() -> list[set[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    return [{name.strip() for name in re.split(r"[|:]", layer)} for layer in reversed(layers)]


def _doc_layers() -> list[tuple[int, set[str]]]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Layers, from the bottom up", 1)[1].split("\n## ", 1)[0]
    rows = (_ROW.match(line) for line in section.splitlines())
    return [(int(m[1]), set(re.findall(r"`([\w.]+)`", m[2]))) for m in rows if m]


def test_doc_rows_are_the_contract_layers_bottom_up() -> None:
    doc = _doc_layers()
    assert [number for number, _ in doc] == list(range(1, len(doc) + 1))
    assert [nodes for _, nodes in doc] == _contract_layers()


def test_every_top_level_module_and_package_is_in_a_layer() -> None:
    src = ROOT / "src" / "toolgrade"
    nodes = {p.stem for p in src.glob("*.py") if p.stem != "__init__"}
    nodes |= {p.name for p in src.iterdir() if (p / "__init__.py").is_file()}
    assert nodes == set().union(*_contract_layers())
