"""Which language a reply is in, cheaply: a share of Latin letters, then stop words.

The rules know English, French, German and Spanish. A reply mostly in another script,
or with none of the stop words of a known language, is in a language they do not know,
and the classifier abstains on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["LANGUAGES", "detect_language", "words"]


def _stop_words(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


_STOP_WORDS: dict[str, frozenset[str]] = {
    "en": _stop_words(
        "the a an is are was be to of and in it that this you your i i'm i'll me my we "
        "can not for with on do does have has will would please there what which"
    ),
    "fr": _stop_words(
        "le la les un une des est et en je vous tu il ce cette de du au pour avec pas "
        "ne que qui sur dans votre mon ma suis peux pouvez"
    ),
    "de": _stop_words(
        "der die das ein eine ist und ich sie du nicht mit für auf den dem zu ihre ihr "
        "bitte kann können welche welcher habe keine"
    ),
    "es": _stop_words(
        "el la los las un una es y en yo usted tu no con para por que de del lo puedo "
        "puede su por favor cuál qué"
    ),
}
LANGUAGES: tuple[str, ...] = tuple(_STOP_WORDS)
"""The languages the rules are written for."""

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_MIN_LATIN_SHARE = 0.8


def words(text: str) -> list[str]:
    """The words of a text, lowercased (letters only, with an inner apostrophe)."""
    return [w.lower() for w in _WORD.findall(text.replace("\u2019", "'"))]


def detect_language(text: str, tokens: Sequence[str] | None = None) -> str | None:
    """The known language `text` is in, or None (another script, or no stop word).

    Examples:
        >>> detect_language("Which file should I open?")
        'en'
        >>> detect_language("Quel fichier voulez-vous que je lise ?")
        'fr'
        >>> detect_language("打开文件并读取内容。") is None
        True
    """
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    latin = sum(1 for c in letters if c.isascii() or "\u00c0" <= c <= "\u024f")
    if latin / len(letters) < _MIN_LATIN_SHARE:
        return None
    tokens = words(text) if tokens is None else tokens
    best, best_hits = None, 0
    for language, stop in _STOP_WORDS.items():
        hits = sum(1 for w in tokens if w in stop)
        if hits > best_hits:
            best, best_hits = language, hits
    return best
