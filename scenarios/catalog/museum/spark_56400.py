"""SPARK-56400 and SPARK-56566: a transformWithState timer due at or before its batch's time.

SPARK-56400 made transformWithState's timer scan start after the previous batch's timestamp
(an exclusive lower bound to `getExpiredTimers`) so that it skips the tombstones of timers
already fired. A timer registered at or before that timestamp then falls below the scan: it
never fires, and nothing says so. SPARK-56566 (apache/spark#55474) took the bound out of the
operator's calls again and kept it only as a parameter of the timer store. Read in the served
jars (`javap`, 26 Nov 2026): 4.0.0's and 4.1.1's `TimerStateImpl.getExpiredTimers` takes the
batch's timestamp alone (before SPARK-56400); 4.2.0's and 4.3.0's takes a lower bound too, and
both their operator (`TransformWithStateExec.processTimers`) and the state server our Python
processor talks to pass its default, no bound (SPARK-56566's code). So no line is known to carry
the bug: this exhibit is a guard, and holds that every timer fires on every line it runs on.

The app's idle timer is due `--idle-timer-sec` after the processing time of each batch with
messages. The exhibit runs it twice, each time on a new checkpoint: with 0 (the timer due at its
batch's own time) and with -60 s (due a minute before it, so at or before the previous batch's
time, checked per batch: exactly the timers the bound skipped). The app counts every message
under one key, so each batch with messages arms one timer. Once enough of those batches have a
committed batch after them, the exhibit reads each timer's event in the output log (its due
time and the batch it fired in, `batch_ms`) against the batches' times in `offsets/N`: each must
fire in its own batch or the next. Batch 0 is left out: it has no previous batch, so no bound.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-56400 --fast`
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import (
    exhibit_step,
    say_prediction,
    spark_version_of,
    verdict_name,
)
from scenarios.checker.expectations import check
from scenarios.checker.state_events import events_in_lines, timers_due
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import BatchOffsets, committed_batches
from spark_app.lines.known_bug_table import bug_named, judge
from spark_app.lines.output_line import EventLine
from spark_app.lines.state_events import details_in

__all__ = [
    "AT_ITS_TIME",
    "BEFORE_PREVIOUS",
    "EXHIBIT",
    "run",
    "TWS",
    "PHASES",
    "ARMED",
    "Phase",
    "Firing",
    "armed_timers",
    "firings",
    "phase_outcome",
    "outcome_of",
]

BUG = bug_named("SPARK-56400")

# transformWithState needs RocksDB; its timers need ProcessingTime, which --idle-timer-sec sets.
TWS = {"counter": "transform-with-state", "state_store": "rocksdb"}
# Batches with messages judged per phase, each with a committed batch after it.
ARMED = 4


@dataclass(frozen=True)
class Phase:
    """One start of the app: where its timers are due, as `--idle-timer-sec`."""

    name: str
    idle_sec: float

    @property
    def idle_ms(self) -> int:
        return round(self.idle_sec * 1000)


PHASES = (
    Phase("at its batch's own time", 0.0),
    # A minute before: at or before the previous batch's time even when batches on a
    # busy machine take seconds (checked per timer).
    Phase("before the previous batch's time", -60.0),
)


@dataclass(frozen=True)
class Firing:
    """A timer armed by a batch with messages, and the events that named its due time."""

    batch_id: int
    due_ms: int
    previous_ms: int  # the previous batch's processing time: the bug's lower bound
    events: int  # idle-timer events with this due time (0: it never fired)
    fired_in: int | None  # the committed batch whose time the first one names, if any

    @property
    def at_or_before_previous(self) -> bool:
        return self.due_ms <= self.previous_ms

    @property
    def in_time(self) -> bool:
        """Fired once, in the batch that armed it or the next one."""
        return (
            self.events == 1
            and self.fired_in is not None
            and self.fired_in - self.batch_id in (0, 1)
        )

    def words(self) -> str:
        if not self.events:
            where = "never fired"
        else:
            where = (
                "fired in a batch not committed"
                if self.fired_in is None
                else f"fired in batch {self.fired_in}"
            )
            where += "" if self.events == 1 else f" ({self.events} events)"
        return (
            f"batch {self.batch_id}: due {self.due_ms} ({self.due_ms - self.previous_ms:+d} "
            f"ms from the previous batch's time), {where}"
        )


def armed_timers(
    batches: Sequence[BatchOffsets], idle_ms: int
) -> list[tuple[BatchOffsets, int, int]]:
    """Each committed batch after the first that read messages and has a committed batch after
    it: (the batch, its timer's due time, the previous batch's time), oldest first."""
    found = []
    for before, batch, after in zip(batches, batches[1:], batches[2:]):
        previous_ms, batch_ms = before.batch_timestamp_ms, batch.batch_timestamp_ms
        if previous_ms is None or batch_ms is None or not after.committed:
            continue
        if (batch.end_total or 0) > (before.end_total or 0):
            found.append((batch, batch_ms + idle_ms, previous_ms))
    return found


def firings(
    batches: Sequence[BatchOffsets], events: Sequence[EventLine], idle_ms: int
) -> list[Firing]:
    """Each armed timer with the batch its idle-timer event fired in (by the event's batch_ms,
    the batch's processing time in offsets/N)."""
    by_time = {b.batch_timestamp_ms: b.batch_id for b in batches}
    found = []
    for batch, due, previous in armed_timers(batches, idle_ms):
        seen = timers_due(events, due)
        fired_in = by_time.get(details_in(seen[0].text).get("batch_ms")) if seen else None
        found.append(Firing(batch.batch_id, due, previous, len(seen), fired_in))
    return found


def phase_outcome(found: Sequence[Firing]) -> str:
    """One phase's outcome: the fix's (every timer fired in time), the bug's (one never fired),
    or a third behaviour in words (one fired late, or twice)."""
    if any(not f.events for f in found):
        return BUG.when_present
    odd = [f.words() for f in found if not f.in_time]
    return f"a timer fired late or twice: {odd[0]}" if odd else BUG.when_fixed


def outcome_of(outcomes: Sequence[str]) -> str:
    """The exhibit's outcome from its phases': the bug's if one phase shows it, else the first
    that is not the fix's, else the fix's."""
    if BUG.when_present in outcomes:
        return BUG.when_present
    return next((o for o in outcomes if o != BUG.when_fixed), BUG.when_fixed)


def _due_words(phase: Phase) -> str:
    if phase.idle_ms == 0:
        return "due at that batch's own processing time"
    return f"due {-phase.idle_sec:g} s before that batch's processing time (already overdue)"


def _phase_step(
    phase: Phase,
    *,
    giveaway: tuple[str, ...],
    checks: tuple[str, ...],
    answer: str = "",
    verdict: bool = True,
) -> Step:
    """The step of one start of the app, its timers due as `phase` says."""
    return exhibit_step(
        BUG,
        f"a transformWithState timer due {phase.name}",
        happens=f"the app counts on transformWithState (RocksDB) on a new checkpoint with "
        f"--idle-timer-sec {phase.idle_sec:g}: every batch with messages arms the key's timer "
        f"{_due_words(phase)}; the app runs until {ARMED} such batches (after batch 0) each "
        "have a committed batch after them, and stops",
        watch="the app's batch lines; once it stops, the narration's line per timer: its due "
        "time, and the batch it fired in (from its event line in the output log and the "
        "batches' times in the offset log)",
        why="a timer scan that starts after the previous batch's time (SPARK-56400) never "
        "reaches a timer due at or before it; SPARK-56566 scans from the start again",
        question="On the Spark line this run uses: will every timer fire, in the batch that "
        "armed it or the next?",
        giveaway=giveaway,
        checks=checks,
        answer=answer,
        verdict=verdict,
    )


# Due at its batch's own time: after the previous batch's time, so no bound skips it.
AT_ITS_TIME = _phase_step(
    PHASES[0],
    answer="Yes: each fired once, in its batch or the one after (checked). A scan bound at the "
    "previous batch's time, where a line has one, stays below a timer due at its own batch's "
    "time; the next step puts the timers below it.",
    giveaway=("fired once", "yes:"),
    checks=(f"{BUG.ticket}: every timer due {PHASES[0].name} fired, in its batch or the next",),
    verdict=False,  # made over both starts, in the next step
)
# Due a minute before its batch's time: at or before the previous batch's, the bound's case.
BEFORE_PREVIOUS = _phase_step(
    PHASES[1],
    giveaway=(BUG.when_fixed, BUG.when_present),
    checks=(
        f"{BUG.ticket}: every timer {PHASES[1].name} was due at or before the previous "
        "batch's time",
        f"{BUG.ticket}: every timer due {PHASES[1].name} fired, in its batch or the next",
    ),
)


def run(stage: Stage) -> None:
    started = time.monotonic()
    with stage.step(AT_ITS_TIME):
        at_its_time = _phase(stage, PHASES[0], first=True)
    with stage.step(BEFORE_PREVIOUS):
        before = _phase(stage, PHASES[1], first=False)
        # The verdict over both: the bug's if either shows it (the second is its case).
        outcomes = [phase_outcome(at_its_time), phase_outcome(before)]
        outcome = outcome_of(outcomes)
        version = spark_version_of(stage)
        stage.say(f"observed: {outcome}")
        verdict = judge(BUG, version, outcome)
        stage.fact(
            BUG.ticket,
            {
                "spark": version,
                "outcome": outcome,
                "status": verdict.status,
                "phases": dict(zip((p.name for p in PHASES), outcomes)),
                "seconds": round(time.monotonic() - started, 1),
            },
        )
        stage.expect(check(verdict_name(BUG), verdict.held, verdict.expected, verdict.actual))


def _phase(stage: Stage, phase: Phase, first: bool) -> list[Firing]:
    folder = stage.folders.checkpoints
    if first:
        say_prediction(stage, BUG)
    log = stage.app.folders.output_log
    mark = len(_lines(log))  # this phase's events only: due times of another may coincide
    stage.app.start(**TWS, idle_timer_sec=phase.idle_sec)

    def judged() -> list[BatchOffsets] | None:
        batches = committed_batches(folder)
        return batches if len(armed_timers(batches, phase.idle_ms)) >= ARMED else None

    stage.app.wait_while_up(
        judged,
        f"{ARMED} batches with messages, each followed by a committed batch",
        timeout=stage.timings.spark_start_timeout_sec + 120,
        poll=0.5,
    )
    stage.app.stop()
    batches = committed_batches(folder)
    found = firings(batches, events_in_lines(_lines(log)[mark:]), phase.idle_ms)
    for firing in found:
        stage.say(firing.words())
    stage.fact(f"{BUG.ticket} {phase.name}", [asdict(f) | {"in_time": f.in_time} for f in found])
    if phase.idle_ms < 0:  # the case the bound skips: is that what ran?
        below = [f for f in found if not f.at_or_before_previous]
        stage.expect(
            check(
                f"{BUG.ticket}: every timer {phase.name} was due at or before the "
                "previous batch's time",
                not below,
                "due time <= the previous batch's time in offsets/N, for each",
                "; ".join(f.words() for f in below) or "each one",
            ),
        )
    stage.expect(
        check(
            f"{BUG.ticket}: every timer due {phase.name} fired, in its batch or the next",
            bool(found) and phase_outcome(found) == BUG.when_fixed,
            f"{ARMED} or more timers, each with one event in time",
            "; ".join(f.words() for f in found) or "no timer armed",
        ),
    )
    stage.app.delete_checkpoint()
    return found


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


# A guard (no served line has the bug), on request: run all --fast ran 44 min 53 s on 29 Nov
# against its 40 with it in the museum's default set (docs/decisions.md); its e2e test is nightly.
EXHIBIT = Exhibit(BUG, run, on_request=True)
