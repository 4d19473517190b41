"""Options for the extraction tests: the long fuzz campaign.

`pytest tests/extract --fuzz-long` (or `TOOLGRADE_FUZZ_EXAMPLES=N`, which also sets the
number of examples per format) runs the tests marked `fuzz_long` and many more fuzz
examples; `make test` runs a short campaign. The option is registered here, so it is
known when this folder (or a file in it) is named on the command line; the environment
variable works from anywhere.
"""

from __future__ import annotations

import os

import pytest

QUICK_EXAMPLES = 100
"""Fuzz examples per format in `make test` (the whole campaign well within a minute)."""
LONG_EXAMPLES = 1500
"""Fuzz examples per format with `--fuzz-long` (about five minutes on two cores)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-long",
        action="store_true",
        default=False,
        help="run the long extraction fuzz campaign (or set TOOLGRADE_FUZZ_EXAMPLES=N)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fuzz_long: part of the long extraction fuzz campaign (--fuzz-long)"
    )


def _examples_from_env() -> int | None:
    raw = os.environ.get("TOOLGRADE_FUZZ_EXAMPLES", "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


def _long(config: pytest.Config) -> bool:
    return bool(config.getoption("--fuzz-long", default=False)) or _examples_from_env() is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _long(config):
        return
    skip = pytest.mark.skip(reason="long fuzz campaign: run with --fuzz-long")
    for item in items:
        if "fuzz_long" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def fuzz_examples(pytestconfig: pytest.Config) -> int:
    """Hypothesis examples per format for the fuzz tests."""
    return _examples_from_env() or (LONG_EXAMPLES if _long(pytestconfig) else QUICK_EXAMPLES)
