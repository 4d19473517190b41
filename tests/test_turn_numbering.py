"""One numbering of turns and steps wherever a person reads one: from 1; stored: from 0.

docs/conversations.md ("Turn and step numbers") states the rule. Two tests hold it:
every place in the source that writes a number after the word "turn" or "step" (an
f-string field, a template's `{{ }}`, a `%` format) must write a number from 1 (`x + 1`,
or a view's `number`), except the few that quote a stored position as it is stored;
and a conversation that first fails in its second turn's second step reads "turn 2" and
"step 2" in every report format, and `"turn": 1, "step": 1` in its stored record.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import toolgrade

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "toolgrade"

# `turn {x}` / `step {x}` in Python, `Turn {{ x }}` in a template, `turn %d` anywhere.
_FIELD = re.compile(r"(?i)\b(?:turn|step)s?\s+\{(?!\{)([^{}]*)\}")
_TEMPLATE = re.compile(r"(?i)\b(?:turn|step)s?\s+\{\{\s*([^}]*?)\s*\}\}")
_PERCENT = re.compile(r"(?i)\b(?:turn|step)s?\s+%[-0-9.]*[sdir]")

# Places that write a stored position as it is stored (from 0), each with why.
STORED_AS_STORED: dict[str, tuple[int, str]] = {
    "backends/_replay_lines.py": (
        8,
        "names a line of a responses file by its keys (`repeat`, `turn`, `step`: from 0, as "
        "the line holds them); the message is stored in results, and the BFCL checker "
        "reads it back",
    ),
    "bfcl/_mt_checker.py": (
        3,
        "BFCL's own messages, word for word (BFCL counts turns from 0), and the replay "
        "message read back",
    ),
}


def _one_based(expression: str) -> bool:
    """Whether a replacement field writes a number from 1: `x + 1`, or a view's `number`."""
    expression = re.split(r"[!:](?![=])", expression.strip(), maxsplit=1)[0].strip()
    return expression.endswith("+ 1") or re.search(r"number\w*$", expression) is not None


def _numbers_written() -> dict[str, list[tuple[int, str]]]:
    """Every turn or step number the source writes: {file: [(line, expression)]}."""
    found: dict[str, list[tuple[int, str]]] = {}
    for path in sorted(SRC.rglob("*")):
        if path.suffix not in (".py", ".j2"):
            continue
        text = path.read_text(encoding="utf-8")
        patterns = (_TEMPLATE,) if path.suffix == ".j2" else (_FIELD, _PERCENT)
        for pattern in patterns:
            for match in pattern.finditer(text):
                expression = match.group(1) if match.groups() else match.group(0)
                if path.suffix == ".j2" and expression.startswith(("'", '"')):
                    continue  # a CSS class (`class="turn {{ 't-pass' ... }}"`), no number
                line = text.count("\n", 0, match.start()) + 1
                name = path.relative_to(SRC).as_posix()
                found.setdefault(name, []).append((line, expression))
    return found


def test_every_turn_or_step_number_the_source_writes_counts_from_1() -> None:
    written = _numbers_written()
    assert len(written) >= 10  # the scan sees the renderers, the judges and the CLI
    wrong = [
        f"{name}:{line}: {expression}"
        for name, places in written.items()
        if name not in STORED_AS_STORED
        for line, expression in places
        if not _one_based(expression)
    ]
    assert wrong == []
    for name, (count, _why) in STORED_AS_STORED.items():
        assert len(written.get(name, [])) == count, name


def _call(name: str, **arguments: str) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


SUITE = {
    "schema_version": 2,
    "name": "numbering",
    "tools": [
        {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        }
        for name in ("read_file", "delete_file")
    ],
    "environments": {
        "files": {
            "kind": "scripted",
            "rules": [
                {"when": {"tool": "read_file"}, "result": "text"},
                {"when": {"tool": "delete_file"}, "result": "deleted"},
            ],
        }
    },
    "cases": [
        {
            "id": "NUM-1",
            "environment": "files",
            "turns": [
                {"user": "Read a.md", "expected": {"name": "read_file", "arguments": {"path": "a.md"}}},
                {"user": "Read b.md", "expected": {"name": "read_file", "arguments": {"path": "b.md"}}},
            ],
        }
    ],
}  # fmt: skip

# Turn 2 (index 1): step 1 reads b.md as asked, step 2 deletes x.md (the extra call).
RESPONSES = [
    (0, 0, _call("read_file", path="a.md")),
    (0, 1, "It says text."),
    (1, 0, _call("read_file", path="b.md")),
    (1, 1, _call("delete_file", path="x.md")),
    (1, 2, "Done."),
]


def test_reports_say_turn_2_step_2_where_the_record_stores_1_and_1(tmp_path: Path) -> None:
    (tmp_path / "suite.json").write_text(json.dumps(SUITE), encoding="utf-8")
    lines = [
        json.dumps({"case_id": "NUM-1", "turn": t, "step": s, "output": out})
        for t, s, out in RESPONSES
    ]
    (tmp_path / "responses.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite = toolgrade.load_suite(tmp_path / "suite.json")
    run = toolgrade.run_suite(suite, f"replay/{tmp_path / 'responses.jsonl'}", progress="none")
    [result] = run.results
    record = result.conversation
    assert record is not None and record.first_failure is not None
    stored = record.first_failure.model_dump(mode="json")
    assert (stored["turn"], stored["step"], stored["cause"]) == (1, 1, "unexpected_call")
    assert [t.index for t in record.turns] == [0, 1]
    assert toolgrade.describe_failure(result).startswith("Turn 2 step 2: unexpected_call")
    for fmt in ("text", "markdown", "html", "junit"):
        text = toolgrade.render_report(run, fmt)
        turns = {int(n) for n in re.findall(r"(?i)\bturn\s+(\d+)", text)}
        steps = {int(n) for n in re.findall(r"(?i)\bstep\s+(\d+)", text)}
        assert 2 in turns and turns <= {1, 2}, (fmt, turns)
        assert steps <= {1, 2, 3}, (fmt, steps)
        assert re.search(r"(?i)\bturn 2,? step 2\b", text), fmt
    report = json.loads(toolgrade.render_report(run, "json"))
    [case] = [c for c in report["cases"] if c["case_id"] == "NUM-1"]
    assert case["conversation"]["first_failure"]["turn"] == 1
