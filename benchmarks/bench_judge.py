"""Benchmark: judge on a 3-call case (target: median < 100 us).

The measured case is realistic for a coding agent: three tools with JSON Schemas
(required arguments, a default, `additionalProperties: false`), three expected calls
(one argument a `$approx` matcher), and the model's three calls in another order with
the usual noise (a `./` path, a trailing space, numbers sent as strings). Everything is
judged: coercion, comparison, schema validation, optimal pairing, the CaseResult.
For information, a wrong-arguments variant (the details path) and a 10-call case are
timed too.

Run: .venv/bin/python benchmarks/bench_judge.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _timing import describe, time_calls

from toolgrade import Case, ToolSpec, judge
from toolgrade.calls import as_calls

TARGET_US = 100.0

TOOLS = [
    ToolSpec(
        name="search",
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "max_results": {"type": "integer", "default": 50},
            },
            "required": ["pattern"],
        },
    ),
    ToolSpec(
        name="read_file",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        name="run_command",
        parameters={
            "type": "object",
            "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}},
            "required": ["command"],
        },
    ),
]

CASE = Case.model_validate(
    {
        "id": "bench-3",
        "prompt": "Find the TODOs in src, read the README, run the tests.",
        "expected": [
            {"name": "search", "arguments": {"pattern": "TODO", "path": "src"}},
            {"name": "read_file", "arguments": {"path": "README.md"}},
            {
                "name": "run_command",
                "arguments": {"command": "pytest -q", "timeout": {"$approx": 30, "tol": 1}},
            },
        ],
    }
)
ACTUAL = as_calls(
    [
        {"name": "read_file", "arguments": {"path": "./README.md"}},
        {"name": "search", "arguments": {"pattern": "TODO ", "path": "src/", "max_results": "50"}},
        {"name": "run_command", "arguments": {"command": "pytest -q", "timeout": "30"}},
    ]
)
WRONG = as_calls(
    [
        {"name": "read_file", "arguments": {"path": "README.rst"}},
        {"name": "search", "arguments": {"pattern": "FIXME", "path": "src"}},
        {"name": "run_command", "arguments": {"command": "pytest -q", "timeout": 5}},
    ]
)
TEN_CASE = Case.model_validate(
    {
        "id": "bench-10",
        "prompt": "p",
        "expected": [
            {"name": "read_file", "arguments": {"path": f"src/m{k}.py"}} for k in range(10)
        ],
    }
)
TEN_ACTUAL = as_calls(
    [{"name": "read_file", "arguments": {"path": f"./src/m{k}.py"}} for k in reversed(range(10))]
)


def run(label: str, case: Case, actual: object, *, target: bool) -> bool:
    result = judge(case, actual, tools=TOOLS)  # type: ignore[arg-type]
    samples = time_calls(lambda: judge(case, actual, tools=TOOLS), repeat=3000, warmup=200)  # type: ignore[arg-type]
    note = f" (target median < {TARGET_US:.0f} us)" if target else " (information)"
    print(f"judge, {label} [{result.status.value}]: {describe(samples)}{note}")
    return statistics.median(samples) < TARGET_US or not target


def main() -> int:
    ok = run("3-call case, correct with noise", CASE, ACTUAL, target=True)
    run("3-call case, every call wrong_args", CASE, WRONG, target=False)
    run("10 parallel calls of one tool, permuted", TEN_CASE, TEN_ACTUAL, target=False)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
