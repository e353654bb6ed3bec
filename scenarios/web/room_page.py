"""The live page of an exercise's or the puzzle's first terminal, while the room works in a second.

`scenarios exercise NAME --web` and `scenarios puzzle --seed S --web` keep Kafka and the
producer in their terminal (scenarios/exercises/room.py) and serve the page `run --web` serves,
from the same machinery: a RunPage hears the stage's events and looks four times a second at the
folder through the demo's readings, so the room watches the checkpoint move while the job runs.
What differs is what the page says of the thing worked on (scenarios/web/room_brief.py):

- while the setup runs it says so; once handed over, it shows the task (or the puzzle's story)
  as the terminal printed it, where a run shows its step;
- the job is the attendee's (`sh app.sh` in a second terminal, or `puzzle --check`), not the
  stage's: its status is whether a Spark app runs on the folder's checkpoint (looked for once a
  second, as `--reset` looks), its restarts the starts seen since the hand-over;
- an exercise that asks for an answer withholds what holds it: no Kafka offsets, no ranges on
  the batches (their commits stay), no state, no timeline, the verdict's sign without its words;
- the puzzle withholds the same, shows nothing of its setup (no remark, nothing read before the
  hand-over) and, of the checkpoint, only the batches written after the hand-over: the setup's
  history and the broken checkpoint would name the fault.

Usage:
    with RoomPage(server, puzzle_brief(7)) as page:
        with room("puzzle", ws, settings, say, quiet=True, listeners=[page.hear]) as stage:
            ...
            page.handed_over(story_lines(ws, setup))
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from launch.leftovers import find_leftovers
from scenarios.demo.state import Verdict
from scenarios.engine.events import Event, Said, StageClosed, StageOpened
from scenarios.web.room_brief import RoomBrief
from scenarios.web.run_page import RunPage
from scenarios.web.server import LiveServer
from scenarios.web.view import AppView, LiveView

__all__ = ["JOB_LOOK_SEC", "RoomPage", "job_pids"]

# A look for the job is a walk through /proc: once a second is enough for a start or a stop.
JOB_LOOK_SEC = 1.0
_JOB_MODULE = "-m spark_app"


def job_pids(checkpoints: Path) -> list[int]:
    """The Spark apps running on `checkpoints` (the room's broker and producer run from the
    folder too, so only the Spark app counts)."""
    return [f.pid for f in find_leftovers([checkpoints], []) if _JOB_MODULE in f.command]


class RoomPage(RunPage):
    """The room's frames: the setup's as a run's, then the task and the attendee's job."""

    # The task takes the place of a step and is taller: at 250 the picture ran 60 px past
    # 1280x720 (docs/img/web/exercise-task.png, 29 Nov).
    picture_height = 170

    def __init__(self, server: LiveServer, brief: RoomBrief) -> None:
        super().__init__(server, [])
        self._brief = brief
        self._task: tuple[str, ...] | None = None  # None: the setup is still running
        self._handed_at = 0.0  # wall-clock time, as the files' mtimes are
        self._pids: list[int] = []
        self._starts = 0
        self._next_job_look = 0.0

    def hear(self, event: Event) -> None:
        # A setup's steps and checks are its own business: the page shows the task instead.
        if isinstance(event, StageOpened | StageClosed):
            super().hear(event)
        elif isinstance(event, Said) and not self._brief.quiet and self._task is None:
            super().hear(event)

    def handed_over(self, task: Sequence[str]) -> None:
        """The setup is done: show `task`, and follow the attendee's job from now on."""
        with self._lock:
            self._task = tuple(line.strip() for line in task if line.strip())
            self._handed_at = time.time()
            if self._now is not None:
                self._now.remarks = []  # the setup's, done with
        self.sample()

    # -- what the folder shows ------------------------------------------------------------------
    def sample(self) -> None:
        if self._task is None and self._brief.quiet:
            return  # nothing of the puzzle's setup is read, so nothing of it can show
        if self._task is not None and time.monotonic() >= self._next_job_look:
            self._next_job_look = time.monotonic() + JOB_LOOK_SEC
            self._look_for_job()
        super().sample()

    def _look_for_job(self) -> None:
        with self._lock:
            now = self._now
        if now is None:
            return
        pids = job_pids(now.folders.checkpoints)
        with self._lock:
            if pids and not self._pids:
                self._starts += 1
            self._pids = pids

    # -- the frame ------------------------------------------------------------------------------
    def _view(self) -> LiveView | None:
        view = super()._view()
        now, brief = self._now, self._brief
        if view is None or now is None:
            return view
        subtitle = f"{brief.subtitle} · ended" if now.closed else brief.subtitle
        if self._task is None:
            setting_up = replace(
                view, title=brief.title, subtitle=subtitle, step=None, task_heading=brief.setting_up
            )
            return _withheld(setting_up, brief.withhold) if brief.withhold else setting_up
        view = replace(
            view,
            title=brief.title,
            subtitle=subtitle,
            step=None,
            task_heading=brief.task_heading,
            task=self._task,
            app=self._job(),
        )
        if not brief.withhold:
            return view
        since = self._handed_at if brief.quiet else None
        return _withheld(view, brief.withhold, since, now.folders.checkpoints)

    def _job(self) -> AppView:
        where = "its lines go to the terminal that runs it; spark.log is in log/"
        restarts = max(0, self._starts - 1)
        if self._pids:
            pids = ", ".join(str(p) for p in self._pids)
            return AppView("running", restarts, f"the job, pid {pids}", last_line=where)
        if self._starts:
            return AppView("stopped", restarts, "the job has stopped", last_line=where)
        return AppView("not started", 0, "the job is the room's to start", last_line=where)


def _withheld(
    view: LiveView, why: str, since: float | None = None, checkpoints: Path | None = None
) -> LiveView:
    """The view less what would give the answer or the fault away; of the checkpoint, the
    batches (only those written after `since`, when given) with their commits, not their
    ranges, and of the output the verdict's sign, not its numbers."""
    batches = view.batches
    if since is not None and checkpoints is not None:
        batches = tuple(b for b in batches if _written_since(checkpoints, b.batch_id, since))
    ok = view.verdict.ok
    return replace(
        view,
        partitions=(),
        retention="",
        batches=tuple(replace(b, ranges=()) for b in batches),
        checkpoint=(
            "the batches written since the hand-over"
            if since is not None
            else "the batches, with their commits"
        ),
        state=None,
        picture="",
        events=(),
        verdict=Verdict(
            ok=ok, headline="its numbers withheld" if ok is not None else "no output yet"
        ),
        withheld=why,
    )


def _written_since(checkpoints: Path, batch_id: int, since: float) -> bool:
    """Whether the batch's plan or its commit was written at `since` or after."""
    for kind in ("offsets", "commits"):
        try:
            if (checkpoints / kind / str(batch_id)).stat().st_mtime >= since:
                return True
        except OSError:
            continue
    return False
