"""`Registry`: lazy entries, plug-ins on first miss, and the five registries built on it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

import toolgrade
import toolgrade.plugins as plugins
from toolgrade import ConfigError
from toolgrade._core.registry import Registry, load_target
from toolgrade.backends import providers
from toolgrade.extract import _registry as formats
from toolgrade.extract._types import Extraction, TextFormat
from toolgrade.judging._profiles import PROFILES, JudgeFn
from toolgrade.match import MATCHER_NAMES, matcher_problems
from toolgrade.match import _matchers as matchers
from toolgrade.plugins import MatcherSpec
from toolgrade.report import REPORT_FORMATS, report_formats
from toolgrade.results import Status, Verdict

# The detection order before the registry existed (structured, then text by stage).
TODAYS_FORMATS = [
    "openai", "openai_function_call", "ollama", "seed_oss", "qwen3_coder", "hunyuan",
    "glm45", "minimax_m2", "anthropic_xml", "olmo3", "deepseek_v32", "step3",
    "deepseek_v3", "deepseek_v31", "kimi_k2", "harmony", "lfm2", "functiongemma", "gemma4",
    "apertus", "longcat", "minimax_m1", "gigachat3", "granite_20b_fc", "hermes", "mistral",
    "llama3_json", "granite", "phi4_mini", "jamba", "internlm2", "command_r7b",
    "functionary_v3", "functionary_v31", "xlam", "fenced_json", "gemma_tool_code", "json",
    "pythonic",
]  # fmt: skip


@pytest.fixture
def fresh() -> Registry[object]:
    return Registry("widget", "toolgrade.test-widgets-none")


def test_lazy_entry_is_imported_on_first_use_and_cached(fresh: Registry[object]) -> None:
    fresh.register("path", "os.path:join")
    assert fresh._entries["path"] == "os.path:join"  # not imported yet
    first = fresh.get("path")
    assert first is fresh.get("path") is __import__("os").path.join
    assert fresh._entries["path"] is first


def test_resolved_holds_what_find_gave_until_the_next_change(fresh: Registry[object]) -> None:
    fresh.register("path", "os.path:join")
    fresh.register("one", 1)
    assert fresh.resolved == {}  # nothing looked up yet
    assert fresh.find("path") is __import__("os").path.join
    assert fresh.find("one") == 1
    assert fresh.resolved == {"path": __import__("os").path.join, "one": 1}
    fresh.register("one", 2)  # a change: the hot-path lookup must not give the old one
    assert fresh.resolved == {}
    assert fresh.find("one") == 2 and fresh.resolved == {"one": 2}
    fresh.unregister("one")
    assert fresh.resolved == {} and fresh.find("one") is None


def test_judge_uses_a_profile_registered_again() -> None:
    case = toolgrade.Case(id="c", prompt="p", expected={"name": "f", "arguments": {}})

    def verdict(status: Status) -> JudgeFn:
        return lambda *_args, **_kw: Verdict(status=status, score=0.0)

    plugins.register_profile("test-again", verdict(Status.WRONG_TOOL))
    try:
        assert (
            toolgrade.judge(case, [], tools=None, profile="test-again").status.value == "wrong_tool"
        )
        plugins.register_profile("test-again", verdict(Status.WRONG_ARGS))
        assert (
            toolgrade.judge(case, [], tools=None, profile="test-again").status.value == "wrong_args"
        )
    finally:
        PROFILES.unregister("test-again")
    with pytest.raises(ConfigError, match="unknown judge profile 'test-again'"):
        toolgrade.judge(case, [], tools=None, profile="test-again")


def test_unknown_name_lists_the_known_ones_and_how_to_add_one(fresh: Registry[object]) -> None:
    fresh.register("a", 1)
    fresh.register("b", 2)
    with pytest.raises(ConfigError) as info:
        fresh.get("c")
    assert "unknown widget 'c' (known: a, b)" in info.value.message
    assert "'toolgrade.test-widgets-none' entry-point group" in info.value.message
    assert fresh.find("c") is None and "c" not in fresh


def test_bad_lazy_target_is_a_config_error(fresh: Registry[object]) -> None:
    fresh.register("x", "no_such_module_xyz:thing")
    with pytest.raises(ConfigError, match="cannot load 'no_such_module_xyz:thing'"):
        fresh.get("x")
    with pytest.raises(ConfigError, match="malformed registry target"):
        load_target("nocolon")


def test_entry_points_are_read_once_on_a_miss_and_code_wins(
    fresh: Registry[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    class Point:
        def __init__(self, name: str, value: str) -> None:
            self.name, self.value = name, value

    def entry_points(*, group: str) -> list[Point]:
        calls.append(group)
        return [Point("sep", "os:sep"), Point("mine", "os:linesep")]

    monkeypatch.setattr("importlib.metadata.entry_points", entry_points)
    fresh.register("mine", 42)
    assert fresh.get("mine") == 42 and calls == []  # a hit reads nothing
    assert fresh.get("sep") == __import__("os").sep
    assert fresh.names() == ["mine", "sep"]
    assert calls == ["toolgrade.test-widgets-none"]  # once
    assert fresh.is_plugin("sep") and not fresh.is_plugin("mine")
    fresh.reset_plugins()
    assert "sep" not in fresh._entries


def test_importing_toolgrade_loads_no_plugin_and_no_builtin_entry() -> None:
    code = textwrap.dedent(
        """
        import sys, importlib.metadata
        seen = []
        real = importlib.metadata.entry_points
        importlib.metadata.entry_points = lambda **kw: seen.append(kw["group"]) or real(**kw)
        import toolgrade, toolgrade.plugins
        seen = [g for g in seen if g.startswith("toolgrade")]
        lazy = ("toolgrade.report._html", "toolgrade.backends._ollama",
                "toolgrade.bfcl._profile", "toolgrade.match._builtin_matchers")
        print(seen, [m for m in lazy if m in sys.modules])
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[] []"


def test_format_order_is_todays() -> None:
    assert formats.format_names() == TODAYS_FORMATS


@pytest.fixture
def restore_formats() -> Iterator[None]:
    order = list(formats._order)
    yield
    for name in set(formats._order) - set(order):
        formats.FORMATS.unregister(name)
    formats._order[:] = order


def _format(name: str, stage: str = "marker") -> TextFormat:
    def parse(text: str, ctx: object) -> Extraction | None:
        return None

    return TextFormat(name, stage, (f"<{name}>",), parse)  # type: ignore[arg-type]


def test_registered_format_declares_its_place(restore_formats: None) -> None:
    formats.register_format(_format("zz_before"), before="hermes")
    formats.register_format(_format("zz_after"), after="hermes")
    formats.register_format(_format("zz_end"))
    formats.register_format(_format("zz_fenced", "fenced"))
    names = formats.format_names()
    k = names.index("hermes")
    assert names[k - 1 : k + 2] == ["zz_before", "hermes", "zz_after"]
    assert names[names.index("functionary_v31") + 1] == "zz_end"  # the end of its stage
    assert names[names.index("gemma_tool_code") + 1] == "zz_fenced"
    assert formats.find_format("zz_end") is not None
    with pytest.raises(ConfigError, match="already exists"):
        formats.register_format(_format("hermes"))
    with pytest.raises(ConfigError, match="no format 'nope'"):
        formats.register_format(_format("zz_x"), before="nope")


def test_builtin_backends_reports_profiles_and_matchers_are_listed() -> None:
    # Other tests register their own entries in these process-wide registries: the
    # built-ins must all be there, first for reports and matchers (their order is shown).
    builtin = {"llamacpp", "lmstudio", "ollama", "openai", "python", "replay", "sglang", "vllm"}
    assert builtin <= set(providers())
    assert report_formats()[: len(REPORT_FORMATS)] == list(REPORT_FORMATS)
    assert toolgrade.judge.__module__ == "toolgrade.judging._judge"
    assert matchers.matcher_names()[: len(MATCHER_NAMES)] == list(MATCHER_NAMES)


def test_register_report_and_refuse_builtin_name() -> None:
    from toolgrade.report import register_report
    from toolgrade.report._render import REPORTS

    with pytest.raises(ConfigError):
        register_report("json", "x:y")
    register_report("zz_report", lambda data: "hi\n")
    try:
        assert report_formats()[-1] == "zz_report"
    finally:
        REPORTS.unregister("zz_report")


def test_registered_matcher_is_checked_and_listed() -> None:
    spec = MatcherSpec(
        "$zz_even",
        lambda operand, obj: None if operand is True else "the only accepted value is true",
        lambda m, actual, ctx: None,
        "an even number",
    )
    matchers.register_matcher(spec)
    try:
        assert matcher_problems({"n": {"$zz_even": True}}) == []
        assert matcher_problems({"n": {"$zz_even": 1}}) == [
            "$.n: $zz_even: the only accepted value is true"
        ]
        assert "$zz_even" in matchers.matcher_names()
    finally:
        matchers.MATCHERS.unregister("zz_even")
    with pytest.raises(ConfigError):
        matchers.register_matcher(spec.__class__("$regex", spec.check, spec.evaluate, ""))


def test_matcher_entry_must_be_a_spec_named_after_it() -> None:
    matchers.MATCHERS.register("zz_bad", "os:sep")
    try:
        with pytest.raises(ConfigError, match="is not a MatcherSpec named \\$zz_bad"):
            matcher_problems({"n": {"$zz_bad": 1}})
    finally:
        matchers.MATCHERS.unregister("zz_bad")


def test_registry_concurrent_first_misses_all_see_the_plugins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Extraction runs in worker threads: a second thread asking while the first reads the
    # entry-point group must wait for it, not see the group as read and empty.
    import importlib.metadata
    import threading
    import time

    from toolgrade._core.registry import Registry

    reg: Registry[str] = Registry("thing", "toolgrade.test-concurrent")
    started, release = threading.Event(), threading.Event()

    class _Point:
        name, value = "p", "string:digits"

    def slow(group: str) -> list[_Point]:
        started.set()
        release.wait(5)
        return [_Point()]

    monkeypatch.setattr(importlib.metadata, "entry_points", slow)
    seen: list[list[str]] = []
    first = threading.Thread(target=lambda: seen.append(reg.names()))
    first.start()
    assert started.wait(5)
    second = threading.Thread(target=lambda: seen.append(reg.names()))
    second.start()
    time.sleep(0.05)
    release.set()
    first.join(5)
    second.join(5)
    assert seen == [["p"], ["p"]]
