"""Worker loss: a whole machine of a standalone cluster dies; the Master notices, the query goes on.

A Worker is the process that owns a machine's share of a Spark standalone cluster and starts
executors on it; when the machine dies, the Worker and its executors die together. Here a real
Master and two Workers run on this machine (spark_app/runtime/cluster.py, from PySpark's own launcher):

1. the app runs on the cluster (`--master spark://…`), one executor on each Worker;
2. while the stateful task writes its .delta file, the Worker whose executor runs it is killed
   with -9, executor and all, as when its machine loses power;
3. the Master marks the Worker DEAD; the driver loses the executor, runs the task on the
   executor of the remaining Worker, which loads the state from the checkpoint; the count goes
   on without a restart, timed from the kill to the next output line;
4. a replacement Worker registers, and the Master gives the application an executor on it;
5. every message is counted exactly once.

With a user's query (`--query FILE.py`, one that keeps state: the kill aims at its state write)
the cluster and the kill are the same; the recovery is timed from the kill to the next batch the
checkpoint commits (a query has no output line to wait for), and the oracle judges the query's
rows at the end. No record crashes the app here; one would land in an executor's Python worker
on a Worker, whose signal still kills the whole app (docs/your-query.md#the-crash-on-a-record).

Usage: `python -m scenarios run worker-loss --fast`
"""

from __future__ import annotations

import time
from pathlib import Path

from launch.process import ManagedProcess
from launch.waiting import wait_until
from scenarios.catalog import steps
from scenarios.checker.expectations import check
from scenarios.engine.observers.spark_events import SparkEvents, executor_pids
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
from spark_app.runtime.cluster import ClusterSettings, StandaloneCluster

__all__ = ["SCENARIO", "run"]


def run(stage: Stage) -> None:
    cluster = StandaloneCluster(ClusterSettings(workers=2), stage.folders.root / "cluster")
    try:
        _on_the_cluster(stage, cluster)
    finally:
        cluster.stop()


def _on_the_cluster(stage: Stage, cluster: StandaloneCluster) -> None:
    events_dir = stage.folders.log / "events"
    with stage.step(
        steps.start_kafka(
            title="Start Kafka, a standalone cluster (a Master, two Workers), and the counter on "
            "it",
            happens="the broker and the producer; a Master and two Workers start from PySpark's "
            "spark-class; the app asks the Master for executors; state file writes take 2 s",
            watch="the producer's lines, then the app's batch lines below; the narration's "
            "`Master spark://… (web UI …), 2 workers alive` line",
            why="on a cluster the driver plans, the executors on the Workers read Kafka and keep "
            "the state; the Master only hands out Workers' resources",
            production="the same layout as a real standalone, YARN or Kubernetes cluster: the "
            "checkpoint on shared storage is what lets any executor take over",
            question="How many executors will the app get, and who reads Kafka: the driver or "
            "the executors?",
            answer="Two, one on each Worker (checked); the executors read Kafka and keep the "
            "state, the driver plans.",
            giveaway=("one on each worker", "the executors read"),
            checks=("the app got an executor on each worker",),
        )
    ):
        cluster.begin()  # its JVMs start while Kafka does
        stage.kafka.start()
        cluster.wait_until_ready()
        stage.say(
            f"Master {cluster.master_url} (web UI {cluster.ui_url}), "
            f"{cluster.alive_workers()} workers alive"
        )
        app = stage.app.start(
            master=cluster.master_url,
            event_log_dir=events_dir,
            checkpoint_latency=CHECKPOINT_LATENCY,
        )
        stage.output.wait_for_value(stage.timings.run_for_messages)
        require_state(stage, "worker-loss kills the Worker whose executor writes a query's state")
        _one_executor_each(stage, cluster)
        executor = state_executor(stage, events_dir)
        worker = _worker_of(cluster, executor)
        stage.say(f"the count's state lives on executor {executor}, started by worker {worker}")
        stage.say(shared_checkpoint_line(stage))
    _kill_worker(stage, cluster, worker, events_dir, executor, app)
    _replacement(stage, cluster, events_dir)
    with stage.step(
        steps.finish(
            question="After losing a machine, will any value be missing or doubled?",
            why="the rerun task started from the last committed state version and the batch's "
            "planned offsets, which are in the checkpoint, not on the dead machine",
            production="compare with endless-retention: a driver's death costs a whole restart",
            giveaway=("none:", "every value 1..n"),
        )
    ):
        stage.finish_exactly_once()


def _one_executor_each(stage: Stage, cluster: StandaloneCluster) -> None:
    """Wait until every Worker has started an executor for the app; check it is one each."""

    def per_worker() -> list[int] | None:
        counts = [len(executor_pids(group=worker.pid)) for worker in cluster.workers]
        return counts if all(counts) else None

    counts = wait_until(
        per_worker, timeout=60, what="an executor on each worker", progress=stage.waiting
    )
    stage.expect(
        check(
            "the app got an executor on each worker",
            counts == [1] * len(cluster.workers),
            f"one executor on each of the {len(cluster.workers)} workers",
            f"executors per worker: {counts}",
        )
    )


def _worker_of(cluster: StandaloneCluster, executor: str) -> int:
    """Which Worker started `executor`: its JVM is in that Worker's process group."""
    for index, worker in enumerate(cluster.workers):
        if executor in executor_pids(group=worker.pid):
            return index
    raise AssertionError(f"no Worker's process group holds executor {executor}")


def _kill_worker(
    stage: Stage,
    cluster: StandaloneCluster,
    worker: int,
    events_dir: Path,
    executor: str,
    app: ManagedProcess,
) -> None:
    with stage.step(
        Step(
            f"kill -9 worker {worker} and its executor while it writes the count's state",
            happens="the machine is gone: the Worker JVM and the executor it started are killed "
            "together, while the executor's task writes the state's .delta file",
            watch="the app's batch lines below around the kill; then the narration's `the next "
            "output line came … s after the kill` line",
            why="the Master sees the Worker's connection drop and tells the driver its executor "
            "is lost; the driver runs the task on the remaining executor, which loads the state "
            "from the checkpoint",
            production="a lost machine costs one task's rerun and a state load, provided the "
            "checkpoint is not on that machine",
            question="When a whole Worker dies with its executor, will the app have to restart?",
            answer="No: the Master marks the worker DEAD, Spark removes the executor and reruns "
            "the stateful task on the other one, and the driver lives on (all checked).",
            giveaway=("marks the worker dead", "driver lives on", "reruns the stateful task"),
            checks=(
                "the Master marked the worker DEAD",
                "Spark removed the killed executor",
                "the stateful task ran again on the other executor",
                "the driver lives on",
            ),
        )
    ):
        wait_for_state_write(stage)
        killed_ms, killed_at = time.time() * 1000, time.monotonic()
        cluster.kill_worker(worker)
        stage.timeline.event(f"kill -9 worker {worker}", "kill")
        recovery = stage.fact("worker_recovery_sec", recovery_after(stage, killed_at))
        stage.say(f"{recovered_by(stage)} came {recovery} s after the kill")
        dead = wait_until(
            lambda: _worker_states(cluster).count("DEAD") or None,
            timeout=60,
            what="the Master to mark the worker DEAD",
            progress=stage.waiting,
        )
        stage.expect(
            check(
                "the Master marked the worker DEAD",
                dead == 1,
                "one worker DEAD",
                f"workers: {', '.join(_worker_states(cluster))}",
            )
        )
        show_task_moved(stage, events_dir, executor, killed_ms)
        stage.expect(
            check(
                "the driver lives on",
                app.running,
                "the same app process, no restart",
                f"pid {app.pid} {'running' if app.running else 'exited'}",
            )
        )


def _worker_states(cluster: StandaloneCluster) -> list[str]:
    return [str(w.get("state")) for w in cluster.status().get("workers", [])]


def _replacement(stage: Stage, cluster: StandaloneCluster, events_dir: Path) -> None:
    with stage.step(
        Step(
            "A replacement worker joins",
            happens="a new Worker registers with the Master (the app asked for every core the "
            "cluster has)",
            watch="the app's batch lines below going on while the new Worker registers",
            why="executors are not pinned to machines: the application takes whatever the "
            "cluster manager offers, and the state follows the task through the checkpoint",
            production="autoscaling and replaced nodes need nothing from the query",
            question="Will the new Worker's resources go to the running application?",
            answer="Yes: it gets an executor on the new Worker (checked), without any restart.",
            giveaway=("gets an executor",),
            checks=("the replacement worker got an executor",),
        )
    ):
        before = {c.executor for c in SparkEvents.read(events_dir).added()}
        cluster.add_worker()
        added = wait_until(
            lambda: {c.executor for c in SparkEvents.read(events_dir).added()} - before or None,
            timeout=120,
            what="an executor on the new worker",
            progress=stage.waiting,
        )
        stage.fact("executors_added_on_replacement", sorted(added))
        stage.expect(
            check(
                "the replacement worker got an executor",
                bool(added),
                "a new executor added to the application",
                f"executor(s) {', '.join(sorted(added))} added",
            )
        )
        stage.output.wait_for_more(3)


SCENARIO = Scenario(
    name="worker-loss",
    title="a worker of a standalone cluster dies with its executor; the query goes on",
    summary="A real Master and two Workers; kill -9 of the Worker whose executor writes the "
    "count's state: the Master marks it DEAD, the task runs on the other Worker, a "
    "replacement Worker gets an executor; exactly once throughout.",
    origin="seed 002's worker failure, a whole machine",
    about="seed 002's worker failure, a whole machine: a Worker of a standalone cluster dies "
    "with its executor in the middle of a batch; what happens to the query?",
    run=run,
    checkpoint_stores=("local", "hdfs", "s3"),
    # The Worker, its executor and the state it reloads are any stateful query's.
    takes_query=True,
    with_query=(
        "a stateful query on a standalone cluster: a Worker killed with its executor while it "
        "writes the state, a replacement Worker; no crash on a record here (one would kill "
        "the whole app, as under executor-loss); the oracle at the end"
    ),
)
