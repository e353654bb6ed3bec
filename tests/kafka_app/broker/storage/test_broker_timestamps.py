"""Record timestamps as Kafka's LogValidator treats them, seen through librdkafka (confluent-kafka).

librdkafka writes a batch max timestamp of 0 for a record sent with timestamp=-1; the broker must
recompute it from the records, or retention takes the record for one from 1970. Tests taking
`kafka_broker` run on both brokers; the two that read stored batch headers are embedded only.
"""

from __future__ import annotations

import struct
import time

import pytest
from confluent_kafka import (
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    Consumer,
    KafkaError,
    Producer,
    TopicPartition,
)
from kafka.record.default_records import DefaultRecordBatchBuilder

from kafka_app.broker.storage.checksum import crc32c
from kafka_app.broker.storage.data_dir import Storage
from kafka_app.broker.storage.record_batch import iter_batches
from tests.kafka_app.broker.broker_helpers import create_topic, log_end, log_start, wait_until

_DEADLINE_SEC = 20
_HOUR_MS = 3_600_000


def _produce(bootstrap: str, topic: str, timestamp: int | None) -> tuple[KafkaError | None, object]:
    """One record through librdkafka; returns its delivery report (error, message)."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    reports: list[tuple[KafkaError | None, object]] = []
    extra = {} if timestamp is None else {"timestamp": timestamp}
    producer.produce(topic, value=b"v", on_delivery=lambda e, m: reports.append((e, m)), **extra)
    assert producer.flush(_DEADLINE_SEC) == 0, "the record was never reported"
    return reports[0]


def _stored_headers(broker, topic: str) -> list:
    def read() -> list:
        log = broker.storage.partition(topic, 0)
        return [
            header
            for segment in log.segments
            for header in iter_batches(log.read(segment.base_offset, 1 << 20))
            if not segment.is_empty
        ]

    return broker.call(read)


def _read_one(bootstrap: str, topic: str):
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"{topic}-reader",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        message = wait_until(lambda: consumer.poll(0.5), _DEADLINE_SEC, f"a record of {topic}")
        assert message.error() is None, message.error()
        return message
    finally:
        consumer.close()


def test_no_timestamp_batch_gets_max_timestamp_minus_one_not_librdkafkas_zero(
    embedded_broker,
) -> None:
    """Embedded only: reads the stored batch header; what a user sees of it (retention keeps the
    record) is test_retention_keeps_a_fresh_record_sent_without_timestamp, on both brokers."""
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap, "untimed")
    error, _ = _produce(bootstrap, "untimed", timestamp=-1)
    assert error is None, error
    [header] = _stored_headers(embedded_broker, "untimed")
    assert (header.first_timestamp, header.max_timestamp) == (-1, -1)


def test_timestamp_zero_means_now_to_librdkafka(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "zero")
    before = int(time.time() * 1000)
    error, _ = _produce(bootstrap, "zero", timestamp=0)
    assert error is None, error
    kind, stamped = _read_one(bootstrap, "zero").timestamp()
    assert kind == TIMESTAMP_CREATE_TIME and before <= stamped <= int(time.time() * 1000)


def test_retention_keeps_a_fresh_record_sent_without_timestamp(kafka_broker) -> None:
    """The fixture's broker checks retention every second: a stale record on another topic is
    the witness that passes ran, while the record without a timestamp (its segment's last write
    is now) stays under one hour of retention."""
    bootstrap = kafka_broker.bootstrap_servers
    hour = {"retention.ms": str(_HOUR_MS)}
    create_topic(bootstrap, "fresh", configs=hour)
    create_topic(bootstrap, "stale", configs=hour)
    assert _produce(bootstrap, "fresh", timestamp=-1)[0] is None
    assert _produce(bootstrap, "stale", timestamp=int(time.time() * 1000) - 2 * _HOUR_MS)[0] is None

    wait_until(
        lambda: log_start(bootstrap, "stale") == 1,
        _DEADLINE_SEC,
        "retention to delete the stale record",
    )
    assert log_start(bootstrap, "fresh") == 0
    assert _read_one(bootstrap, "fresh").value() == b"v"


def test_log_append_time_topic_stamps_the_broker_clock(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "appended", configs={"message.timestamp.type": "LogAppendTime"})
    before = int(time.time() * 1000)
    error, delivered = _produce(bootstrap, "appended", timestamp=5)
    after = int(time.time() * 1000)
    assert error is None, error
    kind, stamped = delivered.timestamp()  # type: ignore[attr-defined]
    assert kind == TIMESTAMP_LOG_APPEND_TIME and before <= stamped <= after
    assert _read_one(bootstrap, "appended").timestamp() == (TIMESTAMP_LOG_APPEND_TIME, stamped)


def test_timestamp_too_far_ahead_is_invalid_timestamp(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "future")
    error, _ = _produce(bootstrap, "future", timestamp=int(time.time() * 1000) + 2 * _HOUR_MS)
    assert error is not None and error.code() == KafkaError.INVALID_TIMESTAMP, error
    assert log_end(bootstrap, "future") == 0


def test_timestamp_before_the_topics_window_is_invalid_timestamp(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "recent", configs={"message.timestamp.before.max.ms": "60000"})
    error, _ = _produce(bootstrap, "recent", timestamp=int(time.time() * 1000) - _HOUR_MS)
    assert error is not None and error.code() == KafkaError.INVALID_TIMESTAMP, error
    assert _produce(bootstrap, "recent", timestamp=None)[0] is None


def _lying_batch(timestamps: list[int], compression: int) -> bytes:
    """A batch whose header claims max timestamp 0 whatever its records say (librdkafka's -1 case)."""
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=compression,
        is_transactional=False,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        batch_size=1 << 20,
    )
    for delta, timestamp in enumerate(timestamps):
        builder.append(delta, timestamp, None, b"x" * 200, [])
    data = bytearray(builder.build())
    struct.pack_into(">q", data, 35, 0)
    struct.pack_into(">I", data, 17, crc32c(memoryview(data)[21:]))
    return bytes(data)


@pytest.mark.parametrize("compression", [0, 1], ids=["uncompressed", "gzip"])
def test_max_timestamp_is_recomputed_from_the_records(tmp_path, compression: int) -> None:
    """Embedded only: the broker's own storage, given a batch no real client sends."""
    now = int(time.time() * 1000)
    records = [now - 5, now - 1, now - 9]
    with Storage(tmp_path) as storage:
        storage.create_topic("mixed", 1, {})
        log = storage.partition("mixed", 0)
        log.append(_lying_batch(records, compression))
        log.append(_lying_batch([-1, -1], compression))
        headers = list(iter_batches(log.read(0, 1 << 20)))
    assert [h.max_timestamp for h in headers] == [now - 1, -1]
    assert all(h.attributes & 0x07 == compression for h in headers)
