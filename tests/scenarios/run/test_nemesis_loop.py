"""The nemesis's loop (scenarios/run/nemesis_loop.py) on a stage of stand-ins: faults applied on
time and healed, skipped with their reason, and the fault holding healed however the loop ends
(Ctrl-C included). The real processes' case is tests/scenarios/run/test_nemesis_ctrl_c_e2e.py."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from scenarios.checker.fault_history import fault_spans, read_history
from scenarios.engine.faults.schedule import Fault, Schedule
from scenarios.engine.timeline import Timeline
from scenarios.run.nemesis_loop import HistoryLog, run_faults


class FakeApp:
    """The app part as the loop and the pause's applier use it."""

    def __init__(self) -> None:
        self.running = True
        self.paused = False
        self.calls: list[str] = []
        self.process = SimpleNamespace(pid=4242)

    def pause(self) -> None:
        self.paused = True
        self.calls.append("SIGSTOP")

    def resume(self) -> None:
        if self.paused:
            self.calls.append("SIGCONT")
        self.paused = False


class FakeSupervision:
    """Counts ticks; interrupts the loop (as Ctrl-C would) once `interrupt_when` holds."""

    def __init__(self, interrupt_when: Any = None) -> None:
        self.ticks = 0
        self.interrupt_when = interrupt_when

    def tick(self) -> None:
        self.ticks += 1
        if self.interrupt_when is not None and self.interrupt_when():
            raise KeyboardInterrupt

    def start(self, why: str) -> str:
        return "started again"

    def caused_by_fault(self) -> None:
        pass


def _stage(app: FakeApp) -> Any:
    return SimpleNamespace(app=app, timeline=Timeline(), say=lambda text: None, query=None)


def _schedule(*faults: Fault, minutes: float = 0.02) -> Schedule:
    return Schedule(1, minutes, tuple(sorted({f.kind for f in faults})), True, faults)


def test_a_pause_is_applied_on_time_and_continued_after_its_hold(tmp_path: Path) -> None:
    app = FakeApp()
    stage = _stage(app)
    path = tmp_path / "history.jsonl"
    with HistoryLog(path, stage.timeline) as history:
        applied = run_faults(
            stage,
            _schedule(Fault(1, 0.2, "pause", 0.5, "the app's process group", 1)),
            FakeSupervision(),
            history,
            stage.say,
        )
    assert app.calls == ["SIGSTOP", "SIGCONT"]
    assert [a.healed for a in applied] == ["SIGCONT of the process group 4242"]
    [span] = fault_spans(read_history(path))
    assert span.kind == "pause" and span.end is not None
    assert 0.4 <= span.end - span.start <= 1.5
    assert [b.label for b in stage.timeline.bands()] == ["#1 pause"]


def test_ctrl_c_during_a_pause_continues_the_app_and_records_the_heal(tmp_path: Path) -> None:
    app = FakeApp()
    stage = _stage(app)
    path = tmp_path / "history.jsonl"
    with HistoryLog(path, stage.timeline) as history, pytest.raises(KeyboardInterrupt):
        run_faults(
            stage,
            _schedule(Fault(1, 0.0, "pause", 60.0, "the app's process group", 1), minutes=2),
            FakeSupervision(interrupt_when=lambda: app.paused),
            history,
            stage.say,
        )
    assert app.calls == ["SIGSTOP", "SIGCONT"] and not app.paused
    assert [e.event for e in read_history(path)] == ["fault", "heal"]
    assert stage.timeline.fault_bands[0].end is not None


def test_a_fault_on_an_app_that_is_down_is_skipped_with_its_reason(tmp_path: Path) -> None:
    app = FakeApp()
    app.running = False
    stage = _stage(app)
    path = tmp_path / "history.jsonl"
    with HistoryLog(path, stage.timeline) as history:
        applied = run_faults(
            stage,
            _schedule(Fault(1, 0.0, "pause", 1.0, "the app's process group", 1)),
            FakeSupervision(),
            history,
            stage.say,
        )
    assert applied == [] and app.calls == []
    [skip] = read_history(path)
    assert (skip.event, skip.number) == ("skip", 1)
    assert skip.detail == "the app was down (between an exit and its restart)"


def test_faults_past_the_minutes_are_recorded_as_not_reached(tmp_path: Path) -> None:
    app = FakeApp()
    stage = _stage(app)
    path = tmp_path / "history.jsonl"
    with HistoryLog(path, stage.timeline) as history:
        run_faults(
            stage,
            _schedule(Fault(1, 30.0, "pause", 1.0, "the app's process group", 1), minutes=0.01),
            FakeSupervision(),
            history,
            stage.say,
        )
    [skip] = read_history(path)
    assert skip.event == "skip" and skip.detail.startswith("not reached in 0.01 min")
