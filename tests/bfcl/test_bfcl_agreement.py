"""toolgrade's profiles against BFCL's own checker, on the committed corpus.

The corpus (tests/data/bfcl/corpus.jsonl.gz, rebuilt by `make bfcl-verdicts`) holds
BFCL entries with ground-truth and mutated outputs, and the verdict bfcl-eval's checker
gave each. The `bfcl` profile must agree on at least 99.5% of them; the default profile's
agreement is reported, with its differences explained.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import bfcl_agreement as corpus
import pytest

pytestmark = pytest.mark.slow  # subprocesses, servers or corpora: `make test` runs it

# Where BFCL is known to be wrong, the default profile must give the right verdict.
KNOWN_BFCL_ERRORS = {
    "greedy_trap": "BFCL pairs parallel calls greedily: a correct set of calls fails "
    "when an earlier expected call takes the output a later one needed",
    "documented_default": "BFCL fails an optional argument given its documented default",
}
# Every other difference comes from one of the default profile's documented rules.
CAUSES = {
    "source_text": "Java/JavaScript: BFCL converts the source text the model sends; the "
    "default profile compares it as sent (use --profile bfcl for these categories)",
    "schema": "BFCL's answer accepts a value the tool's schema forbids (null, 'N/A', "
    "'dontcare'); the default profile checks values against the schema",
    "wrong_type": 'schema-guided coercion: "5" equals 5 where the schema says integer',
    "int_float": "numbers compare by value: 5 == 5.0, also inside lists",
    "bool_string": 'schema-guided coercion: "true" equals true where the schema says boolean',
    "extra_arg": "arguments the expectation does not mention are allowed (unless strict)",
    "wrong_value": "keys a dict expectation does not mention are allowed (unless strict)",
    "missing_optional": "leaving out an argument whose expected value is its documented "
    "default passes",
    "string_format": "strings compare exactly (trimmed); BFCL drops case and punctuation",
    "garbage": "a malformed call is a parse error even where no call is expected",
    "unlisted_call": "a call of a tool that was not offered: the default profile's "
    "extraction does not read it as a call (irrelevance passes, relevance fails)",
    **KNOWN_BFCL_ERRORS,
}


def _cause(group: corpus.Group, item: corpus.Item) -> str:
    if group.case.category in ("simple_java", "simple_javascript"):
        return "source_text"
    result = corpus.run_item(group, item, "default")
    if any(d.reason == "schema" for d in result.details):
        return "schema"
    if item.mutation == "reordered" and not item.bfcl_valid:
        return "greedy_trap"
    return item.mutation


@cache
def _groups() -> tuple[corpus.Group, ...]:
    return tuple(corpus.load_corpus())


@cache
def _agreement(profile: str) -> corpus.Agreement:
    return corpus.agreement(list(_groups()), profile)


def test_bfcl_corpus_size_covers_every_category_and_mutation() -> None:
    items = [item for group in _groups() for item in group.items]
    assert len(items) >= 2000
    assert len({item.category for item in items}) == 13
    mutations = {item.mutation for item in items}
    for wanted in (
        "ground_truth",
        "wrong_value",
        "wrong_type",
        "int_float",
        "bool_string",
        "missing_required",
        "missing_optional",
        "extra_arg",
        "documented_default",
        "wrong_function",
        "reordered",
        "dropped",
        "duplicated",
        "no_call",
        "garbage",
    ):
        assert wanted in mutations, wanted


def test_bfcl_profile_agrees_with_bfcl_checker(report: list[str]) -> None:
    result = _agreement("bfcl")
    report.append(result.summary())
    report.extend(f"  disagreement: {line}" for line in result.disagreements)
    print(result.summary())
    for line in result.disagreements:
        print("  ", line)
    assert result.rate >= 0.995, "\n".join([result.summary(), *result.disagreements])


def test_default_profile_agreement_is_reported_and_explained(report: list[str]) -> None:
    result = _agreement("default")
    causes: Counter[str] = Counter()
    for group in _groups():
        for item in group.items:
            default = corpus.run_item(group, item, "default").status.value == "correct"
            if default != item.bfcl_valid:
                causes[_cause(group, item)] += 1
    report.append(result.summary() + "; the differences:")
    for cause, count in causes.most_common():
        report.append(f"  {count:4d}  {CAUSES.get(cause, 'UNEXPLAINED: ' + cause)}")
    print("\n".join(report[-len(causes) - 1 :]))
    unexplained = sorted(set(causes) - set(CAUSES))
    assert not unexplained, f"default-profile differences nobody explained: {unexplained}"


def test_default_profile_right_where_bfcl_is_known_wrong() -> None:
    groups = _groups()
    checked = 0
    for group in groups:
        for item in group.items:
            if item.mutation not in KNOWN_BFCL_ERRORS:
                continue
            truth = next(i for i in group.items if i.mutation == "ground_truth")
            if corpus.run_item(group, truth, "default").status.value != "correct":
                continue  # BFCL's answer itself breaks the schema: not this error's fault
            checked += 1
            assert not item.bfcl_valid, (item.group_id, item.mutation)
            default = corpus.run_item(group, item, "default")
            bfcl = corpus.run_item(group, item, "bfcl")
            assert default.status.value == "correct", (item.group_id, item.mutation)
            assert bfcl.status.value != "correct", (item.group_id, item.mutation)
    assert checked >= 8


def test_default_profile_passes_python_ground_truths_bfcl_passes() -> None:
    # BFCL's own answers also pass the default profile, except where the answer holds
    # a value the tool's schema forbids (null for a string, "N/A" outside an enum).
    failures = []
    for group in _groups():
        for item in group.items:
            if item.mutation != "ground_truth" or not item.bfcl_valid:
                continue
            if group.case.category in ("simple_java", "simple_javascript"):
                continue
            result = corpus.run_item(group, item, "default")
            if result.status.value != "correct":
                failures.append((item.group_id, [d.reason for d in result.details]))
    assert all("schema" in reasons for _, reasons in failures), failures
