"""Where things are in a JSON text: the line each value starts on, by JSON path.

`json.loads` forgets positions, so when a suite file has problems its text is scanned
once more to add a line number to each message (an editor jumps straight to it). Only
invalid files pay for the scan. The scanner itself lives in `toolgrade._core.json_data`, which
also uses it to place the issues of `loads_checked`.
"""

from __future__ import annotations

from toolgrade._core.json_data import value_lines

__all__ = ["line_of", "value_lines"]


def line_of(lines: dict[str, int], path: str) -> int | None:
    """The line of a JSON path, or of its nearest ancestor in the map (None if none)."""
    while path not in lines:
        cut = max(path.rfind("."), path.rfind("["))
        if cut <= 0:
            return lines.get("$")
        path = path[:cut]
    return lines[path]
