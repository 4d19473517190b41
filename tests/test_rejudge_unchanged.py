"""Every committed recording, stored run and answer table re-judges to the same verdicts.

A guard for internal reshapes (types merged, modules moved): whatever moves, judging
the committed material again must give what it gave before. Each corpus is judged
through the public API (`toolgrade.run_suite` on a `replay/...` model, `rescore_run`,
`judge`, `score_calls`; for BFCL the helpers of tests/bfcl/ and the BFCL entry types
they use), and every outcome is reduced to a fingerprint: its status, its score (9
digits) and a hash of the canonical JSON of the whole judged result
(`model_dump(mode="json")`, keys sorted, floats to 9 digits) less the fields that vary
from run to run (`VOLATILE`: latencies, timestamps, endpoints, token counts, retries).
The fingerprints are kept in tests/data/golden/rejudge.json.gz (gzip'd JSON, keys
sorted, no time stamp); `TOOLGRADE_UPDATE_GOLDEN=1` rewrites it, and `zdiff` of a
deliberate change of a rule shows that change's effect, case by case. (Not to be
confused with `TOOLGRADE_UPDATE_GOLDENS=1`, which rewrites the report goldens.)

The corpora:
- `real/*`: the real small model's recordings of tests/data/real, replayed as
  tests/runner/test_real_model_replay.py replays them (and `real/*/rescored`: the same
  runs through `rescore_run`); `builtin/*`: the recorded conversations replayed against
  the built-in `coding-agent-multiturn` suite, which must judge them as
  conversations-suite.json (the suite they were recorded with) does;
- `bfcl/single/<profile>`: every item of tests/data/bfcl/corpus.jsonl.gz;
  `bfcl/multi/<profile>`: every item of tests/data/bfcl/multi_turn_corpus.jsonl.gz;
  `bfcl/rules`: tests/data/bfcl/rules.json;
- `report/*`: the stored runs of tests/data/report, rescored against a suite rebuilt
  from their own expectations (their suite is not committed: every tool a result names,
  with an open schema);
- `suite/coding-agent-answers`: tests/data/suite/coding_agent_answers.json against the
  built-in `coding-agent` suite; `judge/<file>`: the tables of tests/data/judge;
  `calls/cases`: tests/data/calls/cases.json through `score_calls`.
"""

from __future__ import annotations

import dataclasses
import enum
import gzip
import hashlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import toolgrade

pytestmark = pytest.mark.slow  # both BFCL corpora, twice each: `make test` runs it

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
REAL = DATA / "real"
GOLDEN = DATA / "golden" / "rejudge.json.gz"
UPDATE = os.environ.get("TOOLGRADE_UPDATE_GOLDEN") == "1"
SHOWN = 20  # differing cases listed in a failure message

VOLATILE = frozenset(
    {
        "latency_ms",
        "ttft_ms",
        "endpoint",
        "run_id",
        "started_at",
        "finished_at",
        "timestamp",
        "duration_ms",
        "elapsed_ms",
        "usage",
        "tokens",
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "retries",
        "retry_log",
        "attempts",
    }
)
"""Field names left out of a fingerprint wherever a model or dataclass has them: they
vary with the machine and the moment, not with the verdict. Only fields are dropped,
never the keys of a payload (a tool's arguments, a raw answer, a workspace state)."""

DIGITS = 9
HASH_CHARS = 16  # of the sha256 hex digest: 64 bits are plenty to see a change

Fingerprint = dict[str, Any]
Corpus = dict[str, Fingerprint]


# ---------------------------------------------------------------- fingerprints


def _plain(value: Any) -> Any:
    """A model, dataclass, enum or container as JSON values, volatile fields left out."""
    if isinstance(value, BaseModel):
        return _strip(value, value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name not in VOLATILE
        }
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _strip(model: BaseModel, dumped: Any) -> Any:
    """`dumped` (the model's JSON dump) less its volatile fields, at every nested model."""
    if not isinstance(dumped, dict):
        return dumped
    out = dict(dumped)
    for name in type(model).model_fields:
        if name in VOLATILE:
            out.pop(name, None)
        elif name in out:
            out[name] = _strip_value(getattr(model, name), out[name])
    return out


def _strip_value(value: Any, dumped: Any) -> Any:
    if isinstance(value, BaseModel):
        return _strip(value, dumped)
    # Models hold models in tuples (and dicts); a payload (JSON: dicts, lists, scalars)
    # holds none and is kept whole.
    if _holds_models(value, dumped):
        if isinstance(value, Mapping):
            return {k: _strip_value(value[k], d) if k in value else d for k, d in dumped.items()}
        return [_strip_value(v, d) for v, d in zip(value, dumped, strict=True)]
    return dumped


def _holds_models(value: Any, dumped: Any) -> bool:
    if isinstance(value, tuple | list) and isinstance(dumped, list) and len(value) == len(dumped):
        return isinstance(value, tuple) or any(isinstance(v, BaseModel) for v in value)
    if isinstance(value, Mapping) and isinstance(dumped, dict):
        return any(isinstance(v, BaseModel | tuple) for v in value.values())
    return False


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        # NaN and infinities are stored as null (pydantic's JSON), whatever a dump held.
        return round(value, DIGITS) if math.isfinite(value) else None
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def canonical(outcome: Any) -> str:
    """The canonical JSON of a judged outcome (what the fingerprint's hash is of)."""
    text = json.dumps(
        _rounded(_plain(outcome)), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    # A path of this checkout would make the hash machine-dependent.
    return text.replace(str(TESTS.parent), "<root>")


def _fingerprint(status: str, score: float, judged: Any) -> Fingerprint:
    digest = hashlib.sha256(canonical(judged).encode("utf-8")).hexdigest()
    return {"status": status, "score": round(float(score), DIGITS), "sha256": digest[:HASH_CHARS]}


def fingerprint(result: toolgrade.CaseResult) -> Fingerprint:
    """A judged case (or conversation) result's fingerprint."""
    return _fingerprint(result.status.value, result.score, result)


def _of_run(run: toolgrade.RunResult) -> Corpus:
    """A run's results by case id (and repetition, when a case ran more than once)."""
    corpus: Corpus = {}
    for result in run.results:
        key = result.case_id + (f"#{result.repeat}" if result.repeat else "")
        assert key not in corpus, f"two results for {key}"
        corpus[key] = fingerprint(result)
    return corpus


# ---------------------------------------------------------------- the corpora

CONVERSATION_MODES = {"conversations": False, "conversations-forced": True}


def _real_single(mode: str) -> toolgrade.RunResult:
    suite = toolgrade.load_suite(REAL / "suite.json")
    return toolgrade.run_suite(suite, f"replay/{REAL / f'{mode}.jsonl'}", progress="none")


def _real_conversations(suite: toolgrade.Suite, mode: str) -> toolgrade.RunResult:
    """The recorded conversations (the suite's first ones), replayed step by step."""
    lines = (REAL / f"{mode}.jsonl").read_text(encoding="utf-8").splitlines()
    recorded = {json.loads(line)["case_id"] for line in lines}
    ran = suite.model_copy(update={"cases": tuple(c for c in suite.cases if c.id in recorded)})
    options = toolgrade.RunOptions(teacher_forcing=CONVERSATION_MODES[mode], warmup=False)
    return toolgrade.run_suite(
        ran, f"replay/{REAL / f'{mode}.jsonl'}", options=options, progress="none"
    )


def _real_corpora() -> Iterator[tuple[str, Corpus]]:
    single = toolgrade.load_suite(REAL / "suite.json")
    recorded = toolgrade.load_suite(REAL / "conversations-suite.json")
    builtin = toolgrade.load_suite("coding-agent-multiturn")
    for mode in ("native", "prompt"):
        run = _real_single(mode)
        yield f"real/{mode}", _of_run(run)
        yield f"real/{mode}/rescored", _of_run(toolgrade.rescore_run(run, single))
    for mode in CONVERSATION_MODES:
        run = _real_conversations(recorded, mode)
        yield f"real/{mode}", _of_run(run)
        yield f"real/{mode}/rescored", _of_run(toolgrade.rescore_run(run, recorded))
        yield f"builtin/{mode}", _of_run(_real_conversations(builtin, mode))


def _bfcl_helpers() -> tuple[Any, Any]:
    """tests/bfcl's corpus helpers (that folder is on `sys.path` only for its own tests;
    imported from here, the modules are the ones those tests import)."""
    folder = str(TESTS / "bfcl")
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        import bfcl_agreement
        import bfcl_mt_agreement
    finally:
        if added:
            sys.path.remove(folder)
    return bfcl_agreement, bfcl_mt_agreement


PROFILES = ("default", "bfcl")


def _bfcl_single() -> Iterator[tuple[str, Corpus]]:
    single, _ = _bfcl_helpers()
    groups = single.load_corpus()
    for profile in PROFILES:
        corpus: Corpus = {}
        for group in groups:
            for index, item in enumerate(group.items):
                key = f"{item.group_id}#{index} {item.mutation}/{item.style}"
                corpus[key] = fingerprint(single.run_item(group, item, profile))
        yield f"bfcl/single/{profile}", corpus


def _bfcl_multi() -> Iterator[tuple[str, Corpus]]:
    try:  # the entries come from the installed bfcl-eval (`make` installs it)
        import bfcl_eval.eval_checker.multi_turn_eval.func_source_code.math_api  # noqa: F401
    except ImportError:
        return
    _, multi = _bfcl_helpers()
    items = multi.load_items()
    for profile in PROFILES:
        corpus: Corpus = {}
        for item in items:
            key = f"{item.id} {item.variant}"
            assert key not in corpus, f"two items {key}"
            corpus[key] = _multi_turn(multi.judge_item(item, profile))
        yield f"bfcl/multi/{profile}", corpus


def _multi_turn(verdict: Any) -> Fingerprint:
    """A judged conversation (status, score, rubric, record), or BFCL's own verdict on a
    result no run can record (valid, error type, message, turn)."""
    record = getattr(verdict, "record", None)
    if record is None:
        status = "correct" if verdict.valid else str(verdict.error_type)
        return _fingerprint(status, 1.0 if verdict.valid else 0.0, verdict)
    judged = {
        "status": verdict.status,
        "score": verdict.score,
        "rubric": verdict.rubric,
        "record": record,
    }
    return _fingerprint(verdict.status.value, verdict.score, judged)


def _bfcl_rules() -> Iterator[tuple[str, Corpus]]:
    from toolgrade.bfcl._data import BfclCategory, BfclEntry
    from toolgrade.bfcl._import import entry_to_case

    rows = json.loads((DATA / "bfcl" / "rules.json").read_text(encoding="utf-8"))
    corpus: Corpus = {}
    for index, row in enumerate(rows):
        entry = BfclEntry(
            id="rule",
            question=[[{"role": "user", "content": "?"}]],
            functions=tuple(row["functions"]),
            answer=None if row["answer"] is None else tuple(row["answer"]),
        )
        case = entry_to_case(entry, BfclCategory(row["category"]))
        result = toolgrade.judge(case, row["output"], tools=case.tool_definitions, profile="bfcl")
        corpus[f"{index:03d} {row['description']}"] = fingerprint(result)
    yield "bfcl/rules", corpus


def _report_runs() -> Iterator[tuple[str, Corpus]]:
    for name in ("run", "baseline"):
        text = (DATA / "report" / f"{name}.json").read_text(encoding="utf-8")
        run = toolgrade.RunResult.model_validate_json(text)
        yield f"report/{name}", _of_run(toolgrade.rescore_run(run, _suite_of(run)))


def _suite_of(run: toolgrade.RunResult) -> toolgrade.Suite:
    """The suite a stored run implies: its cases' expectations, and every tool a result
    names offered with an open schema."""
    names = sorted({c.name for r in run.results for c in (*r.expected, *r.actual)})
    cases = [
        toolgrade.Case(
            id=r.case_id,
            prompt=r.prompt,
            expected=[c.model_dump() for c in r.expected] or None,
            category=r.category or None,
            difficulty=r.difficulty or None,
            tags=list(r.tags),
        )
        for r in run.results
    ]
    tools = [toolgrade.ToolSpec(name=n, parameters={"type": "object"}) for n in names]
    return toolgrade.Suite(name=run.suite_name, version=run.suite_version, tools=tools, cases=cases)


def _coding_agent_answers() -> Iterator[tuple[str, Corpus]]:
    suite = toolgrade.load_suite("coding-agent")
    cases = {c.id: c for c in suite.cases}
    answers = json.loads((DATA / "suite" / "coding_agent_answers.json").read_text(encoding="utf-8"))
    corpus: Corpus = {}
    for case_id, kinds in answers.items():
        case = cases[case_id]
        for kind, calls_list in kinds.items():
            for index, calls in enumerate(calls_list):
                result = toolgrade.judge(
                    case, calls, tools=suite.tools_for(case), defaults=suite.defaults
                )
                corpus[f"{case_id} {kind}#{index}"] = fingerprint(result)
    yield "suite/coding-agent-answers", corpus


def _judge_tables() -> Iterator[tuple[str, Corpus]]:
    """tests/data/judge, judged as tests/judge/test_judge_data.py judges it."""
    for path in sorted((DATA / "judge").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        tools = [toolgrade.ToolSpec.model_validate(t) for t in doc.get("tools", [])]
        corpus: Corpus = {}
        for entry in doc["cases"]:
            corpus[entry["name"]] = _judge_entry(entry, tools)
        yield f"judge/{path.stem}", corpus


def _judge_entry(entry: dict[str, Any], tools: list[toolgrade.ToolSpec]) -> Fingerprint:
    offered: list[toolgrade.ToolSpec] | None = tools
    if "tools" in entry:
        wanted = entry["tools"]
        offered = None if wanted is None else [t for t in tools if t.name in set(wanted)]
    try:
        case = toolgrade.Case.model_validate(
            {"id": entry["name"], "prompt": "test prompt", **entry["case"]}
        )
        actual: Any = (
            toolgrade.Extraction.model_validate(entry["extraction"])
            if "extraction" in entry
            else entry["actual"]
        )
        result = toolgrade.judge(
            case,
            actual,
            tools=offered,
            rubric=entry.get("rubric"),
            strict=entry.get("strict", False),
        )
    except (toolgrade.ToolgradeError, ValueError) as error:  # the error is the verdict
        return _fingerprint(f"raises {type(error).__name__}", 0.0, str(error))
    return fingerprint(result)


def _calls_cases() -> Iterator[tuple[str, Corpus]]:
    cases = json.loads((DATA / "calls" / "cases.json").read_text(encoding="utf-8"))
    corpus: Corpus = {}
    for case in cases:
        scored = toolgrade.score_calls(
            case["expected"], case["actual"], order=case.get("order", "any")
        )
        status = (
            f"correct {len(scored.correct)}, incorrect {len(scored.incorrect)},"
            f" missed {len(scored.missed)}, extra {len(scored.extra)}"
        )
        corpus[case["id"]] = _fingerprint(status, scored.score, scored.to_dict())
    yield "calls/cases", corpus


SOURCES: tuple[Callable[[], Iterator[tuple[str, Corpus]]], ...] = (
    _real_corpora,
    _bfcl_single,
    _bfcl_multi,
    _bfcl_rules,
    _report_runs,
    _coding_agent_answers,
    _judge_tables,
    _calls_cases,
)


def rejudge_all() -> dict[str, Corpus]:
    corpora: dict[str, Corpus] = {}
    for source in SOURCES:
        for name, corpus in source():
            assert name not in corpora, name
            corpora[name] = corpus
    return corpora


# ---------------------------------------------------------------- the golden file


def golden_text(corpora: Mapping[str, Corpus]) -> str:
    """The golden file's JSON: keys sorted, one case a line (a diff reads case by case)."""
    about = "toolgrade's verdicts on the committed corpora: tests/test_rejudge_unchanged.py"
    meaning = (
        f"status, score ({DIGITS} digits), and the first {HASH_CHARS} hex digits"
        " of the sha256 of the judged result's canonical JSON"
    )
    blocks = []
    for name in sorted(corpora):
        cases = corpora[name]
        lines = [f"   {_json(key)}: {_json(cases[key])}" for key in sorted(cases)]
        blocks.append(f"  {_json(name)}: {{\n" + ",\n".join(lines) + "\n  }")
    return (
        f'{{\n "about": {_json(about)},\n "corpora": {{\n'
        + ",\n".join(blocks)
        + f'\n }},\n "fingerprint": {_json(meaning)}\n}}\n'
    )


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def golden_bytes(corpora: Mapping[str, Corpus]) -> bytes:
    """The golden file: its JSON gzip'd without a time stamp (the same bytes each time,
    given the same zlib)."""
    return gzip.compress(golden_text(corpora).encode("utf-8"), compresslevel=9, mtime=0)


def read_golden() -> dict[str, Corpus]:
    corpora: dict[str, Corpus] = json.loads(gzip.decompress(GOLDEN.read_bytes()))["corpora"]
    return corpora


def differences(old: Mapping[str, Corpus], new: Mapping[str, Corpus]) -> str:
    """What changed, for people: per corpus the count, then the first `SHOWN` cases
    (verdict changes before changes of detail only)."""
    counts: list[str] = []
    verdicts: list[str] = []
    details: list[str] = []
    for name in sorted(old.keys() | new.keys()):
        if name not in new:
            counts.append(f"{name}: no longer judged ({len(old[name])} cases)")
            continue
        if name not in old:
            counts.append(f"{name}: new corpus ({len(new[name])} cases)")
            continue
        before, after = old[name], new[name]
        changed = 0
        for key in sorted(before.keys() | after.keys()):
            was, now = before.get(key), after.get(key)
            if was == now:
                continue
            changed += 1
            same_verdict = (
                was is not None
                and now is not None
                and (was["status"], was["score"]) == (now["status"], now["score"])
            )
            if same_verdict:
                details.append(
                    f"{name} | {key}: {_shown(now)}, same verdict, other judged values differ"
                )
            else:
                verdicts.append(f"{name} | {key}: {_shown(was)} -> {_shown(now)}")
        if changed:
            counts.append(f"{name}: {changed} of {len(before)} cases differ")
    listed = (verdicts + details)[:SHOWN]
    more = len(verdicts) + len(details) - len(listed)
    return "\n".join(
        [
            "re-judging the committed corpora no longer gives the golden verdicts"
            f" ({GOLDEN.relative_to(TESTS.parent)}):",
            *(f"  {line}" for line in counts),
            f"first {len(listed)} differing cases (old -> new):",
            *(f"  {line}" for line in listed),
            *([f"  ... and {more} more"] if more else []),
            "a deliberate change of a rule: TOOLGRADE_UPDATE_GOLDEN=1 rewrites the file.",
        ]
    )


def _shown(print_: Fingerprint | None) -> str:
    if print_ is None:
        return "(absent)"
    return f"{print_['status']} {print_['score']}"


# ---------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def rejudged() -> dict[str, Corpus]:
    return rejudge_all()


def test_rejudged_corpora_match_golden(rejudged: dict[str, Corpus]) -> None:
    if UPDATE:
        assert "bfcl/multi/bfcl" in rejudged, "bfcl-eval is needed to write the golden file"
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_bytes(golden_bytes(rejudged))
    golden = read_golden()
    # Without bfcl-eval the multi-turn corpus cannot be judged: the rest still is.
    golden = {k: v for k, v in golden.items() if k in rejudged or not k.startswith("bfcl/multi/")}
    if rejudged != golden:
        pytest.fail(differences(golden, rejudged), pytrace=False)


def test_golden_file_is_canonical() -> None:
    # Rewriting the file from its own content gives the same JSON, gzip'd with no time
    # stamp and no file name: an update after a change of a rule shows only that change.
    # (The compressed bytes themselves depend on the zlib build, so they are not compared.)
    data = GOLDEN.read_bytes()
    assert data[:4] == b"\x1f\x8b\x08\x00"  # gzip, deflate, no flags (no file name)
    assert data[4:8] == b"\x00\x00\x00\x00"  # mtime 0
    assert gzip.decompress(data).decode("utf-8") == golden_text(read_golden())


@pytest.mark.parametrize("mode", CONVERSATION_MODES)
def test_builtin_multiturn_suite_judges_like_the_recorded_suite(
    rejudged: dict[str, Corpus], mode: str
) -> None:
    # The built-in suite (rewritten with named states) must judge the recorded
    # conversations exactly as conversations-suite.json, the suite they ran, does.
    assert rejudged[f"builtin/{mode}"] == rejudged[f"real/{mode}"]


@pytest.mark.parametrize("mode", ("native", "prompt", *CONVERSATION_MODES))
def test_rescoring_a_replayed_run_judges_it_the_same(
    rejudged: dict[str, Corpus], mode: str
) -> None:
    assert rejudged[f"real/{mode}/rescored"] == rejudged[f"real/{mode}"]


def test_fingerprint_follows_values_not_timings() -> None:
    base = toolgrade.CaseResult(
        case_id="c",
        status=toolgrade.Status("wrong_args"),
        score=0.5,
        latency_ms=12.0,
        actual=[toolgrade.ToolCall(name="t", arguments={"latency_ms": 1})],
    )
    slower = base.model_copy(update={"latency_ms": 99.0, "ttft_ms": 3.0})
    assert fingerprint(slower) == fingerprint(base)
    # A payload's keys are values, whatever their name; so is every judged field.
    other_argument = base.model_copy(
        update={"actual": (toolgrade.ToolCall(name="t", arguments={"latency_ms": 2}),)}
    )
    assert fingerprint(other_argument)["sha256"] != fingerprint(base)["sha256"]
    assert fingerprint(base.model_copy(update={"score": 0.25}))["score"] == 0.25
    noise = base.model_copy(update={"score": 0.5 + 1e-12})
    assert fingerprint(noise) == fingerprint(base)
