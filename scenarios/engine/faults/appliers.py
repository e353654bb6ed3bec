"""The nemesis's faults applied to a stage and healed: which kinds a run can apply, and how.

Each kind of scenarios/engine/faults/schedule.py is applied with the stage's own parts, as the
catalog's scenarios apply it: a kill aimed at a moment of a micro-batch (kills.py, chaos's),
SIGTERM (`stage.app.stop`), SIGSTOP and SIGCONT of the app's process group (`stage.app.pause`),
the TCP proxy in front of Kafka or of the checkpoint store cut and restored (kafka-outage's,
storage-outage's), a broker of three killed and started (broker-failover's), the checkpoint's
tmpfs filled and freed (storage-outage's), an executor JVM killed (executor-loss's).

A kind a run cannot apply is named with its reason before anything starts (`unavailable`);
a fault that cannot be applied when its time comes (the app is down for a kill) raises
`FaultSkipped` with the reason. A kill or a SIGTERM is healed by the start the caller gives
(the nemesis's supervision): `apply_fault(stage, fault, restart)`.

Usage:
    why = unavailable("store-cut", Setup.of(stage.settings, brokers=1, cluster=False))
    applied = apply_fault(stage, fault, restart=lambda why: supervision.start(why))
    print(applied.heal())        # how it was healed, in words (idempotent)
"""

from __future__ import annotations

import os
import random
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from launch.errors import LaunchError
from scenarios.engine.faults.kills import kill_at
from scenarios.engine.faults.schedule import FAULT_KINDS, Fault
from scenarios.engine.observers.spark_events import executor_pids
from scenarios.engine.stage.disk import DiskPart
from scenarios.engine.stage.kafka import brokers_unavailable

if TYPE_CHECKING:
    from scenarios.engine.settings import RunSettings
    from scenarios.engine.stage import Stage

__all__ = [
    "AIM_WITHIN_SEC",
    "CLUSTER_MASTER",
    "DISK_MIB",
    "Applied",
    "FaultSkipped",
    "Setup",
    "apply_fault",
    "unavailable",
]

# Two executor JVMs of one core each beside the driver (executor-loss's cluster).
CLUSTER_MASTER = "local-cluster[2,1,1024]"
# A kill waits this long for its moment of a micro-batch, then lands where the app is: a restart
# takes 10 to 60 s here before its first batch, and the schedule's faults come every few seconds.
AIM_WITHIN_SEC = 10.0
# The checkpoint's own tmpfs (storage-outage's size): the checkpoint of a soak fits, and a
# filler still takes the rest in a moment.
DISK_MIB = 16


class FaultSkipped(Exception):
    """A fault that could not be applied when its time came; the message says why."""


@dataclass(frozen=True)
class Setup:
    """What a run set up that decides the kinds it can apply."""

    checkpoint_store: str
    kafka_given: bool
    brokers: int
    cluster: bool
    broker_refusal: str | None  # why this run cannot start `brokers` brokers, if it cannot
    disk_refusal: str | None  # why a tmpfs cannot be mounted here, if it cannot
    query: bool = False

    @classmethod
    def of(cls, settings: RunSettings, brokers: int, cluster: bool) -> Setup:
        return cls(
            checkpoint_store=settings.checkpoint_store,
            kafka_given=settings.bootstrap_servers is not None,
            brokers=brokers,
            cluster=cluster,
            broker_refusal=brokers_unavailable(settings, max(brokers, 3)),
            disk_refusal=DiskPart.unavailable(),
            query=settings.query is not None,
        )


def unavailable(kind: str, setup: Setup) -> str | None:
    """Why this run cannot apply faults of `kind`, in one line; None when it can."""
    if kind not in FAULT_KINDS:
        return f"no fault kind {kind!r}; the kinds are {', '.join(FAULT_KINDS)}"
    if kind == "kafka-cut":
        if setup.kafka_given:
            return (
                "the app reaches a Kafka given with --bootstrap-servers directly: no proxy to cut"
            )
        if setup.brokers > 1:
            return (
                "the proxy stands in front of one broker; with --brokers 3 the app reaches "
                "the cluster directly"
            )
    if kind == "broker":
        if setup.brokers < 3:
            return "needs three brokers to kill one of: --brokers 3 (Apache Kafka)"
        return setup.broker_refusal
    if kind == "store-cut" and setup.checkpoint_store == "local":
        return (
            "the checkpoint is a local folder, with no network to cut: --checkpoint-store hdfs|s3"
        )
    if kind == "disk":
        if setup.checkpoint_store != "local":
            return f"the checkpoint is on the {setup.checkpoint_store} store, not on a disk of ours"
        return setup.disk_refusal
    if kind == "executor" and not setup.cluster:
        return "needs executors of their own: --cluster (two executor JVMs, local-cluster)"
    return None


@dataclass
class Applied:
    """A fault applied: whom it hit (resolved: `broker 2, the leader`), what it did, and its
    heal, run once however often asked."""

    fault: Fault
    target: str
    detail: str
    _heal: Callable[[], str] = field(repr=False)
    healed: str | None = None

    def heal(self) -> str:
        if self.healed is None:
            self.healed = self._heal()
        return self.healed


def apply_fault(stage: Stage, fault: Fault, restart: Callable[[str], str]) -> Applied:
    """Apply `fault` now; `restart(why)` starts the app again (a kill's and a SIGTERM's heal)
    and says how. Raises FaultSkipped when it cannot be applied now."""
    appliers: dict[str, Callable[[Stage, Fault, Callable[[str], str]], Applied]] = {
        "kill": _kill,
        "term": _term,
        "pause": _pause,
        "kafka-cut": _kafka_cut,
        "broker": _broker,
        "store-cut": _store_cut,
        "disk": _disk,
        "executor": _executor,
    }
    return appliers[fault.kind](stage, fault, restart)


def _app_up(stage: Stage) -> None:
    if not stage.app.running:
        raise FaultSkipped("the app was down (between an exit and its restart)")


def _kill(stage: Stage, fault: Fault, restart: Callable[[str], str]) -> Applied:
    _app_up(stage)
    moment = fault.target
    if moment == "mid-write" and stage.query is not None:
        moment = "mid-batch"  # a query writes a batch's file at once: no output log to watch grow
    try:
        landing = kill_at(stage, moment, random.Random(fault.jitter), within=AIM_WITHIN_SEC)
    except LaunchError as error:  # it exited while the kill aimed
        raise FaultSkipped(f"the app exited while the kill aimed at {moment}") from error
    return Applied(
        fault,
        moment,
        f"aimed at {landing.aimed}, landed {landing.landed}: {landing.describe()}",
        lambda: restart(f"after fault #{fault.number} kill -9"),
    )


def _term(stage: Stage, fault: Fault, restart: Callable[[str], str]) -> Applied:
    _app_up(stage)
    code = stage.app.stop()
    return Applied(
        fault,
        fault.target,
        f"stopped with exit code {code}",
        lambda: restart(f"after fault #{fault.number} SIGTERM"),
    )


def _pause(stage: Stage, fault: Fault, restart: Callable[[str], str]) -> Applied:
    _app_up(stage)
    stage.app.pause()
    pid = stage.app.process.pid

    def resume() -> str:
        stage.app.resume()
        return f"SIGCONT of the process group {pid}"

    return Applied(fault, f"{fault.target} (pid {pid})", "SIGSTOP", resume)


class _Link(Protocol):
    """What a network cut needs of the part it cuts: the network to Kafka, or the store's."""

    def cut(self) -> None: ...

    def restore(self) -> None: ...


def _cut(fault: Fault, link: _Link, back: str) -> Applied:
    """A network cut (to Kafka, or to the checkpoint's store): every connection reset, new
    ones refused, until the heal restores it and says `back`."""
    link.cut()

    def restore() -> str:
        link.restore()
        return back

    return Applied(fault, fault.target, "every connection reset, new ones refused", restore)


def _kafka_cut(stage: Stage, fault: Fault, restart: Callable[[str], str]) -> Applied:
    return _cut(fault, stage.network, "the network to Kafka is back")


def _broker(stage: Stage, fault: Fault, restart: Callable[[str], str]) -> Applied:
    leader = stage.brokers.leader()
    others = [n for n in stage.brokers.ids if n != leader]
    node = leader if fault.target == "the leader" or not others else others[0]
    stage.brokers.kill(node)

    def start() -> str:
        stage.brokers.start([node])
        return f"broker {node} started again and answers"

    return Applied(fault, f"broker {node} ({fault.target})", "kill -9 of its JVM", start)


def _store_cut(stage: Stage, fault: Fault, restart: Callable[[str], str]) -> Applied:
    return _cut(fault, stage.store, "the network to the store is back")


def _disk(stage: Stage, fault: Fault, restart: Callable[[str], str]) -> Applied:
    taken = stage.disk.fill()

    def free() -> str:
        stage.disk.free()
        return "the filler removed"

    return Applied(fault, fault.target, f"full: the filler took {taken / 2**20:.1f} MiB", free)


def _executor(stage: Stage, fault: Fault, restart: Callable[[str], str]) -> Applied:
    _app_up(stage)
    pids = executor_pids(session=stage.app.process.pid)
    if not pids:
        raise FaultSkipped("the app has no executor yet (it is starting)")
    ids = sorted(pids, key=int)
    executor = ids[0] if fault.target == "the first executor" or len(ids) == 1 else ids[1]
    try:
        os.kill(pids[executor], signal.SIGKILL)
    except ProcessLookupError as error:
        raise FaultSkipped(f"executor {executor} was gone already") from error
    stage.timeline.event(f"kill -9 executor {executor}", "kill")
    stage.say(f"kill -9 of executor {executor} (pid {pids[executor]})")
    return Applied(
        fault,
        f"executor {executor} (pid {pids[executor]})",
        "kill -9 of its JVM",
        lambda: "Spark's worker starts another executor; the lost task runs again",
    )
