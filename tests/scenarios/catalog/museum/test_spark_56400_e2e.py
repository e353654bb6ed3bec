"""The timer exhibit end to end (`run known-bugs --exhibits SPARK-56400 --fast`) on the default
stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: two Spark
starts on transformWithState, each until four batches with messages have a batch after them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.museum.spark_56400 import ARMED, PHASES
from spark_app.lines.known_bug_table import TIMERS_FIRED, bug_named
from tests.scenarios.catalog.museum.exhibit_run import run_exhibit

BUG = bug_named("SPARK-56400")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_timer_exhibit_holds_the_lines_outcome(tmp_path: Path) -> None:
    result, seen, checks = run_exhibit(tmp_path, BUG)
    for phase in PHASES:
        timers = result["facts"][f"{BUG.ticket} {phase.name}"]
        assert len(timers) >= ARMED
        if phase.idle_ms < 0:  # the exhibit met the bound's case: timers due before the last batch
            assert all(t["due_ms"] <= t["previous_ms"] for t in timers)
            assert checks[
                f"{BUG.ticket}: every timer {phase.name} was due at or before "
                "the previous batch's time"
            ]["held"]
        if seen["outcome"] == TIMERS_FIRED:
            assert all(t["in_time"] for t in timers)
            assert checks[
                f"{BUG.ticket}: every timer due {phase.name} fired, in its batch or the next"
            ]["held"]
