"""kafka-python 3.0.x: produce, consume, offsets, admin, retention, on the embedded broker and,
with --slow, on Apache Kafka (every test takes `kafka_broker`): the same answers from both."""

from __future__ import annotations

import time

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType
from kafka.errors import OffsetOutOfRangeError

from tests.kafka_app.broker.broker_helpers import admin, create_topic, log_start, wait_until


def _produce(bootstrap: str, topic: str, values: list[bytes], **config) -> list[int]:
    producer = KafkaProducer(bootstrap_servers=bootstrap, **config)
    try:
        futures = [producer.send(topic, key=v, value=v) for v in values]
        producer.flush(10)
        return [f.get(10).offset for f in futures] if config.get("acks", "all") != 0 else []
    finally:
        producer.close(5)


def _consume_all(bootstrap: str, topic: str, count: int, **config) -> list[bytes]:
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=10_000,
        **config,
    )
    try:
        values = []
        for message in consumer:
            values.append(message.value)
            if len(values) == count:
                break
        return values
    finally:
        consumer.close()


@pytest.mark.parametrize("acks", [0, 1, "all"])
def test_produce_with_each_acks_then_consume(kafka_broker, acks) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "numbers")
    values = [str(i).encode() for i in range(1, 51)]
    offsets = _produce(bootstrap, "numbers", values, acks=acks)
    if acks != 0:
        assert offsets == list(range(50))
    assert _consume_all(bootstrap, "numbers", 50) == values


def test_several_partitions_keep_their_own_offsets(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "split", partitions=3)
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    metadata = [producer.send("split", value=b"%d" % i, partition=i % 3).get(10) for i in range(9)]
    producer.close(5)
    assert sorted((m.partition, m.offset) for m in metadata) == [
        (p, o) for p in range(3) for o in range(3)
    ]
    assert sorted(_consume_all(bootstrap, "split", 9)) == sorted(b"%d" % i for i in range(9))


def test_list_offsets_earliest_latest_and_by_timestamp(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    # Timestamps from 1970 are far past the default retention (7 days): without retention.ms=-1
    # either broker deletes them at its next retention check (Apache Kafka did, once, in CI).
    create_topic(bootstrap, "times", configs={"retention.ms": "-1"})
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i, stamp in enumerate([1_000, 2_000, 3_000]):
        producer.send("times", value=b"%d" % i, timestamp_ms=stamp).get(10)
    producer.close(5)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap)
    tp = TopicPartition("times", 0)
    try:
        assert consumer.beginning_offsets([tp]) == {tp: 0}
        assert consumer.end_offsets([tp]) == {tp: 3}
        found = consumer.offsets_for_times({tp: 1_500})[tp]
        assert (found.offset, found.timestamp) == (1, 2_000)
        assert consumer.offsets_for_times({tp: 9_000})[tp] is None
    finally:
        consumer.close()


def test_long_poll_returns_as_soon_as_data_arrives(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "late")
    consumer = KafkaConsumer(
        "late", bootstrap_servers=bootstrap, auto_offset_reset="earliest", fetch_max_wait_ms=5_000
    )
    try:
        consumer.poll(timeout_ms=500)  # joins the partition and starts fetching
        _produce(bootstrap, "late", [b"now"])
        started = time.monotonic()
        records = wait_until(lambda: consumer.poll(timeout_ms=200), 5, "the produced record")
        assert [r.value for rs in records.values() for r in rs] == [b"now"]
        assert time.monotonic() - started < 3, "the fetch waited for max_wait instead of waking"
    finally:
        consumer.close()


def test_delete_records_moves_earliest(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "trim")
    _produce(bootstrap, "trim", [b"%d" % i for i in range(10)])
    tp = TopicPartition("trim", 0)
    client = admin(bootstrap)
    try:
        result = client.delete_records({tp: 4})
        assert result[tp]["low_watermark"] == 4
    finally:
        client.close()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap)
    try:
        assert consumer.beginning_offsets([tp]) == {tp: 4}
    finally:
        consumer.close()
    assert _consume_all(bootstrap, "trim", 6) == [b"%d" % i for i in range(4, 10)]


def test_describe_and_incrementally_alter_topic_configs(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "conf", configs={"retention.ms": "60000"})
    client = admin(bootstrap)
    resource = ConfigResource(ConfigResourceType.TOPIC, "conf")
    try:
        shown = client.describe_configs([resource])["topic"]["conf"]
        assert shown["retention.ms"]["value"] == "60000"
        assert shown["retention.ms"]["config_source"] == "DYNAMIC_TOPIC_CONFIG"
        assert "segment.ms" not in shown  # defaults are hidden unless asked for, as with Kafka
        everything = client.describe_configs([resource], config_filter="all")["topic"]["conf"]
        assert everything["segment.ms"]["config_source"] == "DEFAULT_CONFIG"
        client.alter_configs(
            [
                ConfigResource(
                    ConfigResourceType.TOPIC,
                    "conf",
                    configs={"segment.ms": "1000", "retention.ms": ("DELETE", None)},
                )
            ],
            incremental=True,
        )

        def described_after_the_change() -> dict | None:
            # Kafka answers the change once its controller committed it; the broker describing
            # it learns it a moment later from the metadata log (the embedded broker at once).
            shown = client.describe_configs([resource], config_filter="all")["topic"]["conf"]
            return shown if shown["segment.ms"]["value"] == "1000" else None

        altered = wait_until(described_after_the_change, 10, "segment.ms=1000 to be described")
    finally:
        client.close()
    assert (altered["retention.ms"]["value"], altered["retention.ms"]["config_source"]) == (
        "604800000",
        "DEFAULT_CONFIG",
    )  # deleted: back to Kafka's default, 7 days


def test_retention_moves_earliest_and_consumers_react(kafka_broker) -> None:
    # Both brokers check retention every second from the start (kafka_broker's settings).
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "short", configs={"retention.ms": "30000", "segment.ms": "100"})
    tp = TopicPartition("short", 0)
    # Records a minute old are past retention.ms at once; the fresh one rolls a new segment
    # (its timestamp is more than segment.ms after the first) and stays.
    a_minute_ago = int(time.time() * 1000) - 60_000
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i in range(5):
        producer.send("short", value=b"old-%d" % i, timestamp_ms=a_minute_ago + i).get(10)
    producer.send("short", value=b"new").get(10)
    producer.close(5)
    probe = KafkaConsumer(bootstrap_servers=bootstrap)
    try:
        wait_until(
            lambda: probe.beginning_offsets([tp])[tp] >= 5, 10, "retention to delete old segments"
        )
    finally:
        probe.close()

    strict = KafkaConsumer(
        bootstrap_servers=bootstrap, auto_offset_reset="none", enable_auto_commit=False
    )
    strict.assign([tp])
    strict.seek(tp, 0)
    try:
        with pytest.raises(OffsetOutOfRangeError):
            wait_until(lambda: strict.poll(timeout_ms=500), 10, "an out-of-range error")
    finally:
        strict.close()

    lenient = KafkaConsumer(
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        consumer_timeout_ms=10_000,
    )
    lenient.assign([tp])
    lenient.seek(tp, 0)
    try:
        first = next(iter(lenient))
        assert (first.offset, first.value) == (5, b"new")
    finally:
        lenient.close()


def test_retention_bytes_deletes_whole_oldest_segments(kafka_broker) -> None:
    """segment.bytes at Kafka's 1 MiB minimum: ten 100 KiB records fill a segment, so 35 make
    segments of offsets 0-9, 10-19, 20-29 and 30-34. retention.bytes=1 MiB deletes the oldest
    segment while what remains stays at least 1 MiB: two go, and the log starts at 20."""
    bootstrap = kafka_broker.bootstrap_servers
    mib = str(1024 * 1024)
    create_topic(bootstrap, "sized", configs={"segment.bytes": mib, "retention.bytes": mib})
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=0)
    try:
        for i in range(35):
            producer.send("sized", value=b"%04d" % i + b"x" * (100 * 1024)).get(
                10
            )  # one batch each
    finally:
        producer.close(5)
    wait_until(lambda: log_start(bootstrap, "sized") > 0, 15, "retention.bytes to delete segments")
    assert log_start(bootstrap, "sized") == 20
    assert [v[:4] for v in _consume_all(bootstrap, "sized", 15)] == [
        b"%04d" % i for i in range(20, 35)
    ]
