"""A guided scenario's live page in a real browser: a step's question, run from the page with
the terminal's token, then its answer.

`scenarios run checkpoint-reset --fast --guided --web` runs on a terminal of its own (a pty:
`--guided` waits for Enter on a terminal only), and headless Chromium reads the page as a
trainer sees it (scenarios/web/tour.py). Nightly: CI's one browser test of the page is the
demo's (tests/scenarios/demo/test_demo_web_browser_e2e.py).

Needs /usr/bin/chromium (apt-get install chromium; .ci/run installs it).
"""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from scenarios.web.tour import ANSWERED, ASKED, SPARK_START_SEC, Command, browser_page, wait_for
from tests.scenarios.report.test_pages_browser_e2e import _wait_until_gone

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.nightly]

RUN = ["-m", "scenarios", "run", "checkpoint-reset", "--fast", "--guided", "--web"]


def _words(text: str) -> str:
    """Text as a terminal wraps it or a page lays it out: one space between words."""
    return " ".join(text.split())


def test_a_guided_step_shows_its_question_runs_from_the_page_then_shows_its_answer(
    tmp_path: Path,
) -> None:
    report = tmp_path / "report"
    run = Command([*RUN, "--report", str(report)], terminal=True)
    try:
        with browser_page(tmp_path / "chromium-profile") as page:
            step_url = run.url("live page that runs the steps")
            page.goto(step_url)
            wait_for(page, ASKED, SPARK_START_SEC)
            step = page.locator("#step")
            assert step.get_attribute("data-number") == "1"
            question = step.locator(".question").inner_text()
            assert question.startswith("Question") and len(question) > len("Question ") + 10
            assert page.locator("#step .answer").count() == 0  # no answer before it runs

            # The plain address has no token: its button cannot step the run.
            viewer = page.context.new_page()
            viewer.goto(step_url.split("#", 1)[0])
            viewer.wait_for_selector("#run-step")
            assert viewer.locator("#run-step").is_disabled()
            viewer.close()

            page.locator("#run-step").click()
            run.wait(r"\(run from the live page\)")
            wait_for(page, ANSWERED, SPARK_START_SEC, arg=1)
            shown = page.locator("#answer-before").inner_text()
            assert shown.startswith("Step 1's answer")
            answer = _words(shown.removeprefix("Step 1's answer"))
            # The same answer the terminal printed under step 1, before step 2's question
            # (rich wraps it in a panel: its words compared, the frame left out).
            run.wait(r"(?i)step 2\b", 60)
            printed = _words(re.sub(r"[│╭╮╰╯─]", " ", "\n".join(run.output)))
            assert answer[:60] in printed, (answer, printed[-2000:])
            assert re.search(r"Step 2: ", page.locator("#step h2").inner_text())
    finally:
        run.stop(signal.SIGTERM)
    _wait_until_gone(str(report))
