"""BFCL's Java and JavaScript value converters, ported rule for rule.

In BFCL's Java and JavaScript categories every argument is a string holding source code
(`"5L"`, `"new ArrayList<>(Arrays.asList(1, 2))"`, `"[1, 2]"`), and its checker turns
that string into a Python value with regular expressions before comparing it with the
possible answers (`bfcl_eval/eval_checker/ast_eval/type_convertor/`). The `bfcl`
profile must give BFCL's verdicts, so these functions reproduce those conversions
exactly, quirks included: a value that does not parse stays a string, `char` never
converts (its pattern cannot match), quoted list items keep their quotes. Nothing here
evaluates code: every value is read with regular expressions and `int`/`float`.
"""

from __future__ import annotations

import re

__all__ = ["JAVA_TYPES", "JS_TYPES", "ConversionUnsupported", "java_convert", "js_convert"]

Converted = object
"""A converted value: str, int, float, bool, list or dict (BFCL's Python values)."""

JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}
"""BFCL's `JAVA_TYPE_CONVERSION`: the Python type each Java type converts to."""

JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}
"""BFCL's `JS_TYPE_CONVERSION`: the Python type each JavaScript type converts to."""


class ConversionUnsupported(ValueError):
    """BFCL's converter has no rule for this type (BFCL itself raises)."""


_INT = re.compile(r"^-?\d+$")
_JAVA_FLOAT = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"^-?\d+[lL]$")
# BFCL's patterns, compiled once (BFCL passes them to `re` functions each time).
_F_SUFFIX = re.compile(r"[fF]$")
_L_SUFFIX = re.compile(r"[lL]$")
_ARRAYLIST_AS_LIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_ARRAYLIST_ADDS = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
_ADD = re.compile(r"add\((.+?)\)")
_ARRAYLIST_EMPTY = re.compile(r"new\s+ArrayList<\w*>\(\)")
_ARRAY = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
_HASHMAP = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
_PUT = re.compile(r"put\(\"(.*?)\",\s*(.*?)\)")
_HASHMAP_EMPTY = re.compile(r"new\s+HashMap<.*?>\s*\(\)")
_JS_FLOAT = re.compile(r"^-?\d+(\.\d+)?$")
_JS_BIGINT = re.compile(r"^-?\d+n$")
_JS_ROW = re.compile(r"\[(.*?)\]")
_JS_DICT = re.compile(r"\{(.*?)\}")
_JS_ENTRY = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


_JAVA_TEXT = ("String", "any", "char")
"""The Java types whose source text `java_convert` leaves as it is."""


def java_convert(value: str, expected: str, nested: str | None = None) -> Converted:
    """Convert Java source text the way BFCL's `java_type_converter` does.

    Raises:
        ConversionUnsupported: BFCL has no conversion for the type (it raises too).
    """
    if expected not in JAVA_TYPES:
        raise ConversionUnsupported(f"Unsupported type: {expected}")
    if expected in ("byte", "short", "integer"):
        return int(value) if _INT.match(value) else value
    if expected == "float":
        return float(_F_SUFFIX.sub("", value)) if _JAVA_FLOAT.match(value) else value
    if expected == "double":
        return float(value) if _JAVA_DOUBLE.match(value) else value
    if expected == "long":
        return int(_L_SUFFIX.sub("", value)) if _JAVA_LONG.match(value) else value
    if expected == "boolean":
        return value == "true" if value in ("true", "false") else value
    if expected == "ArrayList":
        return _java_arraylist(value, nested)
    if expected == "Array":
        return _java_array(value, nested)
    if expected == "HashMap":
        return _java_hashmap(value)
    if expected in _JAVA_TEXT:
        # BFCL's char pattern `^\'.$\'` puts `$` before the closing quote: it never
        # matches, so a char always stays the source text.
        return value
    raise ConversionUnsupported(f"{expected} conversion is not implemented")


def _java_element(text: str, nested: str | None) -> Converted:
    if nested in ("char", "String"):
        return text[1:-1]
    return java_convert(text, nested) if nested else _java_value(text)


def _java_arraylist(text: str, nested: str | None) -> Converted:
    as_list = _ARRAYLIST_AS_LIST.search(text)
    if as_list:
        return [_java_element(part.strip(), nested) for part in as_list.group(1).split(",")]
    adds = _ARRAYLIST_ADDS.search(text)
    if adds:
        found = _ADD.findall(adds.group(1))
        return [_java_element(item.strip(), nested) for item in found]
    if _ARRAYLIST_EMPTY.search(text):
        return []
    return text


def _java_array(text: str, nested: str | None) -> Converted:
    match = _ARRAY.search(text)
    if not match:
        return text
    parts = [x.strip() for x in match.group(1).split(",") if x.strip()]
    if nested in _JAVA_TEXT:
        return parts  # `java_convert` keeps text as it is (quotes and all)
    if nested:
        return [java_convert(x, nested) for x in parts]
    return [_java_value(x) for x in parts]


def _java_hashmap(text: str) -> Converted:
    match = _HASHMAP.search(text)
    if match:
        elements: dict[str, Converted] = {}
        if match.group(1).strip():
            for key, raw in _PUT.findall(match.group(1)):
                elements[key] = _java_value(raw.strip())
        return elements
    if _HASHMAP_EMPTY.search(text):
        return {}
    return text


def _java_value(text: str) -> Converted:
    """BFCL's `parse_java_value`: a literal whose type is not declared."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(_F_SUFFIX.sub("", text))
    return _int_float_or_text(text)


def _int_float_or_text(text: str) -> Converted:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def js_convert(value: str, expected: str, nested: str | None = None) -> Converted:
    """Convert JavaScript source text the way BFCL's `js_type_converter` does.

    Raises:
        ConversionUnsupported: BFCL has no conversion for the type (it raises too).
    """
    if expected not in JS_TYPES:
        raise ConversionUnsupported(f"Unsupported type: {expected}")
    if expected == "String":
        quoted = (value.startswith('"') and value.endswith('"')) or (
            value.startswith("'") and value.endswith("'")
        )
        return value[1:-1] if quoted else value
    if expected == "integer":
        return int(value) if _INT.match(value) else value
    if expected == "float":
        return float(value) if _JS_FLOAT.match(value) else value
    if expected == "Bigint":
        return int(value[:-1]) if _JS_BIGINT.match(value) else value
    if expected == "Boolean":
        return value == "true" if value in ("true", "false") else value
    if expected == "dict":
        return _js_dict(value.strip())
    if expected == "array":
        return _js_array(value.strip(), nested)
    return value


_JS_2D = re.compile(
    r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"
)
_JS_1D = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")


def _js_array(code: str, nested: str | None) -> Converted:
    try:
        two_d = _JS_2D.match(code)
        if two_d:
            rows: list[Converted] = []
            for index, inner in enumerate(_JS_ROW.findall(two_d.group(0))):
                inner = inner.strip()
                if index == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([_js_value(e.strip()) for e in inner.split(",")])
            return rows
        one_d = _JS_1D.match(code)
        if not one_d:
            return code
        body = one_d.group(1) if one_d.group(1) is not None else one_d.group(2)
        body = (body or "").strip()
        elements = body.split(",") if body else []
        if nested:
            return [_js_nested(e.strip(), nested) for e in elements]
        return [_js_value(e.strip()) for e in elements]
    except (ValueError, IndexError, ConversionUnsupported):
        # BFCL wraps this in a bare `except` and keeps the source text.
        return code


def _js_nested(text: str, nested: str) -> Converted:
    if text.startswith(("'", '"')):
        return js_convert(text, nested, "String")
    return js_convert(text, nested)


def _js_dict(code: str) -> Converted:
    if code == "{}":
        return {}
    match = _JS_DICT.match(code)
    if not match:
        return code
    out: dict[str, Converted] = {}
    for key, raw in _JS_ENTRY.findall(match.group(1)):
        name = key.strip().strip("'\"")
        text = raw.strip()
        if text.startswith("[") and text.endswith("]"):
            out[name] = _js_array(text, None)
        elif text.startswith("{") and text.endswith("}"):
            out[name] = _js_dict(text)
        else:
            out[name] = _js_value(text.strip("'\""))
    return out


def _js_value(text: str) -> Converted:
    """BFCL's `parse_js_value`: a literal whose type is not declared."""
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if (text.startswith('"') and text.endswith('"')) or (
        text.startswith("'") and text.endswith("'")
    ):
        return text[1:-1]
    return _int_float_or_text(text)
