"""Java and JavaScript source-text values on the compiled checker's fast path.

In BFCL's Java and JavaScript categories every argument is source text, converted as
BFCL converts it (`_convert`) before it is compared. Here: which doc types a compiled
rule converts itself (scalars, dicts, and lists of simple items) and with what, and which
spellings of a rule's options are known to pass without converting them again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolgrade.bfcl._checker import BfclParam
from toolgrade.bfcl._convert import JAVA_TYPES, JS_TYPES, java_convert, js_convert

__all__ = ["passing_texts", "source_type"]

_NUMBER_SUFFIXES = ("", "L", "l", "f", "F", "n")
"""How Java (long, float) and JavaScript (BigInt) source may end a number."""


def _java(bfcl_type: str) -> Callable[[str], object]:
    return lambda value: java_convert(value, bfcl_type)


def _js(bfcl_type: str) -> Callable[[str], object]:
    return lambda value: js_convert(value, bfcl_type)


_SCALAR_JAVA = ("byte", "short", "integer", "float", "double", "long", "boolean")
_SCALAR_JS = ("String", "integer", "float", "Bigint", "Boolean")
_SourceType = tuple[type | None, Callable[[str], object] | None]
# The Java and JavaScript types whose converted value can take the fast path: a
# converter with no list items to type (None: the text is the value).
# Dicts too (Java's HashMap, JavaScript's dict: Hashtable has no conversion).
_SOURCE_TYPES: dict[str, dict[str, _SourceType]] = {
    "java": {
        **{t: (JAVA_TYPES[t], _java(t)) for t in (*_SCALAR_JAVA, "HashMap")},
        **{t: (str, None) for t in ("String", "any", "char")},
    },
    "javascript": {
        **{t: (JS_TYPES[t], _js(t)) for t in (*_SCALAR_JS, "dict")},
        "any": (str, None),
    },
}

_SOURCE_LISTS: dict[str, tuple[str, ...]] = {
    "java": ("Array", "ArrayList"),
    "javascript": ("array",),
}
_SIMPLE_ITEMS = (bool, int, float, str)


def source_type(
    spec: BfclParam, language: str
) -> tuple[type | None, type | None, Callable[[str], object] | None]:
    """A Java or JavaScript doc type's (Python type, list item type, converter).

    (None, None, None) for the types only `check_param` handles. A converter of None
    means the source text is the value.
    """
    if spec.type in _SOURCE_LISTS[language]:
        return _source_list(spec, language)
    expected, convert = _SOURCE_TYPES[language].get(spec.type, (None, None))
    return expected, None, convert


def passing_texts(
    values: Sequence[object], convert: Callable[[str], object], passes: Callable[[object], bool]
) -> frozenset[str]:
    """The source texts of a rule's options whose conversion `passes`.

    The converters are pure functions of the text, so a text found here passes however
    often it is seen; any other text is converted as usual. The candidates are each
    option as a model writes it (`5`, `5L`, `2.5`, `2.5f`, `true`, `7n`).
    """
    candidates: set[str] = set()
    for value in values:
        if type(value) is bool:
            candidates.add("true" if value else "false")
        elif type(value) is int or type(value) is float:
            text = str(value)
            candidates.update(text + suffix for suffix in _NUMBER_SUFFIXES)
            if type(value) is float and value.is_integer():
                candidates.add(str(int(value)))
        elif type(value) is str:
            candidates.add(value)
    return frozenset(text for text in candidates if _converts_to_pass(text, convert, passes))


def _converts_to_pass(
    text: str, convert: Callable[[str], object], passes: Callable[[object], bool]
) -> bool:
    try:
        return passes(convert(text))
    except ValueError:  # ConversionUnsupported, or a number `int` refuses
        return False


def _source_list(
    spec: BfclParam, language: str
) -> tuple[type | None, type | None, Callable[[str], object] | None]:
    """A Java or JavaScript list type's (list, item type, converter), or Nones.

    Only lists of simple items take the fast path; others are for `check_param`.
    """
    table = JAVA_TYPES if language == "java" else JS_TYPES
    items = table.get(spec.items or "")
    if items not in _SIMPLE_ITEMS:
        return None, None, None
    convert = java_convert if language == "java" else js_convert
    bfcl_type, items_type = spec.type, spec.items
    return list, items, lambda value: convert(value, bfcl_type, items_type)
