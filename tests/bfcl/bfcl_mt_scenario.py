"""A small BFCL multi-turn scenario shared by the multi-turn tests."""

from __future__ import annotations

FILES = {
    "root": {
        "alex": {
            "type": "directory",
            "contents": {
                "notes.txt": {"type": "file", "content": "b\na\n"},
                "docs": {"type": "directory", "contents": {}},
            },
        }
    }
}
"""A GorillaFileSystem scenario in BFCL's format."""
