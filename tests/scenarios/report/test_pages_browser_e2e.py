"""The report pages in a real browser: Debian's Chromium, headless, driven by Playwright.

One real quick run (`run checkpoint-reset --fast --report DIR`, Spark and the embedded Kafka for
real) is made once per session; its index.html must agree with its JSON, and every link and
picture on it must resolve. A failing case is made deterministically from ScenarioResult
objects: its failed check must be on the first screen at 1280x800. Screenshots go to the
session's temporary folder (printed), so a person can look at what the browser saw.

Needs /usr/bin/chromium (apt-get install chromium; .ci/run installs it). Runs with --slow.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.report.pages import Column, write_index, write_matrix_page
from scenarios.report.verdicts import write_reports
from tests.scenarios.report.test_pages import matrix, results

pytestmark = [pytest.mark.e2e, pytest.mark.spark]

CHROMIUM = Path("/usr/bin/chromium")
# Known to be needed on our machines: no sandbox as root, no GPU, nothing fetched from outside.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREEN = {"width": 1280, "height": 800}
REAL_RUN_TIMEOUT_SEC = 900


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Chromium with a fresh profile; gone (every process of it) when the session ends."""
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (as .ci/run does)")
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport=SCREEN,
            offline=True,
        )  # offline: the page must need no network
        try:
            yield context
        finally:
            context.close()
    _wait_until_gone(str(profile))


def _wait_until_gone(marker: str, timeout_sec: float = 20.0) -> None:
    """Poll until no process has `marker` (our profile folder) on its command line."""
    deadline = time.monotonic() + timeout_sec
    while (left := _processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, f"processes left running with {marker} on their command line: {left}"


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_text(errors="replace"):
                found.append(int(entry.name))
        except OSError:  # the process ended while we looked
            continue
    return found


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    opened = browser.new_page()
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="session")
def real_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report folder of one real quick run, made once per session."""
    folder = tmp_path_factory.mktemp("real-report")
    command = [
        sys.executable,
        "-m",
        "scenarios",
        "run",
        "checkpoint-reset",
        "--fast",
        "--report",
        str(folder),
    ]
    log = folder.parent / "real-run.log"
    with log.open("w") as out:
        run = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            run.wait(timeout=REAL_RUN_TIMEOUT_SEC)
        finally:
            _stop(run)
    # Spark, Kafka and the producer ran in folders under `folder`: none of them may be left.
    _wait_until_gone(str(folder))
    assert (folder / "index.html").is_file(), f"no index.html; the run's output: {log}"
    return folder


def _stop(run: subprocess.Popen[bytes]) -> None:
    """SIGTERM first: the command line cleans up its Spark and Kafka like on Ctrl-C."""
    if run.poll() is None:
        run.send_signal(signal.SIGTERM)
        try:
            run.wait(timeout=120)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()


@pytest.fixture
def failing_report(tmp_path: Path) -> Path:
    """A report with a passed, a failed and an errored scenario (see test_pages.results)."""
    chosen = results(tmp_path)
    write_reports(chosen, tmp_path)
    write_index(chosen, tmp_path)
    return tmp_path


def open_page(page: Any, path: Path) -> Any:
    page.goto(path.resolve().as_uri())
    return page


def screenshot(page: Any, name: str, folder: Path) -> Path:
    shot = folder / f"{name}-1280x800.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")
    return shot


def test_the_verdict_table_says_what_the_json_says(real_report: Path, page: Any) -> None:
    open_page(page, real_report / "index.html")
    rows = page.locator("#verdicts tbody tr")
    assert rows.count() == 1
    row = rows.nth(0)
    data = json.loads((real_report / f"{row.get_attribute('data-scenario')}.json").read_text())
    held = sum(c["held"] for c in data["checks"])
    assert row.locator("td.name a").inner_text() == data["name"] == "checkpoint-reset"
    assert row.locator("td.verdict").inner_text().split()[-1] == data["verdict"].upper()
    assert row.locator("td.held").inner_text() == f"{held}/{len(data['checks'])}"
    assert row.locator("td.duration").inner_text() == f"{data['duration_sec']:.0f} s"
    assert row.locator("td.spark").inner_text() == data["spark_version"] != ""
    assert row.locator("td.stack").inner_text() == data["stack"] == "apache/connector"
    section = page.locator("#scenario-checkpoint-reset")
    assert section.locator("table.checks tbody tr").count() == len(data["checks"])
    assert section.locator("li.step").count() == sum(e["kind"] == "step" for e in data["narration"])
    screenshot(page, "real-run", real_report.parent)


def test_every_link_and_picture_resolves(real_report: Path, browser: Any, page: Any) -> None:
    open_page(page, real_report / "index.html")
    pictures = page.eval_on_selector_all(
        "img", "els => els.map(i => [i.complete, i.naturalWidth, i.alt])"
    )
    assert pictures and all(done and width > 0 for done, width, _ in pictures), pictures
    links = page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)")
    fragments = [h for h in links if "#" in h]
    assert fragments and all(page.locator(f"#{h.split('#', 1)[1]}").count() == 1 for h in fragments)
    files = [h for h in links if "#" not in h]
    labels = page.eval_on_selector_all("ul.links a", "els => els.map(a => a.textContent)")
    assert {"JSON report", "log/spark.log", "log/streaming-output.log"} <= set(labels)
    visitor = browser.new_page()
    try:
        for href in files:
            assert _opens(visitor, href), f"broken link: {href}"
    finally:
        visitor.close()


def _opens(page: Any, href: str) -> bool:
    """The browser loads the file (or starts downloading it, for a type it does not show)."""
    try:
        response = page.goto(href)
    except Exception as error:  # Playwright raises its own Error for both cases
        return "Download is starting" in str(error)
    return response is None or response.ok


def test_nothing_scrolls_sideways_at_1280(
    real_report: Path, failing_report: Path, page: Any
) -> None:
    for report in (real_report, failing_report):
        open_page(page, report / "index.html")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= SCREEN["width"], f"{report}: {wide} px wide"


def test_a_failed_check_is_on_the_first_screen(failing_report: Path, page: Any) -> None:
    open_page(page, failing_report / "index.html")
    named = page.locator("#verdicts li", has_text="did not hold: exactly once")
    _on_screen(named)
    _on_screen(page.locator("#verdicts .badge.failed"))
    screenshot(page, "failing", failing_report)
    # Following the scenario's link, its first screen shows the failed check first.
    page.locator("#verdicts a[href='#scenario-endless-retention']").click()
    first_check = page.locator("#scenario-endless-retention table.checks tbody tr").first
    assert first_check.get_attribute("class") == "failed"
    assert "DID NOT HOLD" in first_check.inner_text()
    _on_screen(first_check)
    screenshot(page, "failing-section", failing_report)


def _on_screen(element: Any) -> None:
    """Visible and wholly inside the 1280x800 window as it stands, without scrolling."""
    assert element.is_visible()
    box = element.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= SCREEN["height"], box


def test_a_traceback_is_folded_on_screen_and_printed_whole(failing_report: Path, page: Any) -> None:
    open_page(page, failing_report / "index.html")
    traceback = page.locator("#scenario-checkpoint-reset details.traceback")
    assert traceback.locator("summary").is_visible()
    assert not traceback.locator("pre").is_visible()
    traceback.locator("summary").click()
    assert "WaitTimeout: value 9" in traceback.locator("pre").inner_text()
    page.reload()
    page.emulate_media(media="print")
    assert traceback.locator("pre").is_visible()
    assert page.pdf()[:5] == b"%PDF-"


def test_matrix_cells_open_that_runs_scenario(tmp_path: Path, page: Any) -> None:
    compared = matrix()
    for version, chosen in compared.results.items():
        write_reports(chosen, tmp_path / version)
        write_index(chosen, tmp_path / version)
    columns = [Column(v, f"PySpark {v}") for v in compared.columns]
    open_page(page, write_matrix_page(compared.rows(), columns, tmp_path))
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
    differing = page.locator("#matrix tr.differs")
    assert differing.locator("td.check").all_inner_texts() == ["verdict", "the error"]
    _on_screen(differing.last)
    screenshot(page, "matrix", tmp_path)
    differing.last.locator("td[data-column='4.3.0'] a").click()
    page.wait_for_url("**/4.3.0/index.html#scenario-endless-retention")
    _on_screen(page.locator("#scenario-endless-retention h2"))
    assert os.path.basename(page.url.split("#")[0]) == "index.html"
