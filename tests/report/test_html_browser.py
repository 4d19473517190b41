"""The HTML report in a real headless Chromium: it renders, filters and sorts, and model
output carrying `<script>` and `onerror=` payloads never runs.

Needs Debian's `chromium` and `chromium-driver` (`make browser` installs them) and the
`selenium` client (a dev dependency); skipped with a message when they are missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser import CHROMEDRIVER, CHROMIUM, MISSING

import toolgrade

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason=MISSING)

PWNED = "return [document.body.dataset.pwned, document.body.dataset.promptpwned, document.title]"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = toolgrade.RunResult.model_validate_json(
        (Path(__file__).resolve().parent.parent / "data" / "report" / "run.json").read_text(
            encoding="utf-8"
        )
    )
    return toolgrade.write_report(run, "html", tmp_path_factory.mktemp("html") / "report.html")


def _open(driver: WebDriver, path: Path, fragment: str = "") -> None:
    driver.get(path.as_uri() + fragment)


def _shown(driver: WebDriver) -> list[str]:
    shown: list[str] = driver.execute_script(
        "return Array.from(document.querySelectorAll('#failures tbody.case'))"
        ".filter(b => !b.hidden).map(b => b.dataset.name)"
    )
    return shown


def test_browser_report_renders_summary_and_charts(driver: WebDriver, page: Path) -> None:
    from selenium.webdriver.common.by import By

    _open(driver, page)
    assert driver.title.startswith("Tool-Call Correctness Report")
    assert driver.find_element(By.ID, "accuracy").text == "27.3%"
    bars = driver.find_elements(By.CSS_SELECTOR, "svg g.bar rect")
    assert len(bars) == 3 + 6
    assert all(bar.size["height"] > 0 for bar in bars)
    summary = driver.find_element(By.ID, "summary")
    assert summary.is_displayed() and summary.size["width"] > 300
    assert driver.find_element(By.ID, "filter-count").text == "10 of 10 shown"
    png = driver.get_screenshot_as_png()
    assert png.startswith(b"\x89PNG") and len(png) > 20_000
    # Our own script and style must pass the page's Content-Security-Policy.
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_browser_filters_by_text_status_and_category(driver: WebDriver, page: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _open(driver, page)
    box = driver.find_element(By.ID, "filter-text")
    box.send_keys("parse_config")
    assert _shown(driver) == ["TC-015"]
    box.clear()
    box.send_keys(" ")  # an input event with an empty query shows everything again
    assert len(_shown(driver)) == 10
    Select(driver.find_element(By.ID, "filter-status")).select_by_value("wrong_args")
    assert _shown(driver) == ["TC-023", "TC-031", "TC-099"]
    Select(driver.find_element(By.ID, "filter-category")).select_by_value("edge")
    assert _shown(driver) == ["TC-099"]
    assert driver.find_element(By.ID, "filter-count").text == "1 of 10 shown"


def test_browser_filter_from_url_fragment(driver: WebDriver, page: Path) -> None:
    _open(driver, page, "#status=timeout")
    assert _shown(driver) == ["TC-060"]


def test_browser_sorts_by_column(driver: WebDriver, page: Path) -> None:
    from selenium.webdriver.common.by import By

    _open(driver, page)
    header = driver.find_element(By.CSS_SELECTOR, "th[data-key='latency'] button")
    header.click()
    ascending = _shown(driver)
    assert ascending[:2] == ["TC-060", "TC-061"]  # no latency sorts first
    assert ascending[2:4] == ["TC-043", "TC-042"]
    header.click()
    assert _shown(driver) == list(reversed(ascending))
    sort = driver.find_element(By.CSS_SELECTOR, "th[data-key='latency']")
    assert sort.get_attribute("aria-sort") == "descending"


def test_browser_model_payloads_do_not_execute(driver: WebDriver, page: Path) -> None:
    from selenium.webdriver.common.by import By

    _open(driver, page)
    driver.execute_script("document.querySelectorAll('details').forEach(x => x.open = true)")
    pwned, prompt_pwned, title = driver.execute_script(PWNED)
    assert pwned is None and prompt_pwned is None
    assert "PWNED" not in title
    case = driver.find_element(By.CSS_SELECTOR, "tbody[data-name='TC-099']")
    raw = case.find_element(By.CSS_SELECTOR, "pre.raw").text
    assert "<img src=x onerror=\"document.body.dataset.pwned='1'\">" in raw
    assert "<script>document.title='PWNED'</script>" in case.text
    assert driver.find_elements(By.CSS_SELECTOR, "main img, main script") == []


def test_browser_escaping_alone_stops_payloads(
    driver: WebDriver, page: Path, tmp_path: Path
) -> None:
    """Without the CSP (its second line of defence) the payloads still do not run."""
    text = page.read_text(encoding="utf-8")
    head, rest = text.split('<meta http-equiv="Content-Security-Policy"', 1)
    bare = tmp_path / "no-csp.html"
    bare.write_text(head + rest.split(">", 1)[1], encoding="utf-8")
    _open(driver, bare)
    pwned, prompt_pwned, title = driver.execute_script(PWNED)
    assert (pwned, prompt_pwned) == (None, None) and "PWNED" not in title
    assert _shown(driver)  # the page's own script still ran


def test_browser_detects_an_unescaped_payload(driver: WebDriver, tmp_path: Path) -> None:
    """Control: the same payload, not escaped, does run, so the checks above can fail."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<html><body><img src=x onerror=\"document.body.dataset.pwned='1'\">"
        "<script>document.title='PWNED'</script></body></html>",
        encoding="utf-8",
    )
    _open(driver, bad)
    pwned, _, title = driver.execute_script(PWNED)
    assert pwned == "1" and title == "PWNED"


@pytest.fixture(scope="module")
def served_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page of a run served by a vLLM whose parser missed most calls (conftest)."""
    from conftest import serving_run

    run = toolgrade.RunResult.model_validate_json(
        (Path(__file__).resolve().parent.parent / "data" / "report" / "run.json").read_text(
            encoding="utf-8"
        )
    )
    served = serving_run.__wrapped__(run)  # type: ignore[attr-defined]
    return toolgrade.write_report(served, "html", tmp_path_factory.mktemp("html") / "served.html")


def test_browser_filters_by_serving_class(driver: WebDriver, served_page: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get_log("browser")  # read out what earlier pages logged
    _open(driver, served_page)
    serving = Select(driver.find_element(By.ID, "filter-serving"))
    serving.select_by_value("calls_in_text")
    assert _shown(driver) == ["TC-015", "TC-023", "TC-031", "TC-051", "TC-099"]
    Select(driver.find_element(By.ID, "filter-status")).select_by_value("wrong_args")
    assert _shown(driver) == ["TC-023", "TC-031", "TC-099"]
    serving.select_by_value("structured")
    assert _shown(driver) == []
    assert driver.find_element(By.ID, "accuracy-as-served").text == "18.2%"
    label = driver.find_element(By.CSS_SELECTOR, "tbody[data-name='TC-043'] .serving.fault")
    assert label.get_attribute("textContent") == "malformed_call"  # its row is filtered out
    assert "call_<img src=x onerror=alert(1)>@octocat #12" in (label.get_attribute("title") or "")
    pwned, prompt_pwned, title = driver.execute_script(PWNED)
    assert (pwned, prompt_pwned) == (None, None) and "PWNED" not in title
    assert driver.find_elements(By.CSS_SELECTOR, "main img, main script") == []
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_browser_serving_filter_from_url_fragment(driver: WebDriver, served_page: Path) -> None:
    _open(driver, served_page, "#serving=calls_in_reasoning")
    assert _shown(driver) == ["TC-042"]
