"""An exercise's live page in a real browser: `exercise fix-forward --web` set up for real, its
task on the page once handed over, then the attendee's fixed job running past the poison pill.

The first terminal runs in a folder of the test's own (the exercise's folder is relative to
where it starts); the test plays the attendee's second terminal, and headless Chromium reads the
page as the room sees it (scenarios/web/tour.py's room_tour, which also takes its screenshots).
Nightly: CI's one browser test of the page is the demo's.

Needs /usr/bin/chromium (apt-get install chromium; .ci/run installs it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.exercises import find_exercise
from scenarios.exercises.exercise import fill
from scenarios.exercises.workspace import EXERCISE_HOME, Workspace
from scenarios.web.tour import ROOM_EXERCISE, browser_page, room_tour

pytestmark = [pytest.mark.e2e, pytest.mark.spark, pytest.mark.nightly]


def test_an_exercise_page_shows_its_task_then_the_attendees_job_past_the_poison_pill(
    tmp_path: Path,
) -> None:
    work = tmp_path / "room"
    work.mkdir()
    with browser_page(tmp_path / "chromium-profile") as page:
        assert room_tour(page, work) == 0  # Ctrl-C ends the first terminal as a room ends it
        assert page.locator("h1").inner_text() == f"exercise {ROOM_EXERCISE}"
        exercise = find_exercise(ROOM_EXERCISE)
        ws = Workspace(EXERCISE_HOME / ROOM_EXERCISE)  # as the terminal names it: relative
        setup = Workspace(work / ws.root).load()
        task = [" ".join(fill(s, ws, setup, exercise.name).split()) for s in exercise.task]
        shown = [" ".join(li.split()) for li in page.locator("#task li").all_inner_texts()]
        assert shown == task
        # The poison pill's batch, planned when the task was handed over, is committed now.
        committed = page.locator('#checkpoint li.batch[data-committed="yes"]')
        ids = [int(n or -1) for n in committed.evaluate_all("(l) => l.map((b) => b.dataset.batch)")]
        assert max(ids) >= setup.facts["stuck_batch"]
        # The page says it is no longer live once the first terminal has stopped.
        page.wait_for_function(
            "() => document.querySelector('#link')?.dataset.state !== 'live'", timeout=30_000
        )
