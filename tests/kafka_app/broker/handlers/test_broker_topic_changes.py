"""DeleteTopics and CreatePartitions through real admin clients, and what consumers see after.

A deleted and re-created topic is a data-loss case: it starts again at offset 0 and the groups'
committed offsets are gone. Added partitions reach a subscribed consumer at its next metadata
refresh, and records keyed to the old partitions may now land elsewhere. Tests taking
`kafka_broker` run on both brokers; the restart ones read the embedded broker's storage.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions
from kafka.admin import NewPartitions as KafkaPythonNewPartitions
from kafka.errors import (
    InvalidPartitionsError,
    InvalidReplicationAssignmentError,
    UnknownTopicOrPartitionError,
)
from kafka.protocol.admin.topics import CreatePartitionsRequest, DeleteTopicsRequest

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from tests.kafka_app.broker.broker_helpers import (
    admin,
    create_topic,
    own_node,
    partition_count,
    raw_call,
    topic_names,
    wait_until,
)

_DEADLINE_SEC = 20


def _produce(bootstrap: str, topic: str, count: int, partition: int = 0) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(count):
        producer.produce(topic, value=b"%d" % i, partition=partition)
    assert producer.flush(_DEADLINE_SEC) == 0


def _wait(futures: dict) -> None:
    for future in futures.values():
        future.result(timeout=_DEADLINE_SEC)


def _committed(bootstrap: str, group: str, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        return consumer.committed([TopicPartition(topic, 0)], timeout=10)[0].offset
    finally:
        consumer.close()


def test_deleted_and_recreated_topic_starts_over_without_committed_offsets(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "reborn")
    _produce(bootstrap, "reborn", 5)
    committer = Consumer({"bootstrap.servers": bootstrap, "group.id": "readers"})
    committer.commit(offsets=[TopicPartition("reborn", 0, 5)], asynchronous=False)
    committer.close()

    client = AdminClient({"bootstrap.servers": bootstrap})
    _wait(client.delete_topics(["reborn"], operation_timeout=10))
    assert "reborn" not in topic_names(bootstrap)
    assert _committed(bootstrap, "readers", "reborn") < 0  # OFFSET_INVALID: nothing committed

    create_topic(bootstrap, "reborn")
    _produce(bootstrap, "reborn", 2)
    reader = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "readers", "auto.offset.reset": "earliest"}
    )
    try:
        assert reader.get_watermark_offsets(TopicPartition("reborn", 0), timeout=10) == (0, 2)
        reader.subscribe(["reborn"])
        values = []
        wait_until(
            lambda: _poll_into(reader, values) and len(values) == 2,
            _DEADLINE_SEC,
            "the two records of the new topic",
        )
        assert values == [b"0", b"1"]
    finally:
        reader.close()


def _poll_into(consumer: Consumer, values: list[bytes]) -> bool:
    message = consumer.poll(0.2)
    if message is not None:
        if message.error():
            raise KafkaException(message.error())
        values.append(message.value())
    return True


def test_deleting_an_unknown_topic_or_naming_one_twice_fails_per_topic(kafka_broker) -> None:
    create_topic(kafka_broker.bootstrap_servers, "twice")
    response = raw_call(
        kafka_broker.port,
        DeleteTopicsRequest(topic_names=["nope", "twice", "twice"], timeout_ms=1000),
        5,
    )
    # A duplicated name is answered once (Kafka's controller answers it first).
    assert sorted((r.name, r.error_code) for r in response.responses) == [
        ("nope", 3),
        ("twice", 42),
    ]
    assert "twice" in topic_names(kafka_broker.bootstrap_servers)


def test_deleted_topic_stays_deleted_after_a_restart(tmp_path: Path, free_port: int) -> None:
    """Embedded only: reads the broker's own topic list after restarting it on the same folder
    (Kafka's is in its metadata log; tests/kafka_app/apache restarts Kafka on a folder)."""
    settings = BrokerSettings(port=free_port, data_dir=tmp_path / "data")
    with EmbeddedBroker(settings) as broker:
        create_topic(broker.bootstrap_servers, "brief")
        create_topic(broker.bootstrap_servers, "kept")
        client = admin(broker.bootstrap_servers)
        try:
            client.delete_topics(["brief"])  # kafka-python raises on any per-topic error
        finally:
            client.close()
    with EmbeddedBroker(settings) as broker:
        assert broker.call(broker.storage.topics) == {"kept": 1}


def test_create_partitions_grows_a_topic_and_a_subscriber_gets_the_new_ones(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "growing")
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "growers",
            "topic.metadata.refresh.interval.ms": 500,
        }
    )
    try:
        consumer.subscribe(["growing"])
        wait_until(
            lambda: consumer.poll(0.1) is None and len(consumer.assignment()) == 1,
            _DEADLINE_SEC,
            "the consumer owning the one partition",
        )
        client = AdminClient({"bootstrap.servers": bootstrap})
        _wait(client.create_partitions([NewPartitions("growing", 3)], operation_timeout=10))
        assert partition_count(bootstrap, "growing") == 3
        _produce(bootstrap, "growing", 1, partition=2)
        wait_until(
            lambda: consumer.poll(0.1) is None and len(consumer.assignment()) == 3,
            _DEADLINE_SEC,
            "the consumer being assigned all three partitions",
        )
    finally:
        consumer.close()


@pytest.mark.parametrize(
    "count, assignments, error",
    [
        (1, None, InvalidPartitionsError),  # already has 1
        (0, None, InvalidPartitionsError),  # never fewer
        (3, [[0]], InvalidReplicationAssignmentError),  # two new partitions, one assignment
        (2, [[7]], InvalidReplicationAssignmentError),  # there is no broker 7
        (2, [[0, 0]], InvalidReplicationAssignmentError),  # one node holds one replica
    ],
)
def test_create_partitions_refuses_what_kafka_refuses(
    kafka_broker, count: int, assignments: list | None, error: type
) -> None:
    create_topic(kafka_broker.bootstrap_servers, "fixed")
    client = admin(kafka_broker.bootstrap_servers)
    try:
        with pytest.raises(error):
            placed = [
                own_node(brokers, kafka_broker.node_id) for brokers in assignments or []
            ] or None
            client.create_partitions({"fixed": KafkaPythonNewPartitions(count, placed)})
        with pytest.raises(UnknownTopicOrPartitionError):
            client.create_partitions({"absent": KafkaPythonNewPartitions(2)})
    finally:
        client.close()
    assert partition_count(kafka_broker.bootstrap_servers, "fixed") == 1


def test_create_partitions_validate_only_changes_nothing(kafka_broker) -> None:
    create_topic(kafka_broker.bootstrap_servers, "dry")
    request = CreatePartitionsRequest(
        topics=[
            CreatePartitionsRequest.CreatePartitionsTopic(name="dry", count=4, assignments=None)
        ],
        timeout_ms=1000,
        validate_only=True,
    )
    response = raw_call(kafka_broker.port, request, 3)
    assert [(r.name, r.error_code) for r in response.results] == [("dry", 0)]
    assert partition_count(kafka_broker.bootstrap_servers, "dry") == 1


def test_added_partitions_survive_a_restart(tmp_path: Path, free_port: int) -> None:
    """Embedded only: reads the broker's own storage after a restart on the same folder."""
    settings = BrokerSettings(port=free_port, data_dir=tmp_path / "data")
    with EmbeddedBroker(settings) as broker:
        create_topic(broker.bootstrap_servers, "wide")
        client = admin(broker.bootstrap_servers)
        try:
            client.create_partitions({"wide": KafkaPythonNewPartitions(4)})
        finally:
            client.close()
        _produce(broker.bootstrap_servers, "wide", 3, partition=3)
    with EmbeddedBroker(settings) as broker:
        assert broker.call(broker.storage.topics) == {"wide": 4}
        assert broker.call(lambda: broker.storage.partition("wide", 3).high_watermark) == 3
