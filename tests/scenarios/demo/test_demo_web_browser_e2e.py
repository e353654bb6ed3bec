"""The demo's live page in a real browser (headless Chromium, as the report's tests use it).

The demo runs with `--web` through pipes, keys sent as lines (Enter, `r`, then Ctrl-C), and the
page is read as a person in the room sees it: the DOM after its script swapped in what the
server sent (scenarios/web/tour.py waits for each state there). CI's one browser test of the
page; its minutes are paid by the plain demo's pipe test gone nightly (docs/testing.md).

Needs /usr/bin/chromium (apt-get install chromium; .ci/run installs it). Runs with --slow.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scenarios.web.tour import (
    ARRIVING,
    CRASHED,
    REPLAYED,
    SPARK_START_SEC,
    Command,
    browser_page,
    crashed_batch,
    demo_args,
    wait_for,
)
from tests.scenarios.demo.test_demo_e2e import _kill_leftovers, _no_leftovers

pytestmark = [pytest.mark.e2e, pytest.mark.spark]


def _committed(page) -> list[int]:  # type: ignore[no-untyped-def]
    batches = page.locator('#checkpoint li.batch[data-committed="yes"]')
    return [int(b) for b in batches.evaluate_all("els => els.map(e => e.dataset.batch)")]


def test_the_page_shows_batches_arriving_the_crash_and_the_restart_replaying_its_batch(
    tmp_path: Path, free_port: int
) -> None:
    log_dir = tmp_path / "log"
    demo = Command(demo_args(tmp_path, free_port))
    try:
        with browser_page(tmp_path / "chromium-profile") as page:
            page.goto(demo.url("[demo] live page:"))
            wait_for(page, ARRIVING, SPARK_START_SEC)
            assert "RUNNING" in page.locator("#app").inner_text()
            newest = max(_committed(page))
            # (The newest batch of the row may be planned, running: a committed one is read.)
            row = page.locator(f'#checkpoint li.batch[data-batch="{newest}"]').inner_text()
            assert re.search(r"offsets/(\d+) \[\d+, \d+\)\s+✔ commits/\1", row), row
            # Arriving: a newer batch comes onto the page by itself, no reload.
            page.wait_for_function(
                "n => [...document.querySelectorAll('#checkpoint li.batch[data-committed=\"yes\"]')]"
                ".some(e => Number(e.dataset.batch) > n)",
                arg=newest,
                timeout=60_000,
            )

            demo.send("")  # Enter: a negative key; the app crashes on it
            wait_for(page, CRASHED)
            assert "CRASHED" in page.locator("#app").inner_text()
            batch = crashed_batch(page)
            planned = page.locator(f'#checkpoint li.batch[data-batch="{batch}"]').inner_text()
            assert f"offsets/{batch}" in planned and "no commit: a restart replays it" in planned
            checkpoint = tmp_path / "checkpoints"
            assert (checkpoint / "offsets" / str(batch)).is_file()
            assert not (checkpoint / "commits" / str(batch)).exists()

            demo.send("r")
            wait_for(page, REPLAYED, SPARK_START_SEC, arg=batch)
            replayed = page.locator(f'#checkpoint li.batch[data-batch="{batch}"]').inner_text()
            assert f"commits/{batch}: replayed" in replayed
            verdict = page.locator("#verdict").inner_text()
            assert "OK" in verdict and "NOT OK" not in verdict, verdict
            assert "every message exactly once" in page.locator("#verdict-text").inner_text()
            assert page.locator("#restarts").inner_text() == "1"
            assert page.locator("#link").inner_text() == "live"

            # Ctrl-C stops the demo and its server: the open page says it is not live.
            assert demo.stop() == 0
            page.wait_for_function(
                "() => document.querySelector('#link').dataset.state === 'lost'", timeout=30_000
            )
            assert "not live" in page.locator("#link").inner_text()
        _no_leftovers(log_dir)
    finally:
        demo.stop()
        leftovers = _kill_leftovers(log_dir)
    assert not leftovers
