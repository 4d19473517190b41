"""The server flag that would parse a call format, per server software.

When a call reaches the client only as text, the fix is on the server: the tool-call
parser for the model's format (vLLM, SGLang), a chat template that knows tools
(llama-server, llama-cpp-python, Ollama, LM Studio). The parser names are the servers'
own registries: vLLM's `vllm/tool_parsers/__init__.py` and SGLang's
`FunctionCallParser.ToolCallParserEnum` (both read 2026-12-08).
"""

from __future__ import annotations

from collections.abc import Mapping

from toolgrade._core.json_data import JsonValue

__all__ = ["SERVER_FIXES", "parser_hint", "server_of"]

_PREFIX_FIX = (
    "llama-cpp-python's chatml-function-calling handler (tool_choice=auto) lets a message"
    " hold only a function's name: serve the model with its GGUF's own chat template"
    " (no --chat_format), or with llama-server --jinja"
)

_VLLM: dict[str, str] = {
    "hermes": "hermes",
    "mistral": "mistral",
    "llama3_json": "llama3_json",
    "pythonic": "pythonic",
    "granite": "granite",
    "granite_20b_fc": "granite-20b-fc",
    "internlm2": "internlm",
    "jamba": "jamba",
    "xlam": "xlam",
    "phi4_mini": "phi4_mini_json",
    "deepseek_v3": "deepseek_v3",
    "deepseek_v31": "deepseek_v31",
    "deepseek_v32": "deepseek_v32",
    "kimi_k2": "kimi_k2",
    "glm45": "glm45",
    "qwen3_coder": "qwen3_coder",
    "seed_oss": "seed_oss",
    "minimax_m2": "minimax_m2",
    "step3": "step3",
    "harmony": "openai",
    "hunyuan": "hy_v3",
    "longcat": "longcat",
    "functiongemma": "functiongemma",
    "gemma4": "gemma4",
    "gigachat3": "gigachat3",
    "olmo3": "olmo3",
    "lfm2": "lfm2",
    "apertus": "apertus",
}
"""toolgrade's format name → vLLM's `--tool-call-parser` name."""

_SGLANG: dict[str, str] = {
    "hermes": "qwen",
    "mistral": "mistral",
    "llama3_json": "llama3",
    "pythonic": "pythonic",
    "deepseek_v3": "deepseekv3",
    "deepseek_v31": "deepseekv31",
    "deepseek_v32": "deepseekv32",
    "kimi_k2": "kimi_k2",
    "glm45": "glm45",
    "qwen3_coder": "qwen3_coder",
    "step3": "step3",
    "minimax_m2": "minimax-m2",
    "harmony": "gpt-oss",
}
"""toolgrade's format name → SGLang's `--tool-call-parser` name."""

SERVER_FIXES: Mapping[str, str] = {
    "vllm": "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser>",
    "llama-server": "start llama-server with --jinja",
    "llama-cpp-python": (
        "start llama-cpp-python with --chat_format chatml-function-calling (or a GGUF whose"
        " chat template supports tools) and send --option tool_choice=auto"
    ),
    "sglang": "start SGLang with --tool-call-parser <parser>",
    "ollama": "use a model whose template supports tools (ollama show MODEL)",
    "lmstudio": "load a model whose chat template supports tools",
}
"""What makes each server return structured calls, whatever the format."""

_LLAMA_CPP_PYTHON_FIX = (
    "llama-cpp-python parses calls only with a tool chat handler (--chat_format"
    " chatml-function-calling and --option tool_choice=auto), which can lose them"
    " (docs/serving.md); llama-server --jinja parses the common formats"
)

# What a provider prefix most likely is when the server did not give itself away.
_PROVIDER_KINDS = {
    "llamacpp": "llama-server",
    "vllm": "vllm",
    "sglang": "sglang",
    "ollama": "ollama",
    "lmstudio": "lmstudio",
}


def server_of(server: Mapping[str, JsonValue], model: str) -> str:
    """The server software of a run: what it said about itself, else its provider's.

    Examples:
        >>> server_of({"server": "vllm"}, "openai/qwen")
        'vllm'
        >>> server_of({}, "ollama/qwen3:8b"), server_of({}, "openai/x")
        ('ollama', '')
    """
    found = server.get("server")
    if isinstance(found, str) and found:
        return found
    return _PROVIDER_KINDS.get(model.partition("/")[0], "")


def parser_hint(fmt: str | None, server: str) -> str | None:
    """The flag to try when calls in format `fmt` reach the client only as text.

    Args:
        fmt: the format the calls were read in (`Extraction.format`).
        server: the server software (`server_of`), `""` when unknown.

    Returns:
        One sentence (the format itself is named where the hint is shown); None when
        there is no format. A format no server parses (bare or fenced JSON) gets the same
        advice on every server: measure the model in prompt mode, or give it a template
        with a tool-call format.

    Examples:
        >>> parser_hint("hermes", "vllm")
        'start vLLM with --enable-auto-tool-choice --tool-call-parser hermes'
        >>> parser_hint("llama3_json", "sglang")
        'start SGLang with --tool-call-parser llama3'
        >>> parser_hint("fenced_json", "vllm")[:32]
        'no vLLM parser reads this format'
        >>> parser_hint("json", "llama-server")[:46]
        "no server's tool-call parser reads this format"
    """
    if not fmt or fmt == "none":
        return None
    if fmt == "call_prefix":  # serving.CALL_PREFIX: `functions.NAME:` and nothing more
        return _PREFIX_FIX
    parsers = {"vllm": _VLLM, "sglang": _SGLANG}.get(server)
    if parsers is not None:
        name = "vLLM" if server == "vllm" else "SGLang"
        parser = parsers.get(fmt)
        if parser is None:
            return (
                f"no {name} parser reads this format: serve the model with a chat template"
                " that gives it a tool-call format, or run with --mode prompt"
            )
        return SERVER_FIXES[server].replace("<parser>", parser)
    if fmt not in _VLLM and fmt not in _SGLANG:
        return (
            "no server's tool-call parser reads this format as the model writes it: run"
            " with --mode prompt to measure the model, or serve it with a chat template"
            " that gives it a tool-call format"
        )
    if server == "llama-cpp-python":
        return _LLAMA_CPP_PYTHON_FIX
    if server in SERVER_FIXES:
        return SERVER_FIXES[server]
    known = [f"vLLM --tool-call-parser {_VLLM[fmt]}"] if fmt in _VLLM else []
    known += [f"SGLang --tool-call-parser {_SGLANG[fmt]}"] if fmt in _SGLANG else []
    if not known:
        return None
    return "the server's tool-call parser for this format: " + "; ".join(known)
