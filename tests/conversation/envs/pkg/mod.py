"""An environment in a sub-folder, named `pkg.mod:Echo`."""

from __future__ import annotations


class Echo:
    """Echo a word."""

    def say(self, word: str) -> str:
        """Return the word."""
        return word
