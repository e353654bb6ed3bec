"""Where the embedded broker knowingly differs from Apache Kafka, each shown by a test.

Every test asserts what Apache Kafka does and runs on both brokers (`kafka_broker`). On the
embedded broker it is marked xfail(strict=True): it must fail there, so the day the difference
disappears the test fails and the list in docs/broker.md ("Known differences") is corrected.
"""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from kafka.admin import NewTopic
from kafka.errors import InvalidConfigurationError

from tests.kafka_app.broker.broker_helpers import admin, create_topic


def known_difference(request: pytest.FixtureRequest, kind: str, why: str) -> None:
    if kind == "embedded":
        request.applymarker(pytest.mark.xfail(strict=True, reason=why))


def test_topic_segment_bytes_below_one_mib_is_refused(
    kafka_broker, request: pytest.FixtureRequest
) -> None:
    """Kafka 4.1+ (KAFKA-19080) refuses a topic's segment.bytes below 1 MiB; the embedded broker
    keeps accepting 14 bytes and more, because tiny segments make retention visible in a demo."""
    known_difference(request, kafka_broker.kind, "the embedded broker accepts segment.bytes >= 14")
    client = admin(kafka_broker.bootstrap_servers)
    try:
        with pytest.raises(InvalidConfigurationError):
            client.create_topics(
                [NewTopic("tiny-segments", 1, 1, topic_configs={"segment.bytes": "1000"})]
            )
    finally:
        client.close()


@pytest.mark.parametrize("key, value", [("cleanup.policy", "compact"), ("compression.type", "lz4")])
def test_a_topic_with_compaction_or_broker_compression_is_created(
    kafka_broker, request: pytest.FixtureRequest, key: str, value: str
) -> None:
    """Kafka compacts and recompresses; the embedded broker does neither and refuses the configs
    that ask for it (INVALID_CONFIG with the reason) rather than store a promise it cannot keep.
    No scenario uses them."""
    known_difference(request, kafka_broker.kind, f"the embedded broker refuses {key}={value}")
    create_topic(kafka_broker.bootstrap_servers, "wants-more", configs={key: value})


def test_a_transactional_producer_initializes(kafka_broker, request: pytest.FixtureRequest) -> None:
    """Kafka has a transaction coordinator; the embedded broker refuses transactional ids at once
    (TRANSACTIONAL_ID_AUTHORIZATION_FAILED, see test_broker_admin_details.py): no scenario uses
    transactions, and Spark's Kafka source reads committed data either way."""
    known_difference(request, kafka_broker.kind, "the embedded broker has no transactions")
    create_topic(kafka_broker.bootstrap_servers, "tx-topic")
    producer = Producer(
        {"bootstrap.servers": kafka_broker.bootstrap_servers, "transactional.id": "tx-known"}
    )
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce("tx-topic", b"1")
    producer.abort_transaction(30)


def test_a_committed_epoch_the_log_never_had_reads_as_truncation(
    kafka_broker, request: pytest.FixtureRequest
) -> None:
    """librdkafka checks a committed leader epoch with OffsetForLeaderEpoch before it fetches.
    Kafka answers it, so an epoch the log never had is a truncation and the consumer resets by its
    policy; the embedded broker does not implement OffsetForLeaderEpoch, so librdkafka resumes at
    the committed offset. Only an unclean leader election (three Apache Kafka nodes) makes real
    epochs disagree, so a single embedded broker cannot show it anyway."""
    known_difference(request, kafka_broker.kind, "the embedded broker has no OffsetForLeaderEpoch")
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "epochs-known")
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(5):
        producer.produce("epochs-known", value=b"%d" % i)
    producer.flush(30)
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "epochs-known",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    try:
        consumer.commit(
            offsets=[TopicPartition("epochs-known", 0, 3, leader_epoch=7)], asynchronous=False
        )
        consumer.assign([TopicPartition("epochs-known", 0)])
        message = None
        deadline = time.monotonic() + 30
        while (message is None or message.error() is not None) and time.monotonic() < deadline:
            message = consumer.poll(0.5)
        assert message is not None and message.offset() == 0  # reset to earliest, not resumed at 3
    finally:
        consumer.close()
