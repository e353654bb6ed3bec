"""The same client checks against the embedded broker and against real Kafka (testcontainers).

Each check is one function of a bootstrap address, so the embedded run (fast, always) and the
real-Kafka run (Apache Kafka in a container of our image, kafka_app/container) prove the same
behaviour. The Docker run skips with a reason when no engine answers.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType

from tests.kafka_app.broker.broker_helpers import admin, create_topic


def _round_trip(bootstrap: str) -> None:
    topic = f"parity-{uuid.uuid4().hex[:8]}"
    create_topic(bootstrap, topic, partitions=2)
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i in range(20):
        producer.send(topic, value=b"%d" % i, partition=i % 2)
    producer.flush(30)
    producer.close(5)
    consumer = KafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", consumer_timeout_ms=10_000
    )
    values = []
    for message in consumer:  # ends after 10 s without records, or once all 20 are in
        values.append(int(message.value))
        if len(values) == 20:
            break
    consumer.close()
    values.sort()
    assert values == list(range(20))


def _delete_records_and_configs(bootstrap: str) -> None:
    topic = f"parity-{uuid.uuid4().hex[:8]}"
    create_topic(bootstrap, topic, configs={"retention.ms": "86400000"})
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i in range(10):
        producer.send(topic, value=b"%d" % i).get(30)
    producer.close(5)
    tp = TopicPartition(topic, 0)
    client = admin(bootstrap)
    try:
        assert client.delete_records({tp: 3})[tp]["low_watermark"] == 3
        shown = client.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])["topic"][
            topic
        ]
        assert shown["retention.ms"]["value"] == "86400000"
        assert shown["retention.ms"]["config_source"] == "DYNAMIC_TOPIC_CONFIG"
    finally:
        client.close()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap)
    try:
        assert consumer.beginning_offsets([tp]) == {tp: 3}
        assert consumer.end_offsets([tp]) == {tp: 10}
    finally:
        consumer.close()


CHECKS: list[Callable[[str], None]] = [_round_trip, _delete_records_and_configs]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.strip("_"))
def test_embedded_broker(embedded_broker, check: Callable[[str], None]) -> None:
    check(embedded_broker.bootstrap_servers)


@pytest.mark.docker
def test_real_kafka(kafka_container) -> None:
    # Published on the loopback address only, on the port clients are told.
    bindings = kafka_container.get_wrapped_container().attrs["NetworkSettings"]["Ports"]["9092/tcp"]
    assert bindings == [{"HostIp": "127.0.0.1", "HostPort": str(kafka_container.port)}]
    for check in CHECKS:
        check(kafka_container.bootstrap_servers)
