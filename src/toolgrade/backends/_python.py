"""An agent in-process: `python/<module>:<function>`, sync or async.

The function receives the case's messages and tools (OpenAI shape) and returns an
assistant message, raw text, a list of calls, or its whole trajectory (an OpenAI-style
message list, for agents that run their own tools: kept as the raw output unchanged).

The module is looked for in the current folder too, as `python -m` and pytest do: the
console script's `sys.path` does not have it, so `python/my_agent:answer` failed from
`my_agent.py`'s own folder. The folder stays on `sys.path` while the backend is open
(the agent may import its neighbours lazily) and is taken off by `aclose()`.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from toolgrade._core.json_data import JsonObject, JsonValue, clean_text
from toolgrade._core.vocab import ToolCall
from toolgrade.backends._types import BackendSettings, ChatReply, ChatRequest, ServerInfo
from toolgrade.errors import BackendError, BackendTimeout, ConfigError
from toolgrade.extract import is_trajectory

__all__ = ["PythonBackend", "load_callable"]


def load_callable(target: str) -> Callable[..., Any]:
    """Import `module:function` (dots allowed in both parts).

    Raises:
        ConfigError: malformed target, module not importable, or not a callable.
    """
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"python backend needs 'module:function', got {target!r}")
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"cannot import {module_name!r}: {exc}") from None
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise ConfigError(f"{module_name!r} has no attribute {attr!r}") from None
    if not callable(value):
        raise ConfigError(f"{target!r} is not callable")
    return value  # type: ignore[no-any-return]


class PythonBackend:
    """Calls a Python function per case; sync functions run in a worker thread."""

    provider = "python"
    safe_names = False

    def __init__(self, target: str, settings: BackendSettings) -> None:
        self.model = target
        self._settings = settings
        self._added = _add_current_folder()
        try:
            self._fn = load_callable(target)
        except BaseException:
            self._remove_folder()
            raise

    def settings(self) -> JsonObject:
        """The callable's name."""
        return {"provider": self.provider, "callable": self.model}

    async def server_info(self) -> ServerInfo:
        """Nothing to check: the function was imported already."""
        return ServerInfo(identity={"callable": self.model})

    async def complete(self, request: ChatRequest) -> ChatReply:
        """Call the function with `(messages, tools)` and normalise what it returns."""
        messages = [dict(m) for m in request.messages]
        tools = [t.to_openai() for t in request.tools]
        try:
            if inspect.iscoroutinefunction(self._fn):
                value = await self._fn(messages, tools)
            else:
                # Not asyncio.to_thread: a thread of the default executor that never
                # returns blocks the process's exit. These are stopped when the case
                # times out or the run stops (see toolgrade._core.threads).
                from toolgrade._core.threads import default_pool

                value = await default_pool().call(
                    partial(self._fn, messages, tools), timeout=self._settings.timeout
                )
                if inspect.isawaitable(value):
                    value = await value
        except TimeoutError:
            raise BackendTimeout(
                f"{self.model} did not return within {self._settings.timeout:g} s"
            ) from None
        except Exception as exc:  # the agent's own failure is this case's error
            # Its message is the agent's text: half an emoji in it must not reach a file.
            message = clean_text(f"{self.model} raised {type(exc).__name__}: {exc}")
            raise BackendError(message) from exc
        return ChatReply(raw=_as_raw(value, self.model))

    async def aclose(self) -> None:
        """Take the current folder off `sys.path` again, if this backend put it there."""
        self._remove_folder()

    def _remove_folder(self) -> None:
        added, self._added = self._added, None
        if added is not None and added in sys.path:
            sys.path.remove(added)


def _add_current_folder() -> str | None:
    """Put the current folder first on `sys.path`; return it, or None if it was there."""
    try:
        here = Path.cwd()
    except OSError:  # the folder was deleted
        return None
    if any(_same_folder(entry, here) for entry in sys.path):
        return None
    sys.path.insert(0, str(here))
    return str(here)


def _same_folder(entry: str, folder: Path) -> bool:
    try:
        return Path(entry or ".").resolve() == folder.resolve()
    except (OSError, RuntimeError):
        return False


def _as_raw(value: object, target: str) -> JsonValue:
    """An assistant message, text, calls or a trajectory -> the raw output kept and extracted."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return _jsonable(value, target)
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        messages = [_dump_model(m) if _is_model(m) else m for m in value]
        if is_trajectory(messages):
            # The agent ran its own tools: keep its messages as they are, for the
            # conversation engine to read step by step (`extractable` reads the calls).
            return _jsonable(messages, target, what="messages that are")
        try:
            calls = [
                ToolCall.model_validate(c) if not isinstance(c, ToolCall) else c for c in value
            ]
        except ValueError as exc:
            raise BackendError(
                f"{target} returned a list that is neither calls nor messages: {exc}"
            ) from None
        wire: list[JsonValue] = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for n, c in enumerate(calls)
        ]
        return {"role": "assistant", "content": None, "tool_calls": wire}
    raise BackendError(
        f"{target} returned {type(value).__name__}; expected a message, text or a list of calls"
    )


def _jsonable(value: object, target: str, *, what: str = "a message that is") -> JsonValue:
    try:
        result: JsonValue = json.loads(json.dumps(value, default=_dump_model))
    except (TypeError, ValueError) as exc:
        raise BackendError(f"{target} returned {what} not JSON: {exc}") from None
    return result


def _is_model(value: object) -> bool:
    """A pydantic model other than a call (an SDK's message object, say)."""
    return not isinstance(value, ToolCall) and callable(getattr(value, "model_dump", None))


def _dump_model(value: object) -> object:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
