"""The nemesis's loop: its own supervision of the app, the schedule's faults applied and healed
on time, and the history of both written as it happens.

**The supervision** restarts the Spark app whenever its process is gone, like a production
supervisor (spark-submit --supervise, an orchestrator's restart policy) and unlike the app's own
`--supervise` (spark_app/supervisor.py): that one is the app's parent, so a fault sent to the
app's process group would reach it too; it stops for good on SIGTERM, which the nemesis sends
as a fault; and it gives up after repeated failures without progress, which a full disk or a
long cut cause on purpose. This one lives in the nemesis's own process, outside the app's
process group, never gives up, and waits 1 s, 2 s, 4 s, up to 8 s between starts that made no
progress (the committed offset did not move), 1 s again once one did. A paused app is alive: it
is not restarted.

**The faults** come in the schedule's order, each at its planned time or, when the one before
still holds, as soon as it is healed; none is applied after the minutes are over (those are
recorded as not reached). Whatever ends the loop (the minutes, Ctrl-C, an error), the fault
holding is healed first: a paused app continued, a cut restored, a disk freed.

Usage:
    with HistoryLog(stage.folders.root / HISTORY_FILE, stage.timeline) as history:
        supervision = Supervision(stage, history, {"fail_on_data_loss": False})
        supervision.start("first start")
        applied = run_faults(stage, schedule, supervision, history)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from launch.errors import LaunchError
from scenarios.checker.fault_history import HistoryEntry, format_entry
from scenarios.engine.faults.appliers import Applied, FaultSkipped, apply_fault
from scenarios.engine.faults.schedule import Fault, Schedule
from scenarios.engine.stage import Stage
from scenarios.engine.timeline import Timeline
from scenarios.errors import ScenarioError
from spark_app.errors import error_in_text

__all__ = ["HistoryLog", "Supervision", "applied_kinds", "latest_committed", "run_faults"]

_FIRST_BACKOFF_SEC = 1.0
_MAX_BACKOFF_SEC = 8.0
_TICK_SEC = 0.2


class HistoryLog:
    """The run's history file, a JSON line per event (scenarios/checker/fault_history.py),
    flushed as each is written."""

    def __init__(self, path: Path, timeline: Timeline) -> None:
        self.path = path
        self._timeline = timeline
        self._out: IO[str] | None = None

    def __enter__(self) -> HistoryLog:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._out = self.path.open("a", encoding="utf-8")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def write(self, event: str, **fields: Any) -> HistoryEntry:
        entry = HistoryEntry(round(self._timeline.now(), 3), round(time.time(), 3), event, **fields)
        if self._out is not None:
            self._out.write(format_entry(entry) + "\n")
            self._out.flush()
        return entry


def latest_committed(timeline: Timeline) -> int | None:
    """The highest committed offset the timeline's sampler has seen (None: none yet)."""
    samples = timeline.snapshot()[0]
    seen = [s.committed for s in samples if s.committed is not None]
    return max(seen) if seen else None


class Supervision:
    """Starts the app again whenever it is gone; never gives up (see the module's words)."""

    def __init__(self, stage: Stage, history: HistoryLog, options: dict[str, Any]) -> None:
        self._stage = stage
        self._history = history
        self._options = options
        self.starts = 0
        self._backoff = _FIRST_BACKOFF_SEC
        self._not_before = 0.0
        self._committed_at_start: int | None = None
        self._accounted: object | None = None  # the process whose end is accounted for

    @property
    def restarts(self) -> int:
        return max(0, self.starts - 1)

    def start(self, why: str) -> str:
        """Start the app now; how, in words (a kill's and a SIGTERM's heal)."""
        self._note_exit()
        process = self._stage.app.start(**self._options)
        self.starts += 1
        self._committed_at_start = latest_committed(self._stage.timeline)
        self._history.write("start", pid=process.pid, detail=why)
        return f"started again (start {self.starts}, pid {process.pid})"

    def tick(self) -> None:
        """Start the app again if it is gone and its backoff is over."""
        if self._stage.app.running:
            return
        now = time.monotonic()
        if self._note_exit():
            progressed = (latest_committed(self._stage.timeline) or -1) > (
                self._committed_at_start if self._committed_at_start is not None else -1
            )
            self._backoff = (
                _FIRST_BACKOFF_SEC if progressed else min(self._backoff * 2, _MAX_BACKOFF_SEC)
            )
            self._not_before = now + self._backoff
        if now >= self._not_before:
            self.start(f"the app was down (backoff {self._backoff:g} s)")

    def caused_by_fault(self) -> None:
        """The current process was ended by a fault (a kill, a SIGTERM): not a crash to record."""
        self._accounted = self._stage.app.process

    def _note_exit(self) -> bool:
        """Put an exit of the current process that no fault caused into the history (once);
        True when this call did."""
        app = self._stage.app
        if self.starts == 0 or app.running:
            return False
        process = app.process
        if self._accounted is process:
            return False
        self._accounted = process
        code = app.wait_exit(timeout=30, kind="crash")
        error = error_in_text(process.output())
        said = str(error) if error is not None else (app.last_words().splitlines() or [""])[-1]
        self._history.write("exit", pid=process.pid, detail=f"exit {code}: {said[:300]}")
        return True


def run_faults(
    stage: Stage,
    schedule: Schedule,
    supervision: Supervision,
    history: HistoryLog,
    say: Callable[[str], None],
) -> list[Applied]:
    """Apply the schedule's faults on time for its minutes, supervising the app meanwhile;
    the faults applied, each healed, however the loop ends."""
    begin = time.monotonic()
    end = begin + schedule.minutes * 60
    pending: list[Fault] = list(schedule.faults)
    applied: list[Applied] = []
    active: tuple[Applied, float, int] | None = None  # the fault holding, its heal time, band
    try:
        while True:
            now = time.monotonic()
            if active is not None and now >= active[1]:
                _heal(stage, active, history)
                active = None
            if active is None and now >= end:
                break
            if active is None and pending and now - begin >= pending[0].at_sec:
                fault = pending.pop(0)
                active = _apply(stage, fault, supervision, history, say)
                if active is not None:
                    applied.append(active[0])
                continue  # a kill or a SIGTERM heals at once, on the next turn
            supervision.tick()
            time.sleep(_TICK_SEC)
    finally:
        if active is not None:
            try:
                _heal(stage, active, history)
            except Exception as error:  # the run's own error (or Ctrl-C) goes on: say this one
                say(f"healing fault #{active[0].fault.number} failed: {error}")
    for fault in pending:
        history.write(
            "skip",
            number=fault.number,
            kind=fault.kind,
            target=fault.target,
            detail=f"not reached in {schedule.minutes:g} min (planned at {fault.at_sec:.1f} s)",
        )
    if pending:
        say(f"{len(pending)} fault(s) of the schedule not reached in {schedule.minutes:g} min")
    return applied


def _apply(
    stage: Stage,
    fault: Fault,
    supervision: Supervision,
    history: HistoryLog,
    say: Callable[[str], None],
) -> tuple[Applied, float, int] | None:
    say(f"fault {fault.line()}")
    try:
        applied = apply_fault(stage, fault, supervision.start)
    except (FaultSkipped, LaunchError, ScenarioError) as skipped:
        history.write(
            "skip", number=fault.number, kind=fault.kind, target=fault.target, detail=str(skipped)
        )
        say(f"fault #{fault.number} {fault.kind} skipped: {skipped}")
        return None
    if fault.kind in ("kill", "term"):
        supervision.caused_by_fault()
    band = stage.timeline.band_start(f"#{fault.number} {fault.kind}", fault.kind)
    history.write(
        "fault", number=fault.number, kind=fault.kind, target=applied.target, detail=applied.detail
    )
    return applied, time.monotonic() + fault.hold_sec, band


def _heal(stage: Stage, active: tuple[Applied, float, int], history: HistoryLog) -> None:
    applied, _, band = active
    try:
        how = applied.heal()
    finally:
        stage.timeline.band_end(band)
    fault = applied.fault
    history.write("heal", number=fault.number, kind=fault.kind, target=applied.target, detail=how)
    stage.say(f"fault #{fault.number} {fault.kind} healed: {how}")


def applied_kinds(applied: Sequence[Applied]) -> dict[str, int]:
    """How many faults of each kind were applied."""
    counts: dict[str, int] = {}
    for a in applied:
        counts[a.fault.kind] = counts.get(a.fault.kind, 0) + 1
    return counts
