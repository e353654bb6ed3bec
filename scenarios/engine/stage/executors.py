"""Moves on a cluster's executors, for the scenarios that kill one (executor-loss, worker-loss):
which executor holds the count's state, the moment its task writes the state, how long the
count took to go on, and what Spark's own event log recorded of the task moving elsewhere.

Usage:
    executor = state_executor(stage, events_dir)
    wait_for_state_write(stage)          # then kill it
    show_task_moved(stage, events_dir, executor, killed_ms)
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from launch.waiting import wait_until
from scenarios.checker.expectations import check
from scenarios.engine.observers.spark_events import SparkEvents, TaskRun
from scenarios.errors import StepFailed

if TYPE_CHECKING:
    from scenarios.engine.stage import Stage

__all__ = [
    "recovered_by",
    "require_state",
    "CHECKPOINT_LATENCY",
    "recovery_after",
    "shared_checkpoint_line",
    "show_task_moved",
    "state_executor",
    "wait_for_state_write",
]

# Long enough to hit the stateful task while it writes, short enough for a batch every few seconds.
# Only the state store's files wait: slow offsets/, commits/ and metadata added 6 s to the
# first output line of every start on a cluster (and 4 s to each batch) and nothing to the kill.
CHECKPOINT_LATENCY = "fixed:2s@state"


def state_executor(stage: Stage, events_dir: Path) -> str:
    """The executor that ran the stateful task last (the state store is cached there)."""

    def found() -> str | None:
        done = [t for t in SparkEvents.read(events_dir).state_tasks() if t.succeeded]
        return done[-1].executor if done else None

    return wait_until(
        found,
        timeout=120,
        what="the event log to show a stateful task",
        progress=stage.waiting,
    )


# A state file while Spark writes it: `.N.delta.<uuid>.tmp`, renamed to `N.delta` when done.
_WRITING = re.compile(r"\.\d+\.delta\.[^/]*\.tmp")


def wait_for_state_write(stage: Stage, timeout: float = 120.0) -> None:
    """Until a stateful task is writing its .delta file (2 s here), on whichever store holds
    the checkpoint: locally a glob, on HDFS or S3 a listing through the store's API."""
    folder = stage.folders.checkpoints / "state" / "0" / "0"
    poll = 0.05 if stage.settings.checkpoint_store == "local" else 0.2
    wait_until(
        lambda: any(_WRITING.fullmatch(name) for name in stage.store.files(folder)),
        timeout=timeout,
        poll=poll,
        what="a stateful task writing its .delta file",
        progress=stage.waiting,
    )


def shared_checkpoint_line(stage: Stage) -> str:
    """Where the checkpoint is, and why every node can reach it there."""
    if stage.settings.checkpoint_store == "local":
        return (
            f"the checkpoint is a local folder ({stage.folders.checkpoints}): that works here "
            f"only because the driver and every executor run on this machine and share its "
            f"disk; on machines of their own each would see a folder of its own "
            f"(--checkpoint-store hdfs puts it where a real cluster keeps it)"
        )
    return (
        f"the checkpoint is at {stage.store.location(stage.folders.checkpoints)}: every "
        f"node reaches it over the network, as on a cluster of separate machines"
    )


def recovery_after(stage: Stage, killed_at: float) -> float:
    """Seconds from `killed_at` (time.monotonic) to the next new value in the output log; with
    a query, whose rows name no value, to the next batch its checkpoint commits."""
    if stage.query is None:
        before = stage.output.verify().highest or 0
        stage.output.wait_for_value(before + 1)
    else:
        stage.output.wait_for_more(1)
    return round(time.monotonic() - killed_at, 1)


def recovered_by(stage: Stage) -> str:
    """What a recovery is timed to, in words: the counter's next output line, or a query's next
    commit."""
    return "the next output line" if stage.query is None else "the next committed batch"


def require_state(stage: Stage, killed: str) -> None:
    """A user's query that keeps no state gives a kill aimed at its state write nothing to aim
    at: one line, at once, instead of a wait for a stateful task that never comes. `killed`
    says what the scenario kills, e.g. "executor-loss kills the executor writing a query's
    state"."""
    if stage.query is not None and not any(
        name.startswith("state/") for name in stage.store.files(stage.folders.checkpoints)
    ):
        raise StepFailed(
            f"{stage.query.name} keeps no state (its checkpoint has no state/ after its first "
            f"batches): {killed}; run it with a stateful query, e.g. queries/count_per_key.py"
        )


def show_task_moved(stage: Stage, events_dir: Path, executor: str, killed_ms: float) -> None:
    """What Spark itself recorded: the executor removed, the stateful task run elsewhere (two
    checks of the current step)."""

    def moved() -> tuple[SparkEvents, TaskRun] | None:
        events = SparkEvents.read(events_dir)
        elsewhere = [
            t
            for t in events.state_tasks()
            if t.succeeded and t.executor != executor and t.finished_ms > killed_ms
        ]
        return (events, elsewhere[0]) if elsewhere and events.removed() else None

    events, rerun = wait_until(
        moved,
        timeout=120,
        what="the event log to show the task moved",
        progress=stage.waiting,
    )
    removed = [c for c in events.removed() if c.executor == executor]
    lost = [t for t in events.state_tasks() if not t.succeeded]
    stage.fact("executor_removed", [f"{c.executor}: {c.reason}" for c in events.removed()])
    stage.fact(
        "state_task_attempts_lost",
        [
            f"task {t.task_id} attempt {t.attempt} on executor {t.executor}: {t.reason}"
            for t in lost
        ],
    )
    stage.expect(
        check(
            "Spark removed the killed executor",
            bool(removed),
            f"SparkListenerExecutorRemoved for executor {executor}",
            "; ".join(f"{c.executor}: {c.reason[:120]}" for c in events.removed()),
        )
    )
    ran_elsewhere = rerun.succeeded and rerun.executor != executor and rerun.finished_ms > killed_ms
    stage.expect(
        check(
            "the stateful task ran again on the other executor",
            ran_elsewhere,
            f"a stateful task done on an executor other than {executor} after the kill",
            f"task {rerun.task_id} attempt {rerun.attempt} on executor {rerun.executor}"
            + (f"; lost before: {lost[-1].reason[:120]}" if lost else ""),
        )
    )
