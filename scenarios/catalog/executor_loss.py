"""Executor loss: one executor JVM dies in the middle of a batch; the driver and the query go on.

In `local[2]` the driver, its executors and the state store share one JVM, so a kill -9 takes
them all. On a cluster the common failure is smaller: one executor dies (its machine, an
out-of-memory kill) while the driver lives. Spark runs the lost task again on another executor,
which has no copy of the state store in memory and loads it from the checkpoint's .delta files:
the checkpoint's other job, besides a restarted driver's.

1. The app runs on `local-cluster[2,1,1024]`: a driver and two executor JVMs on this machine,
   each state file write slowed to 2 s (`--checkpoint-latency fixed:2s@state`) so a batch's
   state write lasts long enough to be hit, and Spark's event log on;
2. while the stateful task writes its .delta file, the executor running it is killed with -9;
3. Spark's own event log shows the executor removed, the task attempt lost with it, and the
   stateful task done again on the other executor; the count goes on without a restart;
4. for contrast the driver is killed and restarted at once (as a supervisor would): both
   recoveries are timed from the kill to the next output line;
5. every message is counted exactly once.

With a user's query (`--query FILE.py`, one that keeps state: the kill aims at its state write)
the kills are the same; each recovery is timed from the kill to the next batch the checkpoint
commits (a query has no output line to wait for), and the oracle judges the query's rows at the
end. No record crashes the app here; one would land in an executor's Python worker, whose
signal still kills the whole app (docs/your-query.md#the-crash-on-a-record).

Usage: `python -m scenarios run executor-loss --fast`
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from launch.process import ManagedProcess
from scenarios.catalog import steps
from scenarios.checker.expectations import check
from scenarios.engine.observers.spark_events import executor_pids
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.stage.executors import (
    CHECKPOINT_LATENCY,
    recovered_by,
    recovery_after,
    require_state,
    shared_checkpoint_line,
    show_task_moved,
    state_executor,
    wait_for_state_write,
)
from scenarios.engine.step import Step

__all__ = ["SCENARIO", "run", "LOCAL_CLUSTER"]

LOCAL_CLUSTER = "local-cluster[2,1,1024]"


def _start_on_two_executors(stage: Stage, events_dir: Path) -> ManagedProcess:
    """Every start of this scenario, the first and the driver's restart, alike."""
    return stage.app.start(
        master=LOCAL_CLUSTER, event_log_dir=events_dir, checkpoint_latency=CHECKPOINT_LATENCY
    )


def run(stage: Stage) -> None:
    events_dir = stage.folders.log / "events"
    with stage.step(
        steps.start_kafka(
            title="Start Kafka, and the counter on two executors (local-cluster)",
            happens=f"the broker and the producer; the app's driver starts two executor JVMs "
            f"({LOCAL_CLUSTER}); every state file write takes 2 s; Spark writes its event log "
            "to log/events/",
            watch="the producer's lines, then the app's batch lines below; then the narration's "
            "`executors 0 (pid …), 1 (pid …); the count's state lives on executor …` line",
            why="on a cluster the state store lives in an executor's memory, its files in the "
            "checkpoint; any executor can load it again from there",
            production="the checkpoint must be on storage every executor and the driver reach "
            "(HDFS, S3, ADLS, GCS), not on one machine's disk",
            question="On which executor will the count's state live?",
            answer="On whichever ran the stateful task last: the state store is cached in that "
            "executor's memory, its files are in the checkpoint. The scenario reads which one "
            "from Spark's event log.",
            giveaway=("ran the stateful task last",),
            checks=(),
        )
    ):
        stage.kafka.start()
        app = _start_on_two_executors(stage, events_dir)
        stage.output.wait_for_value(stage.timings.run_for_messages)
        require_state(stage, "executor-loss kills the executor writing a query's state")
        executor = state_executor(stage, events_dir)
        pids = executor_pids(session=app.pid)
        stage.fact("executors", pids)
        stage.say(
            f"executors {', '.join(f'{e} (pid {p})' for e, p in sorted(pids.items()))}; the "
            f"count's state lives on executor {executor}"
        )
        stage.say(shared_checkpoint_line(stage))
    _kill_executor(stage, app, events_dir, executor)
    _kill_driver_for_contrast(stage, events_dir)
    with stage.step(
        steps.finish(
            question="After an executor and a driver died, will any value be missing or doubled?",
            why="the retried task and the restarted driver both started from the last committed "
            "state version and the batch's planned offsets",
            production="the same check on your sink after a node failure: distinct ids against "
            "the source",
            giveaway=("none:", "every value 1..n"),
        )
    ):
        stage.finish_exactly_once()


def _kill_executor(stage: Stage, app: ManagedProcess, events_dir: Path, executor: str) -> None:
    with stage.step(
        Step(
            f"kill -9 executor {executor} while it writes the count's state",
            happens="the JVM holding the state store is killed in the middle of a batch, while "
            "its task writes the state's .delta file",
            watch="the app's batch lines below around the kill; then the narration's `the next "
            "output line came … s after the kill` line",
            why="the driver sees the executor's connection drop, marks its running task lost and "
            "schedules it again on the other executor, which loads the state of the last "
            "committed version from the checkpoint's .delta files and applies the batch",
            production="executors come and go (spot instances, OOM kills, autoscaling): a "
            "stateful query survives as long as its checkpoint is on shared storage",
            question="When the executor holding the state dies, will the app have to restart?",
            answer="No: the driver lives on; Spark removes the executor and runs the stateful "
            "task again on the other one (all checked).",
            giveaway=("driver lives on", "no restart", "runs the stateful task again"),
            checks=(
                "the driver lives on",
                "Spark removed the killed executor",
                "the stateful task ran again on the other executor",
            ),
        )
    ):
        wait_for_state_write(stage)
        pid = executor_pids(session=app.pid)[executor]
        killed_ms, killed_at = time.time() * 1000, time.monotonic()
        os.kill(pid, signal.SIGKILL)
        stage.timeline.event(f"kill -9 executor {executor}", "kill")
        stage.say(f"killed executor {executor} (pid {pid}) during its state write")
        recovery = stage.fact("executor_recovery_sec", recovery_after(stage, killed_at))
        stage.say(f"{recovered_by(stage)} came {recovery} s after the kill")
        stage.expect(
            check(
                "the driver lives on",
                app.running,
                "the same app process, no restart",
                f"pid {app.pid} {'running' if app.running else 'exited'}",
            )
        )
        show_task_moved(stage, events_dir, executor, killed_ms)


def _kill_driver_for_contrast(stage: Stage, events_dir: Path) -> None:
    with stage.step(
        Step(
            "For contrast: kill -9 the driver, restart it at once",
            happens="the driver and its two executors die together; a supervisor would start "
            "the app again right away, which the scenario does",
            watch="the restarted app's lines below until its first batch line; then the "
            "narration's `the next output line came … s after the kill (executor: … s)` line",
            why="without its driver a query is gone: the restart reads offsets/, commits/ and "
            "the state from the checkpoint, like the executor did, but pays for a new "
            "application",
            production="run the driver supervised (spark-submit --supervise, Kubernetes "
            "restarts) and expect its restart to cost far more than an executor's",
            question="Which costs more time before the next output line: losing an executor, or "
            "the driver?",
            answer="The driver: its kill and restart take longer than the executor's recovery "
            "(checked), because a new application must start.",
            giveaway=("the driver:", "take longer"),
            checks=("an executor's loss costs less than the driver's",),
        )
    ):
        stage.app.kill()
        killed_at = time.monotonic()
        _start_on_two_executors(stage, events_dir)
        recovery = stage.fact("driver_recovery_sec", recovery_after(stage, killed_at))
        executor = stage.facts["executor_recovery_sec"]
        stage.say(
            f"{recovered_by(stage)} came {recovery} s after the kill (executor: {executor} s)"
        )
        stage.expect(
            check(
                "an executor's loss costs less than the driver's",
                executor < recovery,
                "executor recovery shorter than driver kill + restart",
                f"executor {executor} s, driver {recovery} s",
            )
        )


SCENARIO = Scenario(
    name="executor-loss",
    title="an executor dies in the middle of a batch; the driver and the count go on",
    summary="The app on two executors (local-cluster); kill -9 of the executor writing the "
    "count's state: Spark runs the task on the other executor, which loads the state "
    "from the checkpoint; timed against a driver kill and restart.",
    origin="seed 002's worker failure",
    about="seed 002's worker failure, on a cluster: one executor dies in the middle of a "
    "batch; what does the query lose, and what does it cost?",
    run=run,
    checkpoint_stores=("local", "hdfs", "s3"),
    # The executor, its task and the state it reloads are any stateful query's.
    takes_query=True,
    with_query=(
        "a stateful query on `local-cluster`: kill -9 of the executor writing its state, then "
        "of the driver, each recovery timed to the next commit; no crash on a record here "
        "(one would land in an executor's Python worker, which signals the app: the whole app "
        "dies, as the seed's did); the oracle at the end"
    ),
)
