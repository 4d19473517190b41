"""Values as plain strings: how rates, calls, prompts, JSON and labels read in reports.

Model text is untrusted. These helpers only turn values into plain strings; each format
escapes them for its own medium (terminal control characters with `terminal_safe`,
HTML and XML in their writers).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from toolgrade._core.json_data import JsonValue
from toolgrade._core.transcript import ConversationMode
from toolgrade._core.vocab import ToolCall

__all__ = [
    "NO_CALL",
    "TEXT_CHARS",
    "args_text",
    "call_text",
    "calls_text",
    "clip",
    "count_text",
    "flat",
    "json_text",
    "label",
    "mode_label",
    "pct",
    "percentiles",
    "prompt_text",
    "terminal_safe",
]

NO_CALL = "(no tool call)"
TEXT_CHARS = 240
"""What `flat` cuts a text to by default: a few lines' worth."""

# C0/C1 control characters other than tab and newline: a model output holding ANSI
# escape sequences must not be able to repaint the reader's terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

_MODES: dict[str, str] = {
    "on_policy": "on-policy",
    "teacher_forced": "teacher-forced",
}


def pct(rate: float) -> str:
    """A fraction as a percentage with one decimal: 0.84 -> `84.0%`."""
    return f"{rate * 100:.1f}%"


def label(key: str) -> str:
    """A category name as a heading: `simple` -> `Simple`."""
    return key[:1].upper() + key[1:]


def clip(text: str, limit: int) -> str:
    """Cut `text` to `limit` characters, marking the cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + "…"


def terminal_safe(text: str) -> str:
    """Replace control characters (ANSI escapes, NUL, ...) by visible hex escapes."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def flat(text: str, limit: int = TEXT_CHARS) -> str:
    r"""Text on one line (line breaks as `⏎`), cut to `limit` characters.

    Examples:
        >>> flat("two\nlines")
        'two ⏎ lines'
    """
    one_line = " ⏎ ".join(part.strip() for part in text.strip().splitlines())
    return clip(one_line, limit)


def count_text(n: int, noun: str) -> str:
    """`1 call`, `2 calls`."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def mode_label(mode: ConversationMode | str) -> str:
    """`on_policy` -> `on-policy`, `teacher_forced` -> `teacher-forced`.

    Examples:
        >>> mode_label("teacher_forced")
        'teacher-forced'
    """
    return _MODES.get(mode, mode)


# One encoder each, made once: json.dumps builds a new encoder per call whenever an
# option differs from its defaults, which dominated the cost of large reports.
_COMPACT = json.JSONEncoder(ensure_ascii=False)
_INDENTED = json.JSONEncoder(ensure_ascii=False, indent=2)


def json_text(value: JsonValue, *, indent: bool = False) -> str:
    """A JSON value as JSON text (indented by 2 if asked), key order and non-ASCII kept."""
    return (_INDENTED if indent else _COMPACT).encode(value)


def args_text(arguments: Mapping[str, JsonValue]) -> str:
    """Arguments as `key=value, ...`, values in JSON: `pattern="main", path="src"`."""
    return ", ".join(f"{k}={json_text(v)}" for k, v in arguments.items())


def call_text(call: ToolCall) -> str:
    """A call as `name(key=value, ...)`, values in JSON: `search(pattern="main")`."""
    return f"{call.name}({args_text(call.arguments)})"


def calls_text(calls: Sequence[ToolCall]) -> str:
    """Several calls separated by `; `, or `(no tool call)`."""
    return "; ".join(call_text(c) for c in calls) if calls else NO_CALL


def prompt_text(prompt: JsonValue) -> str:
    """The prompt as plain text: a string as is, chat messages as `role: content` lines."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        lines = []
        for message in prompt:
            if isinstance(message, dict) and isinstance(message.get("content"), str):
                lines.append(f"{message.get('role', '?')}: {message['content']}")
            else:
                lines.append(json_text(message))
        return "\n".join(lines)
    return "" if prompt is None else json_text(prompt)


def percentiles(values: Sequence[float], *qs: float) -> tuple[float, ...] | None:
    """Linearly interpolated percentiles (numpy's default method); None without values."""
    if not values:
        return None
    ordered = sorted(values)
    out = []
    for q in qs:
        position = (len(ordered) - 1) * q / 100
        low = int(position)
        high = min(low + 1, len(ordered) - 1)
        out.append(ordered[low] + (ordered[high] - ordered[low]) * (position - low))
    return tuple(out)
