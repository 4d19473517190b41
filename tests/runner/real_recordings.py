"""Real models' recorded answers (tests/data/real), replayed without a model.

`make e2e E2E_ARGS="--model M --record DIR"` serves a small model on llama-cpp-python, runs
the built-in suite in native and prompt mode and the first conversations of the built-in
`coding-agent-multiturn` suite on-policy and teacher-forced, and records every raw answer
with the suites as they ran and the verdicts (reviewed by hand). `RECORDINGS` names each
recording's folder; `replayed` judges one of its runs again. The `-chatml` recording is
Qwen2.5-Coder on llama-cpp-python's `chatml-function-calling` handler, native mode only,
streamed (`native`) and not (`native-whole`): `make e2e E2E_ARGS="--chat-format
chatml-function-calling --modes native,native-whole --conversations 0 --record DIR"`.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import toolgrade

REAL = Path(__file__).resolve().parent.parent / "data" / "real"
RECORDINGS = {
    "qwen2.5-coder-0.5b": REAL,
    "gemma3-270m": REAL / "gemma3-270m",
    "qwen2.5-coder-0.5b-chatml": REAL / "qwen2.5-coder-0.5b-chatml",
}
WIRE = {"native-whole": "native"}
"""A recorded run's mode on the wire: `native-whole` is native mode, not streamed."""
CONVERSATION_MODES = {"conversations": False, "conversations-forced": True}


@cache
def recorded(model: str) -> dict[str, object]:
    """The recording's verdicts.json: the model, the server, each mode's verdicts."""
    text = (RECORDINGS[model] / "verdicts.json").read_text(encoding="utf-8")
    value: dict[str, object] = json.loads(text)
    return value


def modes(model: str) -> tuple[str, ...]:
    """The runs recorded for a model, e.g. `native`, `prompt`, `conversations`."""
    verdicts = recorded(model)["modes"]
    assert isinstance(verdicts, dict)
    return tuple(verdicts)


@cache
def replayed(model: str, mode: str) -> toolgrade.RunResult:
    """One recorded run judged again from what the model said."""
    folder = RECORDINGS[model]
    if mode not in CONVERSATION_MODES:
        suite = toolgrade.load_suite(folder / "suite.json")
        options = toolgrade.RunOptions(mode=WIRE.get(mode, mode), warmup=False)
        return toolgrade.run_suite(
            suite, f"replay/{folder / f'{mode}.jsonl'}", options=options, progress="none"
        )
    suite = toolgrade.load_suite(folder / "conversations-suite.json")
    ran = {
        json.loads(line)["case_id"]
        for line in (folder / f"{mode}.jsonl").read_text(encoding="utf-8").splitlines()
    }
    wire = str(recorded(model).get("conversation_mode", "native"))
    options = toolgrade.RunOptions(
        mode=wire,
        teacher_forcing=CONVERSATION_MODES[mode],
        warmup=False,
    )
    cases = tuple(c for c in suite.cases if c.id in ran)
    return toolgrade.run_suite(
        suite.model_copy(update={"cases": cases}),
        f"replay/{folder / f'{mode}.jsonl'}",
        options=options,
        progress="none",
    )
