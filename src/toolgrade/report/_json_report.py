"""The JSON report: the whole run, its metrics and every case, in a versioned schema.

Each case carries two derived fields beside its result: `reason` (why it failed, in
words) and `serving` (how its answer reached the client: class, detail, format, where);
a case that states its outcome carries a third, `decision` (what the model did: kind,
rule, evidence).

The document's shape is described by `report.schema.json`, shipped in this package (see
`report_schema()`); `report_schema_version` changes whenever a field is removed or
changes meaning, never for an added optional field.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import pydantic_core

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.report._decisions import decision_verdict
from toolgrade.report._view import ReportInput

__all__ = ["REPORT_SCHEMA_VERSION", "render_json", "report_document", "report_schema"]

REPORT_SCHEMA_VERSION = 2
"""Version of the JSON report format (`report_schema_version` in every document)."""

_SCHEMA_ID = "urn:toolgrade:report:2"


def report_document(data: ReportInput) -> JsonObject:
    """Build the JSON report as a JSON object (see `report.schema.json`)."""
    cases: list[JsonValue] = []
    for case in data.cases:
        # Python-mode dumps are several times faster than JSON-mode ones; the Rust
        # serializer in `render_json` turns the few non-JSON values (enums) into JSON.
        item = case.result.model_dump()
        item["reason"] = case.reason
        item["serving"] = case.serving.to_dict()
        verdict = decision_verdict(case.result)
        if verdict is not None:
            item["decision"] = {
                "kind": verdict.kind.value,
                "rule": verdict.rule,
                "evidence": verdict.evidence,
            }
        cases.append(item)
    comparison = data.comparison.to_dict() if data.comparison is not None else None
    return {
        "$schema": _SCHEMA_ID,
        "report_schema_version": REPORT_SCHEMA_VERSION,
        "run": data.run.model_dump(mode="json", exclude={"results"}),
        "metrics": data.metrics.to_dict(),
        "detectable": data.detectable.to_dict() if data.detectable is not None else None,
        "comparison": comparison,
        "cases": cases,
    }


def render_json(data: ReportInput) -> str:
    """Render the JSON report as indented UTF-8 JSON text."""
    # pydantic_core's serializer writes the same text as json.dumps(indent=2,
    # ensure_ascii=False), about five times faster on a large run.
    return pydantic_core.to_json(report_document(data), indent=2).decode("utf-8") + "\n"


@cache
def _schema_text() -> str:
    return (resources.files("toolgrade.report") / "report.schema.json").read_text(encoding="utf-8")


def report_schema() -> JsonObject:
    """Return the JSON Schema (draft 2020-12) of the JSON report.

    Returns:
        The schema, a fresh copy on each call.

    Examples:
        >>> schema = report_schema()
        >>> schema["properties"]["report_schema_version"]["const"] == REPORT_SCHEMA_VERSION
        True
    """
    schema: JsonObject = json.loads(_schema_text())
    return schema
