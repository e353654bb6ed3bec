"""`kafka_broker`: each test that takes it runs on the embedded broker and on Apache Kafka.

The embedded broker is fresh for every test, as `embedded_broker` is. Apache Kafka is started once
per session (~15 s) with the same settings (retention checked every second from the start, groups
rebalance at once) and every topic a test created is deleted after it, so tests may reuse names.
The `apache` runs are marked e2e: a plain `pytest` runs the embedded ones, `--slow` both.

Usage: `def test_x(kafka_broker): create_topic(kafka_broker.bootstrap_servers, "t")`;
`kafka_broker.kind` is "embedded" or "apache" for a test that knows of a difference. A test that
needs other broker settings takes `broker_kind` and starts `own_broker(broker_kind, settings)`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka.admin import NewTopic

from tests.kafka_app.broker.both_brokers import APACHE_NODE_ID, RunningBroker, own_broker
from tests.kafka_app.broker.broker_helpers import (
    admin,
    quick_broker_settings,
    topic_names,
    wait_until,
)


@pytest.fixture(scope="session")
def apache_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    from kafka_app.apache.cluster import ApacheKafka
    from tests.kafka_app.apache.helpers import free_port

    root = tmp_path_factory.mktemp("apache-kafka")
    settings = quick_broker_settings(free_port(), root / "data", log_dir=root / "log")
    with ApacheKafka(settings, progress=False) as kafka:
        _warm_up_groups(kafka.bootstrap_servers)
        yield kafka


def _warm_up_groups(bootstrap: str) -> None:
    """Let a fresh Kafka create __consumer_offsets before the tests: until it has, a group's first
    commit may get NOT_COORDINATOR (librdkafka's synchronous commit fails with it), and which
    test met that first would depend on test order. docs/broker.md lists this difference."""
    from confluent_kafka import Consumer, KafkaException, TopicPartition

    client = admin(bootstrap)
    try:
        client.create_topics([NewTopic("warm-up", 1, 1)])
    finally:
        client.close()
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "warm-up", "enable.auto.commit": False}
    )

    def committed() -> bool:
        try:
            consumer.commit(offsets=[TopicPartition("warm-up", 0, 0)], asynchronous=False)
        except KafkaException:
            return False
        return True

    try:
        wait_until(committed, 60, "Kafka's group coordinator to take a first commit")
    finally:
        consumer.close()


@pytest.fixture(params=["embedded", pytest.param("apache", marks=pytest.mark.e2e)])
def broker_kind(request: pytest.FixtureRequest) -> str:
    """ "embedded" or "apache": for a test that starts its own broker with `own_broker`."""
    return request.param


@pytest.fixture
def kafka_broker(
    broker_kind: str, request: pytest.FixtureRequest, tmp_path: Path, free_port: int
) -> Iterator[RunningBroker]:
    if broker_kind == "embedded":
        with own_broker(
            "embedded", quick_broker_settings(free_port, tmp_path / "kafka-data")
        ) as broker:
            yield broker
        return
    kafka = request.getfixturevalue("apache_kafka")
    bootstrap = kafka.bootstrap_servers  # type: ignore[attr-defined]
    before = topic_names(bootstrap)
    yield RunningBroker("apache", bootstrap, kafka.port, APACHE_NODE_ID)  # type: ignore[attr-defined]
    created = topic_names(bootstrap) - before
    if created:
        client = admin(bootstrap)
        try:
            client.delete_topics(sorted(created))
        finally:
            client.close()
        wait_until(
            lambda: not (topic_names(bootstrap) & created), 30, "the test's topics to be deleted"
        )
