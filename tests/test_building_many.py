"""The collector pauses while a suite is built, and runs again after, whatever happens."""

from __future__ import annotations

import gc

import pytest

import toolgrade
from toolgrade._core.bulk import building_many
from toolgrade.errors import SuiteError


def test_the_collector_runs_again_after_an_error_and_nested_blocks() -> None:
    assert gc.isenabled()
    with pytest.raises(ValueError), building_many():
        with building_many():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block did not turn it back on
        raise ValueError
    assert gc.isenabled()


def test_a_collector_already_paused_stays_paused() -> None:
    gc.disable()
    try:
        with building_many():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_loading_suites_leaves_the_collector_running() -> None:
    toolgrade.load_suite("coding-agent")
    with pytest.raises(SuiteError):
        toolgrade.parse_suite('{"schema_version": 1, "name": "s", "cases": [{"id": 1}]}')
    assert gc.isenabled()
