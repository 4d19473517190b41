"""Hypothesis strategies: inputs built from one format's own markers and grammar.

Each format's fragments come from its example outputs (tests/data/extract/<format>/),
its call template (`_samples.TEMPLATES`) and its markers, cut at tag and punctuation
boundaries, and are mixed with brackets, quotes, braces, long numbers and truncations.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from hypothesis import strategies as st

from toolgrade.extract._registry import find_format

from ._samples import TEMPLATES, sample

DATA = Path(__file__).parent.parent / "data" / "extract"

# Tags and special tokens whole, punctuation one by one, other text in runs.
_PIECE = re.compile(
    r"<[^<>\n]{1,48}>|\[[A-Z_]{2,20}\]|```[a-z_]*|[{}\[\]()\"',:;=\n\\]|[^<>{}\[\]()\"',:;=\n\\`]+|.",
    re.DOTALL,
)
HOSTILE: tuple[str, ...] = (
    "{", "}", "[", "]", "(", ")", '"', "'", "\\", '\\"', ":", ",", ";", "=", "<", ">", "/",
    "\n", " ", "\t", "-", ".", "e", "0", "1", "9" * 30, "1" * 700, "0x" + "f" * 600, "1e999",
    "true", "null", "None", "<|", "|>", "```", "```json\n", "{}", "[]", '{"', '":', "</",
    "\u2581", "\uff5c", "\ud7ff", "é",
)  # fmt: skip


@cache
def examples(name: str) -> tuple[str, ...]:
    """The format's example outputs that are text, and its call template filled in."""
    texts: list[str] = []
    for path in sorted((DATA / name).glob("*.json")):
        output = json.loads(path.read_text(encoding="utf-8"))["input"]
        if isinstance(output, str):
            texts.append(output)
    if name in TEMPLATES:
        texts += [sample(name, 1), sample(name, 2, '"x"'), sample(name, 1, "[1, {}]")]
    return tuple(texts) or ("",)


@cache
def fragments(name: str) -> tuple[str, ...]:
    """Distinct pieces of the format's examples, template and markers."""
    pieces: set[str] = set()
    for text in examples(name):
        pieces.update(_PIECE.findall(text))
    if name in TEMPLATES:
        for part in TEMPLATES[name]:
            pieces.update(_PIECE.findall(part.replace("@I", "0").replace("@V", "1")))
    fmt = find_format(name)
    if fmt is not None:
        pieces.update(fmt.markers)
    return tuple(sorted(p for p in pieces if p))


def _pieces(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from(fragments(name)) | st.sampled_from(HOSTILE) | st.text(max_size=4)


# A small alphabet, so that every opener meets every wrong closer (`[}`) often.
_SYNTAX = ("[", "]", "{", "}", ",", "1", "k:", '"')
_OPENERS = ("[", "{", "[[", "[{", "{k:[", "(", "[(", '["', "'[")
_CLOSERS = ("", "]", "}", ")", "}}", "]]", "]}", "}]", '"}', "',")
_MORE_SYNTAX = ("(", ")", "'", "=", "\\", " ", "a", "-", ".")


@st.composite
def fuzz_text(draw: st.DrawFn, name: str, *, max_pieces: int = 40) -> str:
    """Marker soup, a call with a garbled value, a mutated or a truncated example."""
    piece = _pieces(name)
    kind = draw(st.sampled_from(("soup", "value", "value", "mutate", "truncate")))
    if kind == "soup":
        return "".join(draw(st.lists(piece, max_size=max_pieces)))
    if kind == "value" and name in TEMPLATES:
        # The value parser gets brackets, quotes and braces in every order.
        syntax = st.sampled_from(_SYNTAX)
        if draw(st.booleans()):
            syntax = st.one_of(
                syntax, syntax, st.sampled_from(_MORE_SYNTAX), st.sampled_from(fragments(name))
            )
        value = "".join(draw(st.lists(syntax, min_size=1, max_size=8)))
        if draw(st.booleans()):
            # Mismatched nesting: an opener closed by the wrong bracket, or never.
            value = draw(st.sampled_from(_OPENERS)) + value + draw(st.sampled_from(_CLOSERS))
        text = sample(name, draw(st.integers(1, 3)), value)
        if draw(st.integers(0, 3)) == 0:
            text = text[: draw(st.integers(0, len(text)))]
        return text
    base = draw(st.sampled_from(examples(name)))
    if kind == "truncate":
        cut = draw(st.integers(0, len(base)))
        return base[:cut] + "".join(draw(st.lists(piece, max_size=max_pieces // 4)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(base)))
        action = draw(st.sampled_from(("insert", "delete", "repeat")))
        if action == "insert":
            base = base[:at] + draw(piece) + base[at:]
        elif action == "delete":
            base = base[:at] + base[at + draw(st.integers(1, 20)) :]
        else:
            part = base[at : at + draw(st.integers(1, 30))]
            base = base[:at] + part * draw(st.integers(2, 8)) + base[at:]
    return base


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)


@st.composite
def fuzz_message(draw: st.DrawFn, name: str) -> dict[str, object]:
    """An assistant message (or response) for a structured format, arguments fuzzed."""
    arguments = draw(fuzz_text("json") | _json_values)
    function: dict[str, object] = {"name": draw(st.sampled_from(("f", "", "a b")) | st.text()),
                                   "arguments": arguments}  # fmt: skip
    calls = draw(st.lists(st.just({"type": "function", "function": function}), max_size=3))
    content = draw(st.none() | fuzz_text("hermes", max_pieces=10))
    if name == "openai_function_call":
        message: dict[str, object] = {"role": "assistant", "content": content,
                                      "function_call": function}  # fmt: skip
    else:
        message = {"role": "assistant", "content": content, "tool_calls": calls}
    return {"message": message} if name == "ollama" else message
