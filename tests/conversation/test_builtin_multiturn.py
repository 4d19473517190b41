"""The built-in conversation suite: its coverage, and every reference passes suite check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import toolgrade
from toolgrade.conversation._suite_check import check_conversations
from toolgrade.suite import (
    CHECK_NAMES,
    Conversation,
    PythonEnvironment,
    ScriptedEnvironment,
    Suite,
    TrajectoryMode,
)

NAME = "coding-agent-multiturn"
ROOT = Path(__file__).resolve().parents[2]
MODES: tuple[TrajectoryMode, ...] = ("exact", "in_order", "unordered", "subset", "superset")


@pytest.fixture(scope="module")
def suite() -> Suite:
    return toolgrade.load_suite(NAME)


def _uses(conversation: Conversation) -> set[str]:
    checks = conversation.checks
    used = set(conversation.deciding())
    used.update(n for n in CHECK_NAMES if n != "turns" and getattr(checks, n) not in (None, ()))
    return used


def test_builtin_multiturn_is_listed_and_loads(suite: Suite) -> None:
    assert NAME in toolgrade.builtin_suite_names()
    assert suite.schema_version == 2 and suite.version
    assert len(suite.conversations) >= 40 and not suite.single_cases


def test_builtin_multiturn_uses_every_check_and_mode(suite: Suite) -> None:
    used = set().union(*(_uses(c) for c in suite.conversations))
    assert used == set(CHECK_NAMES)
    modes = {c.checks.trajectory.mode for c in suite.conversations if c.checks.trajectory}
    assert modes == set(MODES)
    assert any(c.checks.success is not None for c in suite.conversations)
    finals = [c.checks.final_state for c in suite.conversations if c.checks.final_state]
    assert {f.exact for f in finals} == {True, False}
    assert any(t.reply is not None for c in suite.conversations for t in c.turns)
    assert any(c.fail for c in suite.conversations)


def test_builtin_multiturn_covers_both_environment_kinds(suite: Suite) -> None:
    kinds = {type(suite.environments[c.environment]) for c in suite.conversations if c.environment}
    assert kinds == {PythonEnvironment, ScriptedEnvironment}


def test_builtin_multiturn_has_long_and_no_call_conversations(suite: Suite) -> None:
    assert sum(len(c.turns) >= 8 for c in suite.conversations) >= 3
    no_call_turns = [t for c in suite.conversations for t in c.turns if t.expected == ()]
    assert sum(t.reply is not None for t in no_call_turns) >= 10


def test_builtin_multiturn_metadata_like_other_suites(suite: Suite) -> None:
    assert suite.categories and {c.category for c in suite.conversations} == set(suite.categories)
    assert {c.difficulty for c in suite.conversations} == {"easy", "medium", "hard"}
    assert all(c.tags and c.reference is not None for c in suite.conversations)
    assert len({c.id for c in suite.conversations}) == len(suite.conversations)


def test_builtin_multiturn_every_reference_passes_suite_check(suite: Suite) -> None:
    assert [p.render() for p in check_conversations(suite, base_dir=None)] == []


def test_builtin_multiturn_json_matches_its_generator() -> None:
    script = ROOT / "scripts" / "gen_multiturn.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
