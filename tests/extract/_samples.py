"""One call template per text format, to build outputs with many calls or odd values.

`TEMPLATES[name]` is (prefix, call, joiner, suffix). In `call`, `@I` is the call's index
(the tool is `f@I`) and `@V` the raw text of its one argument `a` (a JSON value, a
Python literal or bare text, as the format writes it).
"""

from __future__ import annotations

from toolgrade.extract._registry import text_formats

_J = '{"name": "f@I", "arguments": {"a": @V}}'
_DS = "\uff5c"  # DeepSeek's fullwidth bar
_SP = "\u2581"  # DeepSeek's space
_INVOKE = '<invoke name="f@I"><parameter name="a">@V</parameter></invoke>'

TEMPLATES: dict[str, tuple[str, str, str, str]] = {
    "seed_oss": (
        "",
        "<seed:tool_call><function=f@I><parameter=a>@V</parameter></function></seed:tool_call>",
        "\n",
        "",
    ),
    "qwen3_coder": (
        "",
        "<tool_call>\n<function=f@I>\n<parameter=a>\n@V\n</parameter>\n</function>\n</tool_call>",
        "\n",
        "",
    ),
    "hunyuan": (
        "<tool_calls>",
        "<tool_call>f@I<tool_sep><arg_key>a</arg_key><arg_value>@V</arg_value></tool_call>",
        "\n",
        "</tool_calls>",
    ),
    "glm45": (
        "",
        "<tool_call>f@I\n<arg_key>a</arg_key>\n<arg_value>@V</arg_value>\n</tool_call>",
        "\n",
        "",
    ),
    "minimax_m2": ("<minimax:tool_call>", _INVOKE, "\n", "</minimax:tool_call>"),
    "anthropic_xml": ("<function_calls>", _INVOKE, "\n", "</function_calls>"),
    "olmo3": ("<function_calls>", "f@I(a=@V)", "\n", "</function_calls>"),
    "deepseek_v32": (
        f"<{_DS}DSML{_DS}function_calls>",
        f'<{_DS}DSML{_DS}invoke name="f@I"><{_DS}DSML{_DS}parameter name="a" string="false">@V'
        f"</{_DS}DSML{_DS}parameter></{_DS}DSML{_DS}invoke>",
        "\n",
        f"</{_DS}DSML{_DS}function_calls>",
    ),
    "step3": (
        "",
        '<steptml:invoke name="f@I"><steptml:parameter name="a">@V</steptml:parameter>'
        "</steptml:invoke>",
        "\n",
        "",
    ),
    "deepseek_v3": (
        f"<{_DS}tool{_SP}calls{_SP}begin{_DS}>",
        f"<{_DS}tool{_SP}call{_SP}begin{_DS}>function<{_DS}tool{_SP}sep{_DS}>f@I\n```json\n"
        '{"a": @V}\n```' + f"<{_DS}tool{_SP}call{_SP}end{_DS}>",
        "",
        f"<{_DS}tool{_SP}calls{_SP}end{_DS}>",
    ),
    "deepseek_v31": (
        f"<{_DS}tool{_SP}calls{_SP}begin{_DS}>",
        f"<{_DS}tool{_SP}call{_SP}begin{_DS}>f@I<{_DS}tool{_SP}sep{_DS}>"
        '{"a": @V}' + f"<{_DS}tool{_SP}call{_SP}end{_DS}>",
        "",
        f"<{_DS}tool{_SP}calls{_SP}end{_DS}>",
    ),
    "kimi_k2": (
        "<|tool_calls_section_begin|>",
        '<|tool_call_begin|>functions.f@I:0<|tool_call_argument_begin|>{"a": @V}<|tool_call_end|>',
        "",
        "<|tool_calls_section_end|>",
    ),
    "harmony": (
        "",
        "<|start|>assistant<|channel|>commentary to=functions.f@I <|constrain|>json<|message|>"
        '{"a": @V}<|call|>',
        "",
        "",
    ),
    "lfm2": ("<|tool_call_start|>[", "f@I(a=@V)", ", ", "]<|tool_call_end|>"),
    "functiongemma": (
        "",
        "<start_function_call>call:f@I{a:@V}<end_function_call>",
        "",
        "",
    ),
    "gemma4": ("", "<|tool_call>call:f@I{a:@V}<tool_call|>", "", ""),
    "apertus": ("<|tools_prefix|>[", '{"f@I": {"a": @V}}', ", ", "]<|tools_suffix|>"),
    "longcat": ("", f"<longcat_tool_call>{_J}</longcat_tool_call>", "\n", ""),
    "minimax_m1": ("<tool_calls>\n", _J, "\n", "\n</tool_calls>"),
    "gigachat3": ("function call<|role_sep|>[", _J, ", ", "]"),
    "granite_20b_fc": ("", f"<function_call> {_J}", "\n", ""),
    "hermes": ("", f"<tool_call>\n{_J}\n</tool_call>", "\n", ""),
    "mistral": ("", f"[TOOL_CALLS][{_J}]", "", ""),
    "llama3_json": ("<|python_tag|>", _J.replace("arguments", "parameters"), "; ", "<|eom_id|>"),
    "granite": ("", f"<|tool_call|>[{_J}]", "\n", ""),
    "phi4_mini": ("", f"functools[{_J}]", "\n", ""),
    "jamba": ("", f"<tool_calls>[{_J}]</tool_calls>", "\n", ""),
    "internlm2": ("", f"<|action_start|><|plugin|>\n{_J}<|action_end|>", "\n", ""),
    "command_r7b": (
        "",
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f@I", "parameters": {"a": @V}}]'
        "<|END_ACTION|>",
        "\n",
        "",
    ),
    "functionary_v3": ("", '>>>f@I\n{"a": @V}', "", ""),
    "functionary_v31": ("", '<function=f@I>{"a": @V}</function>', "", ""),
    "xlam": ("[", _J, ", ", "]"),
    "fenced_json": ("", f"```json\n{_J}\n```", "\n", ""),
    "gemma_tool_code": ("```tool_code\n", "f@I(a=@V)", "\n", "\n```"),
    "json": ("Calling ", _J, " and ", "."),
    "pythonic": ("[", "f@I(a=@V)", ", ", "]"),
}
"""Every text format's call template (a test checks none is missing)."""

STRUCTURED = ("openai", "ollama")
"""Structured formats that hold a list of calls (`openai_function_call` holds one)."""


def sample(name: str, count: int = 1, value: str = "1") -> str:
    """Text in format `name` holding `count` calls `f0`, `f1`, ... with `a` = `value`."""
    prefix, call, joiner, suffix = TEMPLATES[name]
    calls = (call.replace("@I", str(i)).replace("@V", value) for i in range(count))
    return prefix + joiner.join(calls) + suffix


def structured(name: str, count: int, value: object = 1) -> dict[str, object]:
    """An assistant message in structured format `name` with `count` calls."""
    calls: list[dict[str, object]] = []
    for i in range(count):
        arguments: object = {"a": value}
        if name == "openai":
            arguments = '{"a": %s}' % value  # noqa: UP031 (raw text on purpose)
        calls.append({"type": "function", "function": {"name": f"f{i}", "arguments": arguments}})
    return {"role": "assistant", "content": None, "tool_calls": calls}


def text_format_names() -> list[str]:
    """Every text format, in detection order."""
    return [fmt.name for fmt in text_formats()]
