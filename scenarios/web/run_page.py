"""A run's live page: a listener of each stage, and a look at what the run writes, as frames.

`scenarios run NAMES --web` hands `RunPage.hear` to every stage before the narrator. The stage
tells it which scenario opened (with its timeline and a way to read its checkpoint, copied from
a store through the store's mirror), each step's start and end, the remarks and the checks. A
thread of its own looks four times a second at what the run already writes, through the demo's
readings (the checkpoint's batches and state versions, the output log's verdict) and the
processes' consoles (the app's last line, its error class), and the timeline gives Kafka's
offsets and the app's life. A step shows its question when it starts (`asked`, with "Run step"
when a guided run waits for it), then what happens while it runs, then its answer and checks.

Usage:
    page = RunPage(server, scenarios, guided=True)
    with page: run_scenarios(scenarios, settings, narrator, listeners=[page.hear, gate.hear])
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType

from launch.folders import Folders
from scenarios.demo.readings import read_checkpoint_view, read_verdict
from scenarios.demo.state import CheckpointView, Verdict
from scenarios.engine.events import (
    Checked,
    Event,
    Said,
    StageClosed,
    StageOpened,
    StepEnded,
    StepStarted,
)
from scenarios.engine.observers.periodic import PeriodicSampler
from scenarios.engine.scenario import Scenario
from scenarios.engine.timeline import Timeline
from scenarios.report.last_words import read_last_words
from scenarios.report.live_tail import shown_line
from scenarios.report.timeline import timeline_svg
from scenarios.web.server import LiveServer
from scenarios.web.view import AppView, LiveView, PartitionView, StepView, render_fragment

__all__ = ["RunPage", "app_from_timeline", "LOOK_SEC"]

LOOK_SEC = 0.25
ROW = 6
PICTURE_SEC = 300.0
# A Spark console's error line can carry a whole Java trace flattened into it (~11 kB).
_TAIL_BYTES = 65536
_DOWN_STATUS = {"kill": "killed", "stop": "stopped", "crash": "crashed"}
_DOWN_KINDS = ("kill", "stop", "crash", "exit")


def app_from_timeline(timeline: Timeline) -> tuple[str, int]:
    """The narrated app's status and restarts, from what the stage recorded: up (starting on
    its first start), else how it last went down."""
    _, events, _, _ = timeline.snapshot()
    periods = list(timeline.up_periods)  # with the open one still open
    if not periods:
        return "not started", 0
    restarts = len(periods) - 1
    if periods[-1][1] is None:
        return "running", restarts
    downs = [e for e in events if e.kind in _DOWN_KINDS and e.at >= periods[-1][0]]
    if not downs:
        return "stopped", restarts
    last = downs[-1]
    if last.kind == "exit":
        return ("stopped" if last.label == "exit 0" else "failed"), restarts
    return _DOWN_STATUS[last.kind], restarts


@dataclass
class _Scenario:
    """What the page knows of the scenario running now."""

    name: str
    title: str
    position: str
    folders: Folders
    timeline: Timeline | None
    checkpoint: Callable[[Path], Path] | None
    step: StepView | None = None
    remarks: list[str] = field(default_factory=list)
    closed: bool = False


class RunPage(PeriodicSampler):
    """The run's frames, published as the stage speaks and as its files change."""

    # The timeline picture's height in pixels: what is left of 1280x720 under the other parts.
    picture_height = 250

    def __init__(self, server: LiveServer, scenarios: list[Scenario], guided: bool = False) -> None:
        super().__init__(LOOK_SEC, "live-run-page")
        self._server = server
        self._titles = {s.name: s.title for s in scenarios}
        self._order = [s.name for s in scenarios]
        self._guided = guided
        self._now: _Scenario | None = None
        self._lock = threading.RLock()
        self._checkpoint = CheckpointView(summary="not read yet")
        self._verdict = Verdict(ok=None, headline="no output yet")
        self._app_line = ("", None)  # (last line shown, error class)
        self._console: tuple[Path, int] | None = None

    # -- what the stage tells -------------------------------------------------------------------
    def hear(self, event: Event) -> None:
        with self._lock:
            if isinstance(event, StageOpened):
                self._open(event)
            elif self._now is None:
                return
            elif isinstance(event, StepStarted):
                step, shown = event.step, self._now.step
                before = shown if shown is not None and shown.phase == "answered" else None
                self._now.step = StepView(
                    event.number,
                    step.title,
                    "asked" if self._guided else "running",
                    question=step.question,
                    happens=step.happens,
                    answer=step.answer,
                    why=step.why,
                    before=replace(before, before=None) if before is not None else None,
                )
            elif isinstance(event, StepEnded) and self._now.step is not None:
                self._now.step = replace(self._now.step, phase="answered", waiting=False)
            elif isinstance(event, Checked) and self._now.step is not None:
                checks = (*self._now.step.checks, (event.check.name, event.check.held))
                self._now.step = replace(self._now.step, checks=checks[-4:])
            elif isinstance(event, Said):
                self._now.remarks = [*self._now.remarks, event.text][-3:]
            elif isinstance(event, StageClosed):
                self._now.closed = True
                self._look(checkpoint=False)  # a store has stopped: its last look stands
        self._show()

    def waiting(self, step: int | None) -> None:
        """The gate's news: `step` waits for Enter (None: it runs now)."""
        with self._lock:
            if self._now is None or self._now.step is None:
                return
            if step is None:
                shown = self._now.step
                self._now.step = replace(
                    shown, waiting=False, phase="running" if shown.phase == "asked" else shown.phase
                )
            elif self._now.step.number == step:
                self._now.step = replace(self._now.step, waiting=True, phase="asked")
        self._show()

    def _open(self, event: StageOpened) -> None:
        self._drop_copy()
        folders = Folders(event.processes.parent)
        name = event.scenario or folders.root.name
        number = self._order.index(name) + 1 if name in self._order else 0
        position = f"scenario {number} of {len(self._order)}" if number else ""
        self._now = _Scenario(
            name, self._titles.get(name, ""), position, folders, event.timeline, event.checkpoint
        )
        self._checkpoint = CheckpointView(summary="no checkpoint yet")
        self._verdict = Verdict(ok=None, headline="no output yet")
        self._app_line, self._console = ("", None), None

    # -- what the run writes --------------------------------------------------------------------
    def sample(self) -> None:
        with self._lock:
            if self._now is None or self._now.closed:
                return
            self._look()
        self._show()

    def _look(self, checkpoint: bool = True) -> None:
        now = self._now
        assert now is not None
        if checkpoint:
            folder = now.folders.checkpoints
            if now.checkpoint is not None:
                folder = now.checkpoint(self._copy_dir())
            last = now.timeline.last_sample() if now.timeline is not None else None
            earliest = last.earliest if last is not None else None
            self._checkpoint = read_checkpoint_view(folder, earliest, row=ROW)
        self._verdict = read_verdict(now.folders.output_log)
        self._app_line = self._last_line(now.folders.processes)

    def _copy_dir(self) -> Path:
        assert self._now is not None
        return self._now.folders.root / "live-page-view"

    def _drop_copy(self) -> None:
        if self._now is not None:
            shutil.rmtree(self._copy_dir(), ignore_errors=True)

    def _last_line(self, processes: Path) -> tuple[str, str | None]:
        """The narrated app's last console line as the tail shows it, and its error class."""
        try:
            consoles = [p for p in processes.glob("spark-*.out") if p.stat().st_size]
        except OSError:
            return self._app_line
        if not consoles:
            return ("", None)
        newest = max(consoles, key=lambda p: p.stat().st_mtime)
        size = newest.stat().st_size
        if self._console == (newest, size):
            return self._app_line  # nothing new: no read
        self._console = (newest, size)
        with newest.open("rb") as handle:
            handle.seek(max(0, size - _TAIL_BYTES))
            text = handle.read().decode("utf-8", errors="replace")
        lines = [line for line in text.splitlines() if line.strip()]
        shown = [s for line in lines if (s := shown_line(line))]
        condition = read_last_words(lines[-1]).condition if lines else None
        return (shown[-1] if shown else "", condition)

    # -- the frame ------------------------------------------------------------------------------
    def _show(self) -> None:
        with self._lock:
            view = self._view()
        if view is not None:
            self._server.publish(render_fragment(view))

    def _view(self) -> LiveView | None:
        now = self._now
        if now is None:
            return None
        timeline = now.timeline or Timeline()
        status, restarts = app_from_timeline(timeline)
        line, condition = self._app_line
        return LiveView(
            title=now.name,
            subtitle=" · ".join(
                p for p in (now.title, now.position, "ended" if now.closed else "") if p
            ),
            app=AppView(
                status,
                restarts,
                last_line=line,
                error_class=condition if status in ("crashed", "failed") else None,
            ),
            verdict=self._verdict,
            partitions=_partitions(timeline, self._checkpoint),
            checkpoint=self._checkpoint.summary,
            batches=self._checkpoint.batches,
            state=self._checkpoint.state,
            step=now.step,
            picture=timeline_svg(
                timeline,
                "Kafka and the checkpoint over time",
                last_sec=PICTURE_SEC,
                width=1260,
                height=self.picture_height,
                font=17,
                legend=False,
            ),
            events=tuple(now.remarks),
        )

    # -- life cycle -----------------------------------------------------------------------------
    def stop(self) -> None:
        super().stop()
        with self._lock:
            self._drop_copy()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _partitions(timeline: Timeline, checkpoint: CheckpointView) -> tuple[PartitionView, ...]:
    last = timeline.last_sample()
    if last is None or last.earliest is None or last.latest is None:
        return ()
    resume = {name.rsplit("-", 1)[-1]: offset for name, offset in checkpoint.resume_at}
    if last.per_partition:
        return tuple(
            PartitionView(f"partition {n}", earliest, latest, resume.get(str(n)))
            for n, (earliest, latest) in enumerate(last.per_partition)
        )
    at = sum(resume.values()) if resume else None
    return (PartitionView("all partitions", last.earliest, last.latest, at),)
