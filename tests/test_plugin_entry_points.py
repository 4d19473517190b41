"""A plug-in distribution adds each kind of extension without touching toolgrade.

The test builds a real (if tiny) installed distribution: a `toolgrade_foo` module and a
`toolgrade_foo-1.0.dist-info` folder whose `entry_points.txt` declares one entry in each
group, both on `sys.path`. `importlib.metadata` finds it as it would a pip-installed
package, and every command below uses it through the CLI.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade._core.registry import reset_plugins
from toolgrade.cli import app
from toolgrade.environments import TurnRun
from toolgrade.judging import find_profile, judge_conversation, profiles
from toolgrade.results import Status
from toolgrade.suite import Conversation, Suite, ToolSpec

PLUGIN = '''
"""toolgrade-foo: one backend, format, report, profile (with a conversation judge) and matcher."""

from toolgrade.calls import ToolCall
from toolgrade.plugins import (
    ChatReply, Extraction, MatcherSpec, ServerInfo, TextFormat,
)
from toolgrade.results import Status, Verdict


def parse(text, ctx):
    if not text.startswith("FOO:"):
        return None
    name, _, path = text[4:].strip().partition(" ")
    return Extraction(calls=(ToolCall(name=name, arguments={"path": path}),), format="foo")


FORMAT = TextFormat("foo", "marker", ("FOO:",), parse, "the foo model's calls")


class FooBackend:
    provider, safe_names = "foo", False

    def __init__(self, model, settings):
        self.model = model

    async def server_info(self):
        return ServerInfo()

    async def complete(self, request):
        prompt = str(request.messages[-1]["content"])
        return ChatReply(raw=f"FOO: read_file {prompt.split()[-1]}.txt", latency_ms=1.0)

    def settings(self):
        return {}

    async def aclose(self):
        pass


def report(data):
    return f"FOO REPORT {data.run.run_id} {len(data.run.results)} cases\\n"


def lenient(case, actual, *, tools, rubric=None, strict=False):
    return Verdict(Status.CORRECT, 1.0)


def _check(operand, obj):
    return None if isinstance(operand, str) else "needs a string"


def _ends(matcher, actual, ctx):
    if isinstance(actual, str) and actual.endswith(str(matcher.operand)):
        return None
    return ("value", f"does not end with {matcher.operand!r}")


MATCHER = MatcherSpec("$foo", _check, _ends, "a string ending with it")


def said_done(suite, conversation, runs, *, prompt_mode):
    if conversation.environment is not None:
        return None  # not of this profile's kind
    reply = runs[-1].reply if runs else None
    if reply and "done" in reply:
        return Verdict(Status.CORRECT, 1.0)
    return Verdict(Status.REPLY_MISMATCH, 0.0, message="the last reply does not say done")
'''

ENTRY_POINTS = """
[toolgrade.backends]
foo = toolgrade_foo:FooBackend

[toolgrade.formats]
foo = toolgrade_foo:FORMAT

[toolgrade.reports]
foo = toolgrade_foo:report

[toolgrade.profiles]
foo = toolgrade_foo:lenient

[toolgrade.matchers]
foo = toolgrade_foo:MATCHER

[toolgrade.conversation_profiles]
foo = toolgrade_foo:said_done
bar = toolgrade_foo:said_done
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Install `toolgrade-foo` on sys.path for the test; forget it afterwards."""
    site = tmp_path / "site"
    info = site / "toolgrade_foo-1.0.dist-info"
    info.mkdir(parents=True)
    (site / "toolgrade_foo.py").write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolgrade-foo\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    reset_plugins()
    yield tmp_path
    reset_plugins()
    monkeypatch.delitem(sys.modules, "toolgrade_foo", raising=False)


def _suite(folder: Path, argument: object) -> Path:
    data = {
        "schema_version": 1,
        "name": "foo-suite",
        "version": "1",
        "tools": [{"name": "read_file", "parameters": {"type": "object"}}],
        "cases": [
            {
                "id": f"T-{i}",
                "prompt": f"read file {i}",
                "expected": {"name": "read_file", "arguments": {"path": argument}},
            }
            for i in range(3)
        ],
    }
    path = folder / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_plugin_backend_format_and_matcher_in_a_run(plugin: Path) -> None:
    suite = _suite(plugin, {"$foo": ".txt"})
    out = plugin / "report.json"
    result = CliRunner().invoke(
        app,
        ["run", "--suite", str(suite), "--model", "foo/x", "--no-warmup", "--report",
         f"json={out}"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    rows = report["cases"]
    assert [r["status"] for r in rows] == ["correct"] * 3
    assert [r["extraction_format"] for r in rows] == ["foo"] * 3  # auto-detected


def test_plugin_matcher_fails_a_value_it_does_not_accept(plugin: Path) -> None:
    suite = _suite(plugin, {"$foo": ".md"})
    result = CliRunner().invoke(
        app, ["run", "--suite", str(suite), "--model", "foo/x", "--no-warmup"]
    )
    assert result.exit_code == 0, result.output
    assert "[does not end with '.md']" in result.output
    assert "Accuracy: 0.0%" in result.output


def test_plugin_report_format(plugin: Path) -> None:
    suite = _suite(plugin, "0.txt")
    runs = plugin / "runs.json"
    first = CliRunner().invoke(
        app, ["run", "--suite", str(suite), "--model", "foo/x", "--no-warmup",
              "--report", f"json={runs}"],
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    result = CliRunner().invoke(app, ["report", str(runs), "--format", "foo"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("FOO REPORT ")
    assert result.stdout.endswith(" 3 cases\n")


def test_plugin_profile(plugin: Path) -> None:
    suite = _suite(plugin, "never-this.txt")
    out = plugin / "r.json"
    result = CliRunner().invoke(
        app, ["run", "--suite", str(suite), "--model", "foo/x", "--no-warmup",
              "--profile", "foo", "--report", f"json={out}"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Accuracy: 100.0%" in result.output
    rows = json.loads(out.read_text(encoding="utf-8"))["cases"]
    assert [r["status"] for r in rows] == ["correct"] * 3


def test_plugin_conversation_judge_is_the_conversation_part_of_its_profile(plugin: Path) -> None:
    import toolgrade_foo  # type: ignore[import-not-found]

    foo, bar = find_profile("foo"), find_profile("bar")
    assert foo.judge is toolgrade_foo.lenient and foo.conversation is toolgrade_foo.said_done
    assert bar.judge is None and bar.conversation is toolgrade_foo.said_done  # default rules
    assert {"foo", "bar"} <= set(profiles())
    conversation = Conversation.model_validate(
        {"id": "c", "turns": [{"user": "read a", "expected": {"name": "read_file"}}]}
    )
    suite = Suite(schema_version=2, name="s", tools=[ToolSpec(name="read_file")])
    run = TurnRun(index=0, user="read a", steps=(), reply="not yet")
    for name in ("foo", "bar"):
        verdict = judge_conversation(
            suite, conversation, [run], initial_state={}, final_state={}, profile=name
        )
        assert verdict.status is Status.REPLY_MISMATCH
        assert verdict.record is not None and verdict.record.first_failure is not None
        assert verdict.record.first_failure.check == name


def test_plugin_format_by_name(plugin: Path) -> None:
    result = CliRunner().invoke(app, ["extract", "--format", "foo"], input="FOO: read_file a.py")
    assert result.exit_code == 0, result.output
    assert '"read_file"' in result.stdout
    assert '"foo"' in result.stdout
    listed = CliRunner().invoke(app, ["extract", "--list-formats"])
    assert "foo" in listed.stdout.split()


def test_unknown_names_list_the_plugins_and_say_how_to_add_one(plugin: Path) -> None:
    suite = _suite(plugin, "0.txt")
    runs = plugin / "runs.json"
    CliRunner().invoke(
        app, ["run", "--suite", str(suite), "--model", "foo/x", "--no-warmup", "-q",
              "--report", f"json={runs}"],
    )  # fmt: skip
    result = CliRunner().invoke(app, ["report", str(runs), "--format", "pdf"])
    assert result.exit_code == 2
    assert "text, json, markdown, html, junit, prometheus, foo" in result.output
    assert "toolgrade.reports" in result.output
    again = ["report", str(runs), "--suite", str(suite), "--profile", "nope"]
    profile = CliRunner().invoke(app, again)
    assert profile.exit_code == 2
    assert "bfcl, default, foo" in profile.output
    bad = CliRunner().invoke(
        app, ["run", "--suite", "coding-agent", "--model", "nope/x", "--no-warmup"]
    )
    assert bad.exit_code == 2
    assert "foo" in bad.output
    assert "toolgrade.backends" in bad.output


def test_without_the_plugin_its_names_are_unknown() -> None:
    reset_plugins()
    result = CliRunner().invoke(app, ["extract", "--format", "foo"], input="FOO: read_file a.py")
    assert result.exit_code == 2
    assert "unknown extraction format 'foo'" in result.output
