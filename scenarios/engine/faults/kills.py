"""A kill -9 of the Spark app aimed at a moment of a micro-batch, and where it landed.

Three moments: just after a batch's console line (the batch boundary: committed, nothing to
replay); just after Spark wrote `offsets/N` (mid-batch: the restart runs batch N again); the
moment the output log grows, before `commits/N` (mid-write: the restart runs batch N again
although its lines are in the log). Where the kill really landed is read afterwards from the
checkpoint and the output log (scenarios/checker/kill_landing.py holds the record). Which
moment a kill aims at is drawn with the run's seed by scenarios/engine/faults/schedule.py, the
one place faults are drawn (`KILL_MOMENTS` lives there).

Usage: `landing = kill_at(stage, "mid-batch", random.Random(1))`
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import TYPE_CHECKING

from launch.errors import WaitTimeout
from scenarios.checker.kill_landing import KillLanding, batch_values
from scenarios.engine.faults.schedule import KILL_MOMENTS
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.batch_line import parse_batch_lines

if TYPE_CHECKING:
    from scenarios.engine.stage import Stage

__all__ = ["KILL_MOMENTS", "kill_at", "landing_of", "wait_for_batches"]


def _output_size(stage: Stage) -> int:
    path = stage.folders.output_log
    return path.stat().st_size if path.exists() else 0


def wait_for_batches(stage: Stage, batches: int) -> None:
    """Let the app finish `batches` more micro-batches (their console lines appear)."""
    stage.output.wait_for_batches(batches, more=True, poll=0.05)


def _aim(stage: Stage, moment: str, rng: random.Random, within: float | None = None) -> bool:
    """Return at the moment aimed at: the kill follows at once. With `within`, return False
    once that many seconds passed without it (the app still starting, say): the kill follows
    anyway. Without it, wait as long as the app runs."""
    try:
        if moment == "batch boundary":
            _wait_for_a_batch_line(stage, within)
            # Deliberate randomness inside the pause before the next trigger, not a synchronisation.
            time.sleep(rng.uniform(0.0, 0.3))
        elif moment == "mid-batch":
            seen = stage.store.newest_batches(stage.folders.checkpoints)[0]

            def planned() -> bool:
                offsets, commits = stage.store.newest_batches(stage.folders.checkpoints)
                return offsets > max(seen, commits)

            stage.app.wait_while_up(
                planned, "Spark to plan the next batch (a new offsets/N)", within, poll=0.005
            )
            time.sleep(rng.uniform(0.0, 0.1))
        else:
            size = _output_size(stage)
            # Polled tightly: between the sink's write and commits/N there are only milliseconds.
            stage.app.wait_while_up(
                lambda: _output_size(stage) > size, "the output log to grow", within, poll=0.002
            )
    except WaitTimeout:
        if within is None:
            raise
        return False
    return True


def _wait_for_a_batch_line(stage: Stage, within: float | None) -> None:
    if within is None:
        wait_for_batches(stage, 1)
        return
    since = stage.app.mark()
    stage.app.wait_while_up(
        lambda: bool(parse_batch_lines(stage.app.output(since))),
        "a batch line from the Spark app",
        within,
        poll=0.05,
    )


def landing_of(stage: Stage, aimed: str, partitions: int = 1) -> KillLanding:
    """Read where the kill landed; the app is dead, so the files no longer change."""
    info = read_checkpoint(stage.app.checkpoint_view())
    in_log = Counter(stage.output.verify().values)
    if info.pending is None or info.pending.end is None:
        return KillLanding(aimed, None, (), (), {})
    values = batch_values(info.pending_start, info.pending.end, partitions)
    written = tuple(v for v in values if in_log[v])
    return KillLanding(
        aimed, info.pending.batch_id, values, written, {v: in_log[v] for v in written}
    )


def kill_at(
    stage: Stage,
    moment: str,
    rng: random.Random,
    partitions: int = 1,
    within: float | None = None,
) -> KillLanding:
    """Aim at `moment`, kill -9 the app there and say where the kill landed. With `within`, a
    moment that does not come in that many seconds is not waited for: the kill lands where the
    app is then, and its `aimed` says so."""
    reached = _aim(stage, moment, rng, within)
    stage.app.kill()
    aimed = moment if reached else f"{moment} (not reached in {within:g} s)"
    landing = landing_of(stage, aimed, partitions)
    stage.say(f"aimed at {aimed}, landed {landing.landed}: {landing.describe()}")
    return landing
