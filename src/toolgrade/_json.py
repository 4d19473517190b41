"""JSON type aliases shared by every module."""

from __future__ import annotations

from pydantic import JsonValue

__all__ = ["JsonObject", "JsonValue"]

JsonObject = dict[str, JsonValue]
"""A JSON object: the arguments of a tool call, a JSON Schema, a message."""
