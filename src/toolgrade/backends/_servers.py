"""Which OpenAI-compatible server answers, and how many requests it serves at once.

Servers give themselves away in `GET /v1/models` and the response headers:

| Server | Tell-tale |
|---|---|
| llama.cpp `llama-server` | `Server: llama.cpp` header; `owned_by: "llamacpp"`; has `/props` |
| llama-cpp-python | `owned_by: "me"` (its `/v1/models`); served by uvicorn |
| vLLM | `owned_by: "vllm"` |
| SGLang | `owned_by: "sglang"` |
| LM Studio | `owned_by: "organization_owner"` |

llama-server says how many slots it has (`total_slots` in `/props`, else the length
of `/slots`). llama-cpp-python serves one request at a time behind a lock, and by
default cuts a running stream short when another request arrives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._http import JsonHttp
from toolgrade.errors import BackendError

__all__ = ["ServerKind", "detect_server", "server_root", "server_slots"]

ServerKind = Literal["llama-server", "llama-cpp-python", "vllm", "sglang", "lmstudio"]
"""The servers toolgrade recognises (recorded as `identity["server"]`)."""

_OWNERS: dict[str, ServerKind] = {
    "llamacpp": "llama-server",
    "me": "llama-cpp-python",
    "vllm": "vllm",
    "sglang": "sglang",
    "organization_owner": "lmstudio",
}
_HEADERS: dict[str, ServerKind] = {"llama.cpp": "llama-server", "vllm": "vllm"}


def detect_server(listing: JsonValue, headers: Mapping[str, str]) -> ServerKind | None:
    """The server behind an OpenAI-compatible URL, from its model list and headers.

    Examples:
        >>> detect_server({"data": [{"id": "m", "owned_by": "me"}]}, {})
        'llama-cpp-python'
        >>> detect_server(None, {"server": "llama.cpp"})
        'llama-server'
        >>> detect_server({"data": []}, {"server": "uvicorn"}) is None
        True
    """
    header = headers.get("server", "").lower()
    for prefix, kind in _HEADERS.items():
        if header.startswith(prefix):
            return kind
    entries = listing.get("data") if isinstance(listing, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        owner = entry.get("owned_by") if isinstance(entry, dict) else None
        if isinstance(owner, str) and owner in _OWNERS:
            return _OWNERS[owner]
    return None


def server_root(base_url: str) -> str:
    """The server's root URL: llama-server's `/props` and `/slots` are not under `/v1`.

    Examples:
        >>> server_root("http://localhost:8080/v1")
        'http://localhost:8080'
    """
    return base_url.rstrip("/").removesuffix("/v1")


async def server_slots(http: JsonHttp, kind: ServerKind, identity: JsonObject) -> int | None:
    """How many requests the server answers at once, when it says (1 = one at a time).

    Records llama-server's `build_info` in `identity` as `server_version`.
    """
    if kind == "llama-cpp-python":
        return 1
    if kind != "llama-server":
        return None
    root = server_root(http.base_url)
    props = await _get_or_none(http, f"{root}/props")
    if isinstance(props, dict):
        build = props.get("build_info")
        if isinstance(build, str) and build:
            identity["server_version"] = build
        total = props.get("total_slots")
        if isinstance(total, int) and not isinstance(total, bool) and total > 0:
            return total
    slots = await _get_or_none(http, f"{root}/slots")
    if isinstance(slots, list) and slots:
        return len(slots)
    return None


async def _get_or_none(http: JsonHttp, url: str) -> JsonValue:
    try:
        return await http.get(url, retries=False)
    except BackendError:
        return None  # disabled (`--no-slots`) or missing: it says nothing bad
