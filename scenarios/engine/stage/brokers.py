"""The stage's brokers: the nodes of a Kafka cluster, one by one (kill, stop, start, who leads).

Only a scenario that started Kafka with several brokers (`stage.kafka.start(..., brokers=3)`)
has them; every step says in one sentence what to do first otherwise. Each step goes on the
timeline, so the picture shows when a leader died and when another took over.

Usage:
    old = stage.brokers.leader()
    stage.brokers.kill(old)
    new = stage.brokers.wait_for_leader(other_than=old)
    stage.brokers.restart(2, version="4.4.0")          # one step of a rolling upgrade
    stage.brokers.api_versions(2).finalized["metadata.version"]
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from launch.waiting import wait_until
from scenarios.errors import StepFailed

if TYPE_CHECKING:
    from kafka_app.apache.cluster import ApacheKafka, PartitionReplicas
    from kafka_app.apache.versions import BrokerApis
    from scenarios.engine.stage import Stage

__all__ = ["BrokersPart"]

# A leader elected after a kill takes Kafka about 10 s here (the dead node's session times out
# at 9 s); two stale nodes starting again and electing an unclean leader about 20 s.
_ELECTION_TIMEOUT_SEC = 120.0


class BrokersPart:
    """The nodes of the stage's Kafka cluster and who leads partition 0 of its topic."""

    def __init__(self, stage: Stage) -> None:
        self._stage = stage

    def _cluster(self) -> ApacheKafka:
        side = self._stage.kafka.side
        if side is None or side.cluster is None:
            raise StepFailed(
                "this Kafka is not a cluster: start it with stage.kafka.start(..., brokers=3) first"
            )
        return side.cluster

    @property
    def ids(self) -> list[int]:
        return sorted(self._cluster().nodes)

    # -- who holds the partition --------------------------------------------------------------
    def replicas(self, partition: int = 0) -> PartitionReplicas:
        """Leader, replicas and ISR of the topic's partition (waits while the cluster cannot say)."""
        cluster, topic = self._cluster(), self._stage.kafka.topic
        return wait_until(
            lambda: cluster.partition(topic, partition),
            timeout=_ELECTION_TIMEOUT_SEC,
            what=f"the replicas of {topic}-{partition}",
            progress=self._stage.waiting,
            poll=0.5,
        )

    def leader(self, partition: int = 0) -> int:
        return self.wait_for_leader(partition=partition)

    def wait_for_leader(self, other_than: int | None = None, partition: int = 0) -> int:
        """The node leading the partition, once one other than `other_than` does."""
        cluster, topic = self._cluster(), self._stage.kafka.topic

        def elected() -> int | None:
            leader = cluster.leader(topic, partition)
            return leader if leader is not None and leader != other_than else None

        what = f"a leader of {topic}-{partition}" + (
            f" other than broker {other_than}" if other_than is not None else ""
        )
        leader = wait_until(
            elected,
            timeout=_ELECTION_TIMEOUT_SEC,
            what=what,
            progress=self._stage.waiting,
            poll=0.5,
        )
        if other_than is not None:
            self._stage.timeline.event(f"broker {leader} leads", "note")
        return leader

    def wait_for_isr(self, size: int, partition: int = 0) -> PartitionReplicas:
        """Wait until `size` replicas are in sync (a restarted follower has caught up)."""
        cluster, topic = self._cluster(), self._stage.kafka.topic

        def in_sync() -> PartitionReplicas | None:
            now = cluster.partition(topic, partition)
            return now if now is not None and len(now.isr) >= size else None

        return wait_until(
            in_sync,
            timeout=_ELECTION_TIMEOUT_SEC,
            what=f"{size} in-sync replicas of {topic}-{partition}",
            progress=self._stage.waiting,
            poll=0.5,
        )

    # -- one node at a time ---------------------------------------------------------------------
    def kill(self, node_id: int) -> None:
        """kill -9: no controlled shutdown, the node's leaderships are lost at once."""
        self._cluster().kill(node_id)
        self._stage.timeline.event(f"kill -9 broker {node_id}", "kill")
        self._stage.say(f"kill -9 of Kafka broker {node_id}")

    def stop(self, node_id: int) -> None:
        """SIGTERM: a controlled shutdown, the controller takes the node out of every ISR."""
        self._cluster().stop_node(node_id)
        self._stage.timeline.event(f"broker {node_id} stopped", "stop")
        self._stage.say(f"Kafka broker {node_id} stopped (controlled shutdown)")

    def start(self, node_ids: Sequence[int]) -> None:
        """Start stopped nodes together and wait until each answers."""
        self._cluster().start_nodes(list(node_ids))
        shown = ", ".join(str(n) for n in node_ids)
        self._stage.timeline.event(f"broker{'s' if len(node_ids) > 1 else ''} {shown} up", "start")
        self._stage.say(f"Kafka broker{'s' if len(node_ids) > 1 else ''} {shown} started again")

    # -- versions: a rolling upgrade ------------------------------------------------------------
    def version(self, node_id: int) -> str:
        """The Kafka version a node runs (its jars)."""
        return self._cluster().versions[node_id]

    def logged_version(self, node_id: int) -> str | None:
        """The version the node's JVM says it is in its log (`Kafka version: X`) since its start."""
        return self._cluster().nodes[node_id].logged_version()

    def log_file(self, node_id: int) -> Path:
        return self._cluster().log_file(node_id)

    def api_versions(self, node_id: int) -> BrokerApis:
        """What the node answers a client's ApiVersions: version ranges, supported features and
        the cluster's finalized feature levels (metadata.version among them)."""
        node = self._cluster().nodes[node_id]
        return wait_until(
            lambda: _answer(node.address),
            timeout=30,
            what=f"broker {node_id} to answer ApiVersions",
            progress=self._stage.waiting,
            poll=0.5,
        )

    def restart(self, node_id: int, version: str | None = None) -> float:
        """Stop a node cleanly and start it again on its data folder, on `version`'s jars when
        given; waits until it answers. Returns the seconds it was away. Raises the cluster's
        KafkaStartFailed when it will not run on them (the node is then down)."""
        cluster = self._cluster()
        before = cluster.versions[node_id]
        after = version or before
        started = time.monotonic()
        self._stage.timeline.event(f"broker {node_id} stopped ({before})", "stop")
        from kafka_app.apache.errors import ApacheKafkaError

        try:
            cluster.restart_node(node_id, after)
        except ApacheKafkaError:
            self._stage.timeline.event(f"broker {node_id} refused {after}", "kill")
            raise
        away = time.monotonic() - started
        self._stage.timeline.event(f"broker {node_id} up on {after}", "start")
        self._stage.say(f"Kafka broker {node_id}: {before} -> {after}, back in {away:.1f} s")
        return away

    def update_feature(self, feature: str, level: int, *, downgrade: bool = False) -> None:
        """`kafka-features upgrade|downgrade --feature feature=level`, asked of a live node (it
        forwards to the active controller); then waits until every live node reports the level.
        Raises FeatureRefused with Kafka's reason."""
        from kafka_app.apache.versions import update_feature

        cluster = self._cluster()
        live = [n for n in cluster.nodes.values() if n.running]
        host, port = live[0].address.rsplit(":", 1)
        update_feature(host, int(port), feature, level, downgrade=downgrade)
        self._stage.timeline.event(f"{feature} {'down' if downgrade else 'up'} to {level}", "note")

        # The controller answers once the level is in the metadata log; each broker replays it a
        # moment later (a run asked one broker 0.1 s after the answer: it still said the old level).
        def everywhere() -> bool:
            answers = [_answer(n.address) for n in live]
            return all(a is not None and a.finalized.get(feature) == level for a in answers)

        wait_until(
            everywhere,
            timeout=60,
            what=f"every broker to report {feature} {level}",
            progress=self._stage.waiting,
            poll=0.2,
        )


def _answer(address: str) -> BrokerApis | None:
    from kafka_app.apache.versions import ask_api_versions

    host, port = address.rsplit(":", 1)
    try:
        return ask_api_versions(host, int(port))
    except (OSError, ConnectionError):
        return None  # not answering yet: the caller polls
