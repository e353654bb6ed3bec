"""Three Apache Kafka nodes on this host (`--kafka apache --brokers 3`): a KRaft quorum of three,
replication factor 3, min.insync.replicas 2. Killing the partition leader elects another one, and
a producer with acks=all carries on; the killed node comes back. The broker-failover scenario
uses the same calls (`kill`, `start`, `leader`)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic

from kafka_app.apache.cluster import ApacheKafka
from kafka_app.broker.settings import BrokerSettings
from tests.kafka_app.apache.helpers import kafka_jvms


def wait_for(condition, timeout: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"{what} did not happen within {timeout} s")


# Three Apache Kafka nodes, about 2 min: nightly (docs/testing.md#nightly); the broker-failover
# scenario, in CI, kills a leader of the same cluster under a running query.
@pytest.mark.e2e
@pytest.mark.nightly
def test_killing_the_leader_elects_another_and_acks_all_goes_on(tmp_path: Path) -> None:
    settings = BrokerSettings(
        port=0,
        data_dir=tmp_path / "data",
        log_dir=tmp_path / "log",
        group_initial_rebalance_delay_ms=0,
    )
    with ApacheKafka(settings, brokers=3, progress=False) as cluster:
        assert len(kafka_jvms(tmp_path)) == 3
        assert sorted(p.name for p in (tmp_path / "data").iterdir()) == [
            "cluster-id",
            "node-1",
            "node-2",
            "node-3",
        ]
        admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap_servers)
        admin.create_topics([NewTopic("failover", 1, 3)])
        admin.close()
        producer = KafkaProducer(
            bootstrap_servers=cluster.bootstrap_servers, acks="all", retries=20
        )
        producer.send("failover", b"before").get(30)
        leader = wait_for(lambda: cluster.leader("failover", 0), 30, "a leader")
        cluster.kill(leader)

        def another_leader() -> int | None:
            now = cluster.leader("failover", 0)
            return now if now not in (None, leader) else None

        new_leader = wait_for(another_leader, 60, "a new leader")
        assert new_leader != leader and new_leader in cluster.nodes
        producer.send("failover", b"after").get(60)  # two replicas in sync still take acks=all
        producer.close()
        consumer = KafkaConsumer(
            bootstrap_servers=cluster._live_servers(), consumer_timeout_ms=20_000
        )
        consumer.assign([TopicPartition("failover", 0)])
        consumer.seek_to_beginning()
        assert [m.value for m, _ in zip(consumer, range(2))] == [b"before", b"after"]
        consumer.close()
        cluster.start(leader)
        assert cluster.nodes[leader].ready()
        assert (tmp_path / "log" / f"kafka-server-{leader}.log").read_text().count(
            "Kafka Server started"
        ) == 2
    assert kafka_jvms(tmp_path) == []
