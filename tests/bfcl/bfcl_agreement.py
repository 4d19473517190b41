"""Score the committed BFCL corpus with toolgrade and compare with BFCL's recorded verdicts.

Shared by the agreement test and benchmarks: every output goes the way a real run goes:
a function-calling result through `import bfcl-results`'s conversion, then extraction,
then `judge` with the chosen profile.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolgrade.bfcl._data import BfclCategory, BfclEntry
from toolgrade.bfcl._import import entry_to_case
from toolgrade.bfcl._results import convert_result
from toolgrade.extract import extract_calls
from toolgrade.judging._judge import judge
from toolgrade.results import CaseResult
from toolgrade.suite import Case, Suite, ToolSpec

CORPUS = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "corpus.jsonl.gz"
# A case of an imported BFCL suite offers its own tool definitions, whatever the suite.
_SUITE = Suite(name="bfcl-corpus")


@dataclass(frozen=True)
class Item:
    group_id: str
    category: str
    mutation: str
    style: str
    output: Any
    bfcl_valid: bool
    bfcl_error: str
    crash: bool


@dataclass(frozen=True)
class Group:
    case: Case
    tools: tuple[ToolSpec, ...]
    items: tuple[Item, ...]


def load_corpus(path: Path = CORPUS) -> list[Group]:
    groups: list[Group] = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            category = BfclCategory(record["category"])
            entry = BfclEntry(
                id=record["id"],
                question=record["question"],
                functions=tuple(record["functions"]),
                answer=None
                if record["possible_answer"] is None
                else tuple(record["possible_answer"]),
            )
            case = entry_to_case(entry, category)
            items = tuple(
                Item(
                    group_id=record["id"],
                    category=record["category"],
                    mutation=o["mutation"],
                    style=o["style"],
                    output=o["output"],
                    bfcl_valid=o["bfcl"]["valid"],
                    bfcl_error=o["bfcl"].get("error_type", ""),
                    crash="crash" in o["bfcl"],
                )
                for o in record["outputs"]
            )
            groups.append(Group(case=case, tools=_SUITE.tools_for(case), items=items))
    return groups


def model_output(item: Item) -> Any:
    """What a toolgrade run records: raw text, or the assistant message of an FC answer."""
    response = convert_result(item.group_id, item.output)
    return response.output if response.output is not None else response.message


def run_item(group: Group, item: Item, profile: str) -> CaseResult:
    # BFCL's decoder reads a call of any name; with the bfcl profile the runner extracts
    # without the offered-tool filter (see docs/bfcl.md), the default profile with it.
    offered = None if profile == "bfcl" else list(group.tools)
    extraction = extract_calls(model_output(item), tools=offered)
    if profile == "default":
        # The runner renames calls of dotted tools sent as `a_b` back to `a.b`.
        extraction = _rename_back(extraction, group.tools)
    return judge(group.case, extraction, tools=group.tools, profile=profile)


def _rename_back(extraction: Any, tools: tuple[ToolSpec, ...]) -> Any:
    aliases = {t.name.replace(".", "_"): t.name for t in tools if "." in t.name}
    if not aliases:
        return extraction
    calls = tuple(
        c.model_copy(update={"name": aliases.get(c.name, c.name)}) for c in extraction.calls
    )
    return extraction.model_copy(update={"calls": calls})


@dataclass
class Agreement:
    profile: str
    total: int = 0
    agree: int = 0
    skipped: int = 0
    disagreements: list[str] = field(default_factory=list)
    by_mutation: Counter[str] = field(default_factory=Counter)

    @property
    def rate(self) -> float:
        return self.agree / self.total if self.total else 0.0

    def summary(self) -> str:
        return (
            f"bfcl corpus, profile {self.profile!r}: {self.agree}/{self.total} outputs agree "
            f"with BFCL's checker ({100 * self.rate:.2f}%)"
            + (f", {self.skipped} left out (BFCL's checker crashed)" if self.skipped else "")
        )


def agreement(groups: list[Group], profile: str) -> Agreement:
    result = Agreement(profile)
    for group in groups:
        for item in group.items:
            if item.crash:
                result.skipped += 1
                continue
            verdict = run_item(group, item, profile)
            ours = verdict.status.value == "correct"
            result.total += 1
            if ours == item.bfcl_valid:
                result.agree += 1
                continue
            result.by_mutation[item.mutation] += 1
            why = "; ".join(d.describe() for d in verdict.details) or verdict.status.value
            result.disagreements.append(
                f"{item.group_id} [{item.mutation}, {item.style}]: BFCL "
                f"{'pass' if item.bfcl_valid else 'fail (' + item.bfcl_error + ')'}, "
                f"toolgrade {verdict.status.value}: {why}"
            )
    return result
