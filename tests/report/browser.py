"""Headless Chromium for the HTML report's browser tests (`driver` in conftest.py).

Needs Debian's `chromium` and `chromium-driver` (`make browser` installs them) and the
`selenium` client (a dev dependency); the tests skip with `MISSING` when they are absent.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
MISSING = (
    "headless Chromium not available: install Debian's chromium and chromium-driver "
    "packages (`make browser`) to run the HTML report browser tests"
)

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,2000",
)


def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    """A headless Chromium, quit afterwards; skips the test when there is none."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        browser = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    except WebDriverException as exc:
        pytest.skip(f"{MISSING} (chromium failed to start: {exc.msg})")
    browser.set_page_load_timeout(30)
    yield browser
    browser.quit()
