"""Admin details real clients notice: Kafka's other topic configs, ListOffsets MAX_TIMESTAMP,
committed leader epochs, and transactional producers refused at once."""

from __future__ import annotations

import time

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, OffsetSpec
from kafka import KafkaConsumer, KafkaProducer
from kafka.errors import TransactionalIdAuthorizationFailedError
from kafka.structs import OffsetAndMetadata
from kafka.structs import TopicPartition as KafkaPythonTopicPartition

from tests.kafka_app.broker.broker_helpers import create_topic, topic_names

_DEADLINE_SEC = 20


def _create(bootstrap: str, name: str, config: dict[str, str]) -> KafkaException | None:
    """Create a topic with librdkafka's admin client; the per-topic error, if any."""
    client = AdminClient({"bootstrap.servers": bootstrap})  # must outlive its futures
    futures = client.create_topics(
        [NewTopic(name, num_partitions=1, replication_factor=1, config=config)]
    )
    return futures[name].exception(timeout=_DEADLINE_SEC)


def test_kafkas_other_topic_configs_are_stored_and_described(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    wanted = {
        "delete.retention.ms": "3600000",
        "min.cleanable.dirty.ratio": "0.3",
        "segment.jitter.ms": "10",
        "message.timestamp.type": "LogAppendTime",
    }
    assert _create(bootstrap, "configured", wanted) is None
    resource = ConfigResource(ConfigResource.Type.TOPIC, "configured")
    client = AdminClient({"bootstrap.servers": bootstrap})
    described = client.describe_configs([resource])[resource].result(timeout=_DEADLINE_SEC)
    assert {key: described[key].value for key in wanted} == wanted
    assert not any(described[key].is_default for key in wanted)


@pytest.mark.parametrize(
    "key, value, says",
    [
        ("remote.storage.enable", "true", "no tiered storage"),
        ("min.cleanable.dirty.ratio", "2", "outside"),
        ("message.timestamp.type", "BrokerTime", "CreateTime or LogAppendTime"),
        ("no.such.config", "1", "not a topic config of Apache Kafka"),
    ],
)
def test_configs_kafka_refuses_are_invalid_config(
    kafka_broker, key: str, value: str, says: str
) -> None:
    """Both brokers refuse these with INVALID_CONFIG; the reason is in each broker's own words
    (`says` is the embedded broker's). Compaction and broker-side compression, which Kafka
    accepts and the embedded broker refuses, are in test_known_differences.py."""
    error = _create(kafka_broker.bootstrap_servers, "refused", {key: value})
    assert error is not None and error.args[0].code() == KafkaError.INVALID_CONFIG
    if kafka_broker.kind == "embedded":
        assert says in error.args[0].str()
    assert "refused" not in topic_names(kafka_broker.bootstrap_servers)


def test_list_offsets_max_timestamp_finds_the_newest_record_not_the_last(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "stamps")
    now = int(time.time() * 1000)
    producer = Producer({"bootstrap.servers": bootstrap})
    for timestamp in (now - 5_000, now - 1_000, now - 9_000):
        producer.produce("stamps", value=b"v", timestamp=timestamp)
        producer.flush(_DEADLINE_SEC)  # one batch each, so the batch max timestamps differ too
    client = AdminClient({"bootstrap.servers": bootstrap})
    tp = TopicPartition("stamps", 0)
    found = client.list_offsets({tp: OffsetSpec.max_timestamp()})[tp].result(timeout=_DEADLINE_SEC)
    assert (found.offset, found.timestamp) == (1, now - 1_000)


def test_committed_leader_epoch_comes_back_with_the_offset(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "epochs")
    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(5):
        producer.produce("epochs", value=b"%d" % i)
    producer.flush(_DEADLINE_SEC)
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "epochs", "enable.auto.commit": False}
    )
    try:
        consumer.commit(
            offsets=[TopicPartition("epochs", 0, 3, leader_epoch=7)], asynchronous=False
        )
        [committed] = consumer.committed([TopicPartition("epochs", 0)], timeout=10)
        assert (committed.offset, committed.leader_epoch) == (3, 7)
        if kafka_broker.kind == "apache":
            return  # Kafka validates the epoch: test_known_differences.py shows what follows
        # librdkafka resumes there (it cannot validate the epoch without OffsetForLeaderEpoch).
        consumer.assign([TopicPartition("epochs", 0)])
        message = None
        deadline = time.monotonic() + _DEADLINE_SEC
        while message is None and time.monotonic() < deadline:
            message = consumer.poll(0.5)
        assert message is not None and message.error() is None and message.offset() == 3
    finally:
        consumer.close()


def test_kafka_python_reads_back_its_committed_leader_epoch(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "epochs-kp")
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, group_id="epochs-kp", enable_auto_commit=False
    )
    try:
        tp = KafkaPythonTopicPartition("epochs-kp", 0)
        consumer.commit({tp: OffsetAndMetadata(0, "", 4)})
        fetched = consumer._coordinator.fetch_committed_offsets([tp])
        assert (fetched[tp].offset, fetched[tp].leader_epoch) == (0, 4)
    finally:
        consumer.close()


def test_librdkafka_transactional_producer_fails_at_once(embedded_broker) -> None:
    """Embedded only: how the embedded broker refuses transactions (Kafka has them; see
    test_known_differences.py)."""
    producer = Producer(
        {"bootstrap.servers": embedded_broker.bootstrap_servers, "transactional.id": "tx-1"}
    )
    started = time.monotonic()
    with pytest.raises(KafkaException) as raised:
        producer.init_transactions(30)
    assert time.monotonic() - started < 5
    error = raised.value.args[0]
    assert error.code() == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED and error.fatal()
    assert "no transaction coordinator" in error.str()


def test_kafka_python_transactional_producer_fails_at_once(embedded_broker) -> None:
    """Embedded only, as the librdkafka one above."""
    producer = KafkaProducer(
        bootstrap_servers=embedded_broker.bootstrap_servers, transactional_id="tx-2"
    )
    try:
        started = time.monotonic()
        with pytest.raises(TransactionalIdAuthorizationFailedError):
            producer.init_transactions()
        assert time.monotonic() - started < 5
    finally:
        producer.close(timeout=1)
