"""BFCL function docs as toolgrade tools, described as BFCL describes them to the model."""

from __future__ import annotations

from collections.abc import Mapping

from toolgrade._core.json_data import JsonValue
from toolgrade.bfcl._checker import Language
from toolgrade.bfcl._codec import schema_from_bfcl
from toolgrade.errors import InputError
from toolgrade.suite import ToolSpec

__all__ = ["tool_from_bfcl"]

_HINTS: dict[str, str] = {
    "python": " Note that the provided function is in Python 3 syntax.",
    "java": " Note that the provided function is in Java 8 SDK syntax.",
    "javascript": " Note that the provided function is in JavaScript syntax.",
}


def tool_from_bfcl(function: Mapping[str, JsonValue], language: Language) -> ToolSpec:
    """One BFCL function doc as a tool, described as BFCL describes it to the model.

    Raises:
        InputError: the doc has no name.
    """
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("a BFCL function doc has no name")
    description = function.get("description")
    text = (description if isinstance(description, str) else "") + _HINTS[language]
    parameters = function.get("parameters")
    schema = schema_from_bfcl(parameters if isinstance(parameters, Mapping) else {}, language)
    return ToolSpec(name=name, description=text, parameters=schema)
