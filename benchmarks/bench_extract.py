"""Benchmark: extract_calls over every example output, and on 1 MB hostile input.

Targets (issue 4): median < 50 us and p99 < 1 ms per output of up to 8 KB, over the whole
example set (tests/data/extract/**.json, auto-detection, tools as in each example); each
hostile input of about 1 MB handled in < 100 ms.

Run: .venv/bin/python benchmarks/bench_extract.py
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _timing import describe, time_calls

from toolgrade import extract_calls
from toolgrade.suite import ToolSpec

DATA = Path(__file__).parents[1] / "tests" / "data" / "extract"
MEDIAN_US, P99_US, HOSTILE_MS = 50.0, 1000.0, 100.0
MAX_EXAMPLE_CHARS = 8 * 1024
NEAR = 1_000_000 - 100


def examples() -> list[tuple[object, list[str] | None]]:
    out: list[tuple[object, list[str] | None]] = []
    for path in sorted(DATA.rglob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if len(json.dumps(case["input"])) <= MAX_EXAMPLE_CHARS:
            out.append((case["input"], case.get("tools") or list(case.get("tool_schemas", {}))))
    return out


HOSTILE = {
    "over 1 MB of text": "a" * (NEAR + 200),
    "1 MB of '{'": "{" * NEAR,
    "1 MB of '['": "[" * NEAR,
    "1 MB of '\"'": '"' * NEAR,
    "1 MB of '<'": "<" * NEAR,
    "1 MB of '<|'": "<|" * (NEAR // 2),
    "1 MB deep JSON in <tool_call>": "<tool_call>" + '{"a": ' * (NEAR // 7) + "</tool_call>",
    "1 MB of repeated call prefixes": '{"name": "f", "arguments": ' * (NEAR // 28),
    "1 MB of <tool_call>": "<tool_call>" * (NEAR // 11),
    "1 MB of [TOOL_CALLS]": "[TOOL_CALLS]" * (NEAR // 12),
    "1 MB of >>>f\\n{": ">>>f\n{" * (NEAR // 6),
    "1 MB of ```json fences": "```json\n{" * (NEAR // 9),
    "1 MB of <think>": "<think>" * (NEAR // 7),
    "1 MB of prose": "The weather in Paris is mild today. " * (NEAR // 36),
    "1 MB of pythonic calls": "[f(a=1), " * (NEAR // 9),
    # Issue "no input can hang a run": each of these hung or took seconds before.
    "1 MB of Gemma 4 `[}` calls": "<|tool_call>call:n{s:[}}<tool_call|>" * (NEAR // 36),
    "1 MB of FunctionGemma `[}` calls": (
        "<start_function_call>call:f{a:[}}<end_function_call>" * (NEAR // 53)
    ),
    "1 MB of 5,000-digit integers in <tool_call>": (
        '<tool_call>{"name": "f", "arguments": {"a": ' + "1" * 5000 + "}}</tool_call>"
    )
    * (NEAR // 5060),
    "1 MB of call objects in one fence, each broken at its end": (
        "```json\n"
        + ('{"name": "f", "arguments": {"a": [' + "1, " * 60 + "}}\n") * (NEAR // 220)
        + "```"
    ),
    "1 MB fence of lines opening objects that never close": (
        "```json\n" + '{"name": "f", "arguments": {"a":\n' * (NEAR // 34) + "```"
    ),
    "1 MB of Qwen3-Coder parameters, then `</parameter>x`": (
        "<tool_call><function=f>"
        + "<parameter=a>\n" * (NEAR // 28)
        + "</parameter>x" * (NEAR // 28)
        + "</function></tool_call>"
    ),
}
NUMBER_TOOL = [
    ToolSpec(name="f", parameters={"type": "object", "properties": {"a": {"type": "number"}}})
]
HOSTILE_WITH_TOOLS = {
    # `\d{1,400}\.?\d{0,400}` tried every split of a long digit run: ~10 ms per value.
    "1 MB of 801-digit XML values typed as numbers": (
        '<function_calls><invoke name="f">'
        + "".join(f'<parameter name="a">{"1" * 801}</parameter>' for _ in range(NEAR // 840))
        + "</invoke></function_calls>"
    ),
}


def main() -> int:
    samples: list[float] = []
    cases = examples()
    for output, tools in cases:
        samples += time_calls(
            lambda o=output, t=tools: extract_calls(o, tools=t or None),  # type: ignore[misc]
            repeat=30,
            warmup=3,
        )
    ordered = sorted(samples)
    median = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    ok = median < MEDIAN_US and p99 < P99_US
    print(
        f"extract_calls, {len(cases)} example outputs <= 8 KB: {describe(samples)}"
        f" (target median < {MEDIAN_US:.0f} us, p99 < {P99_US:.0f} us)"
    )
    hostile = [(label, text, None) for label, text in HOSTILE.items()]
    hostile += [(label, text, NUMBER_TOOL) for label, text in HOSTILE_WITH_TOOLS.items()]
    for label, text, tools in hostile:
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            extract_calls(text, tools=tools)
            runs.append((time.perf_counter() - start) * 1000)
        best = min(runs)
        ok = ok and best < HOSTILE_MS
        print(f"hostile, {label}: {best:.1f} ms (target < {HOSTILE_MS:.0f} ms)")
    print("all targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
