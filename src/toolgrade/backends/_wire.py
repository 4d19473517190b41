"""Messages on the wire: safe tool names, and the two ways of offering tools.

OpenAI function names must match `^[A-Za-z0-9_-]{1,64}$`, so a suite tool called
`uber.ride` is sent as `uber_ride` and the calls that come back are renamed before
judging. In `prompt` mode the tools are described in the system prompt and earlier
tool calls and results of a conversation are written out as text, in a model family's
style (`_families.py`; Hermes by default), for servers that have no native tool support.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._families import DEFAULT_FAMILY
from toolgrade.backends._families import family as prompt_family
from toolgrade.suite import ToolSpec

__all__ = [
    "NameMap",
    "ollama_messages",
    "openai_messages",
    "safe_tool_name",
    "tools_system_prompt",
]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64


def safe_tool_name(name: str) -> str:
    """A name OpenAI-compatible servers accept: other characters become `_`, 64 at most.

    Examples:
        >>> safe_tool_name("uber.ride")
        'uber_ride'
    """
    return _UNSAFE.sub("_", name)[:_MAX_NAME] or "_"


@dataclass(frozen=True, slots=True)
class NameMap:
    """Suite tool names <-> names sent to the server (identical when already safe)."""

    to_server: dict[str, str]
    """Suite name -> name sent."""
    to_suite: dict[str, str]
    """Name sent -> suite name (only for names that changed)."""

    @classmethod
    def build(cls, names: Iterable[str], *, enabled: bool = True) -> NameMap:
        """Map every name to a unique safe name (`_2`, `_3`, ... resolve collisions).

        Examples:
            >>> NameMap.build(["uber.ride", "read_file"]).to_server["uber.ride"]
            'uber_ride'
        """
        originals = list(dict.fromkeys(names))
        taken = set(originals)
        to_server: dict[str, str] = {}
        for name in originals:
            safe = safe_tool_name(name) if enabled else name
            if safe != name:
                base, n = safe, 2
                while safe in taken:
                    suffix = f"_{n}"
                    safe, n = base[: _MAX_NAME - len(suffix)] + suffix, n + 1
                taken.add(safe)
            to_server[name] = safe
        safe_names = NameMap._safe_aliases(originals)
        to_suite = {v: k for k, v in to_server.items() if v != k}
        # A model that saw safe names may still answer with them when not sent (replay).
        for alias, name in safe_names.items():
            to_suite.setdefault(alias, name)
        return cls(to_server=to_server, to_suite=to_suite)

    @staticmethod
    def _safe_aliases(originals: Sequence[str]) -> dict[str, str]:
        known = set(originals)
        aliases: dict[str, str] = {}
        for name in originals:
            alias = safe_tool_name(name)
            if alias != name and alias not in known:
                aliases.setdefault(alias, name)
        return aliases

    def server_name(self, name: str) -> str:
        """The name to send for a suite tool name."""
        return self.to_server.get(name, name)

    def suite_name(self, name: str) -> str:
        """The suite's name for a name the model used."""
        return self.to_suite.get(name, name)

    def rename_tools(self, tools: Sequence[ToolSpec]) -> tuple[ToolSpec, ...]:
        """The tool definitions as the server should see them."""
        return tuple(
            t
            if self.server_name(t.name) == t.name
            else t.model_copy(update={"name": self.server_name(t.name)})
            for t in tools
        )

    def rename_messages(self, messages: Sequence[JsonObject]) -> tuple[JsonObject, ...]:
        """Rename the tools in earlier calls and tool answers of a conversation."""
        out: list[JsonObject] = []
        for message in messages:
            calls = message.get("tool_calls")
            if isinstance(calls, list):
                message = {**message, "tool_calls": [self._rename_call(c) for c in calls]}
            if message.get("role") == "tool" and isinstance(message.get("name"), str):
                message = {**message, "name": self.server_name(str(message["name"]))}
            out.append(message)
        return tuple(out)

    def _rename_call(self, call: JsonValue) -> JsonValue:
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            return {**call, "name": self.server_name(str(call["name"]))}
        return call


def tools_system_prompt(tools: Sequence[ToolSpec], family: str = DEFAULT_FAMILY) -> str:
    """The system prompt describing the tools (for `prompt` mode), Hermes-style by default."""
    return prompt_family(family).system(tools)


def _with_tool_prompt(
    messages: Sequence[JsonObject], tools: Sequence[ToolSpec], family: str
) -> list[JsonObject]:
    """Put the family's tool prompt in front of the system prompt, calls/results into text.

    Consecutive tool results become one user message (chat templates that want user
    and assistant to alternate accept it).
    """
    style = prompt_family(family)
    prompt = style.system(tools)
    out: list[JsonObject] = []
    rest = list(messages)
    if rest and rest[0].get("role") == "system":
        prompt = f"{prompt}\n\n{rest.pop(0).get('content') or ''}".rstrip()
    out.append({"role": "system", "content": prompt})
    results = False  # whether the last message out holds tool results
    for message in rest:
        role = message.get("role")
        calls = message.get("tool_calls")
        if role == "assistant" and isinstance(calls, list):
            written = style.calls([c for c in calls if isinstance(c, dict)])
            head = [str(message["content"])] if message.get("content") else []
            out.append({"role": "assistant", "content": "\n".join([*head, written])})
        elif role == "tool":
            name, call_id = message.get("name"), message.get("tool_call_id")
            content = message.get("content")
            text = style.result(
                name if isinstance(name, str) else "",
                call_id if isinstance(call_id, str) else "",
                "" if content is None else content,
            )
            if results:
                out[-1] = {"role": "user", "content": f"{out[-1]['content']}\n{text}"}
            else:
                out.append({"role": "user", "content": text})
            results = True
            continue
        else:
            out.append(dict(message))
        results = False
    return out


def openai_messages(
    messages: Sequence[JsonObject],
    *,
    tools: Sequence[ToolSpec],
    prompt_mode: bool,
    family: str = DEFAULT_FAMILY,
) -> list[JsonObject]:
    """Neutral messages -> OpenAI chat messages (arguments as JSON strings).

    A neutral call may carry its `id` (the `tool` message answering it names the same
    one in `tool_call_id`); a call without one gets `call_<message>_<n>`. An assistant
    message with calls and no text is sent with `content: ""`, which every server takes.
    In prompt mode `family` writes tools, calls and results as text.
    """
    if prompt_mode:
        return _with_tool_prompt(messages, tools, family)
    out: list[JsonObject] = []
    for index, message in enumerate(messages):
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            wire: list[JsonValue] = []
            for n, call in enumerate(calls):
                if isinstance(call, dict):
                    args = json.dumps(call.get("arguments") or {}, ensure_ascii=False)
                    fn: JsonObject = {"name": call.get("name"), "arguments": args}
                    given = call.get("id")
                    call_id = given if isinstance(given, str) and given else f"call_{index}_{n}"
                    wire.append({"id": call_id, "type": "function", "function": fn})
            # `content: null` beside tool calls is what OpenAI documents, but servers
            # that validate strictly (llama-cpp-python) refuse anything but a string.
            message = {**message, "content": message.get("content") or "", "tool_calls": wire}
        out.append(dict(message))
    return out


def ollama_messages(
    messages: Sequence[JsonObject],
    *,
    tools: Sequence[ToolSpec],
    prompt_mode: bool,
    family: str = DEFAULT_FAMILY,
) -> list[JsonObject]:
    """Neutral messages -> Ollama `/api/chat` messages (arguments as objects)."""
    if prompt_mode:
        return _with_tool_prompt(messages, tools, family)
    out: list[JsonObject] = []
    for message in messages:
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            wire: list[JsonValue] = [
                {"function": {"name": c.get("name"), "arguments": c.get("arguments") or {}}}
                for c in calls
                if isinstance(c, dict)
            ]
            message = {**message, "tool_calls": wire}
        if message.get("role") == "tool" and "name" in message:
            message = {k: v for k, v in message.items() if k != "name"} | {
                "tool_name": message["name"]
            }
        out.append(dict(message))
    return out
