"""The JSON report: complete, valid against its shipped schema, and readable back."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

import toolgrade
from toolgrade.report import REPORT_SCHEMA_VERSION, report_schema


def _document(run: toolgrade.RunResult, **kwargs: object) -> dict[str, object]:
    return json.loads(toolgrade.render_report(run, "json", **kwargs))  # type: ignore[arg-type]


def test_json_report_validates_against_shipped_schema(
    run: toolgrade.RunResult, comparison: toolgrade.Comparison, repeated_run: toolgrade.RunResult
) -> None:
    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    docs = (_document(run), _document(run, comparison=comparison), _document(repeated_run))
    for doc in docs:
        errors = [e.message for e in validator.iter_errors(doc)]
        assert errors == []


def test_json_report_schema_lists_every_model_field() -> None:
    defs = report_schema()["$defs"]
    run_fields = set(toolgrade.RunResult.model_fields) - {"results"}
    case_fields = set(toolgrade.CaseResult.model_fields) | {"reason", "serving", "decision"}
    assert set(defs["run"]["properties"]) == run_fields
    assert set(defs["case"]["properties"]) == case_fields
    assert set(defs["pair"]["properties"]) == set(toolgrade.PairResult.model_fields)
    assert set(defs["mismatch"]["properties"]) == set(toolgrade.Mismatch.model_fields)
    assert set(defs["call"]["properties"]) == set(toolgrade.ToolCall.model_fields)
    assert report_schema()["properties"]["report_schema_version"]["const"] == REPORT_SCHEMA_VERSION


def test_json_report_schema_lists_every_noise_floor_field(
    repeated_run: toolgrade.RunResult,
) -> None:
    noise = toolgrade.compute_metrics(repeated_run).noise
    assert noise is not None
    props = report_schema()["$defs"]["noise_floor"]["properties"]
    assert set(props) == set(noise.to_dict())


def test_json_report_keeps_every_case_whole(run: toolgrade.RunResult) -> None:
    doc = _document(run)
    cases = doc["cases"]
    assert isinstance(cases, list) and len(cases) == len(run.results)
    by_id = {c["case_id"]: c for c in cases}
    xss = by_id["TC-099"]
    assert xss["raw_response"] == run.results[-1].raw_response
    assert xss["actual"][0]["arguments"]["content"] == "<script>document.title='PWNED'</script>"
    assert by_id["TC-023"]["prompt"][1]["content"] == "Look for the main function in src."
    assert by_id["TC-015"]["reason"] == "Expected search, got read_file"
    assert doc["run"]["backend"]["temperature"] == 0.0
    assert doc["metrics"]["accuracy"]["passed"] == 3
    assert doc["comparison"] is None


def test_json_report_reads_back_as_the_same_run(run: toolgrade.RunResult, tmp_path: Path) -> None:
    path = toolgrade.write_report(run, "json", tmp_path / "report.json")
    assert toolgrade.resolve_run(str(path)) == run


def test_json_report_schema_file_ships_in_package() -> None:
    from importlib import resources

    text = (resources.files("toolgrade.report") / "report.schema.json").read_text("utf-8")
    assert json.loads(text)["$id"] == "urn:toolgrade:report:2"
