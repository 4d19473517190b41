"""Fail when a Python module under the given folder is over the line limit."""

from __future__ import annotations

import sys
from pathlib import Path

LIMIT = 420  # "no module much over 400 lines"


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "src")
    too_big = [
        (path, n)
        for path in sorted(root.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > LIMIT
    ]
    for path, n in too_big:
        print(f"{path}: {n} lines (limit {LIMIT}); split it by responsibility")
    return 1 if too_big else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
