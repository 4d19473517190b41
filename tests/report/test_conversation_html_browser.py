"""Conversation timelines of the HTML report in a real headless Chromium.

A report with conversations opens with every timeline collapsed; expanding one shows
its turns, a failed check and the state diff, and hostile text in user turns, replies,
tool results and the state never runs. Same requirements and skip rules as
test_html_browser.py (Debian's `chromium` and `chromium-driver`, and `selenium`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser import CHROMEDRIVER, CHROMIUM, MISSING
from test_conversation_reports import conversation_run
from test_html_browser import PWNED

import toolgrade

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=MISSING)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("html") / "conversations.html"
    return toolgrade.write_report(conversation_run(), "html", path)


def test_browser_conversation_timeline_expands_to_show_diff_and_failed_check(
    driver: WebDriver, page: Path
) -> None:
    from selenium.webdriver.common.by import By

    driver.get(page.as_uri())
    panels = driver.find_elements(By.CSS_SELECTOR, "details.conversation")
    assert len(panels) == 5
    state = driver.find_element(By.CSS_SELECTOR, "details.conversation[data-name='CONV-STATE']")
    diff = state.find_element(By.CSS_SELECTOR, "table.state-diff")
    assert not diff.is_displayed()  # collapsed until opened
    state.find_element(By.TAG_NAME, "summary").click()
    assert state.get_attribute("open") is not None
    assert diff.is_displayed()
    row = diff.find_element(By.CSS_SELECTOR, "tr.d-changed")
    assert row.is_displayed() and row.text.startswith("/files/a.md changed")
    failed = state.find_element(By.CSS_SELECTOR, "tr.check.k-fail")
    assert failed.is_displayed()
    assert failed.text.startswith("final_state ✗ failed /files/a.md differs")
    turn = state.find_element(By.CSS_SELECTOR, "li.turn")
    assert turn.is_displayed() and "Rename the heading to A2" in turn.text
    first = state.find_element(By.CSS_SELECTOR, "p.first-failure")
    assert first.is_displayed() and "final_state: state_mismatch" in first.text
    # The page's own script and style pass its Content-Security-Policy.
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_browser_conversation_uncovered_call_note_visible(driver: WebDriver, page: Path) -> None:
    from selenium.webdriver.common.by import By

    driver.get(page.as_uri())
    panel = driver.find_element(By.CSS_SELECTOR, "details.conversation[data-name='CONV-UNCOVERED']")
    panel.find_element(By.TAG_NAME, "summary").click()
    exchange = panel.find_element(By.CSS_SELECTOR, ".exchange.o-uncovered")
    assert exchange.is_displayed()
    assert 'no rule covers read_file(path="b.md")' in exchange.text
    assert panel.find_element(By.CSS_SELECTOR, "li.turn.t-fail").is_displayed()


def test_browser_conversation_payloads_do_not_execute(driver: WebDriver, page: Path) -> None:
    from selenium.webdriver.common.by import By

    driver.get(page.as_uri())
    driver.execute_script("document.querySelectorAll('details').forEach(x => x.open = true)")
    pwned, prompt_pwned, title = driver.execute_script(PWNED)
    assert pwned is None and prompt_pwned is None and "PWNED" not in title
    injected = driver.find_element(
        By.CSS_SELECTOR, "details.conversation[data-name='CONV-INJECTED']"
    )
    assert "<img src=x onerror=" in injected.text
    assert "<script>document.title='PWNED'</script>" in injected.text
    assert driver.find_elements(By.CSS_SELECTOR, "main img, main script, main a") == []
