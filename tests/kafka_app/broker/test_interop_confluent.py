"""confluent-kafka (librdkafka) with its default settings, on the embedded broker and, with --slow,
on Apache Kafka (every test takes `kafka_broker`): the same answers from both."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition

from tests.kafka_app.broker.broker_helpers import (
    committed_offset,
    create_topic,
    delete_records_before,
    wait_until,
)

_DEADLINE_SEC = 20


def _produce(bootstrap: str, topic: str, values: list[bytes], **config: object) -> list[int]:
    producer = Producer({"bootstrap.servers": bootstrap, **config})
    delivered: list[int] = []

    def on_delivery(error: KafkaError | None, message: object) -> None:
        assert error is None, error
        delivered.append(message.offset())  # type: ignore[attr-defined]

    for value in values:
        producer.produce(topic, key=value, value=value, on_delivery=on_delivery)
    assert producer.flush(_DEADLINE_SEC) == 0, "messages left undelivered"
    return delivered


def _consume(consumer: Consumer, count: int) -> list[bytes]:
    values: list[bytes] = []
    deadline = time.monotonic() + _DEADLINE_SEC
    while len(values) < count and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is None:
            continue
        if message.error():
            raise KafkaException(message.error())
        values.append(message.value())
    return values


@pytest.mark.parametrize("idempotence", [False, True])
def test_produce_and_consume_in_a_group_read_committed(kafka_broker, idempotence: bool) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "rd", partitions=2)
    values = [b"%d" % i for i in range(200)]
    offsets = _produce(bootstrap, "rd", values, **{"enable.idempotence": idempotence})
    assert len(offsets) == 200
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "rd-readers",
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )
    try:
        consumer.subscribe(["rd"])
        assert sorted(_consume(consumer, 200), key=int) == values
        consumer.commit(asynchronous=False)
        committed = consumer.committed(
            [TopicPartition("rd", 0), TopicPartition("rd", 1)], timeout=10
        )
        assert sum(tp.offset for tp in committed) == 200
    finally:
        consumer.close()


def test_watermarks_and_offsets_for_times(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "wm")
    _produce(bootstrap, "wm", [b"a", b"b", b"c"])
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "wm"})
    try:
        assert consumer.get_watermark_offsets(TopicPartition("wm", 0), timeout=10) == (0, 3)
        far_future = int(time.time() * 1000) + 3_600_000
        found = consumer.offsets_for_times([TopicPartition("wm", 0, far_future)], timeout=10)
        assert found[0].offset == -1
    finally:
        consumer.close()


def _aged_out_consumer(kafka_broker, topic: str, group: str, reset: str) -> Consumer:
    """A consumer with `auto.offset.reset` = `reset`, on a topic of ten records whose first six
    are gone (DeleteRecords moved the log start offset to 6, as retention would)."""
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, topic)
    _produce(bootstrap, topic, [b"%d" % i for i in range(10)])
    delete_records_before(bootstrap, topic, 6)
    return Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "auto.offset.reset": reset,
            "enable.auto.commit": False,
        }
    )


def test_aged_out_offset_raises_when_reset_is_error(kafka_broker) -> None:
    consumer = _aged_out_consumer(kafka_broker, "gone", "strict", "error")
    try:
        consumer.assign([TopicPartition("gone", 0, 2)])

        def out_of_range_error() -> KafkaError | None:
            message = consumer.poll(0.5)
            if message is not None and message.error():
                return message.error()
            assert message is None, f"read {message.value()!r} below the log start offset"
            return None

        error = wait_until(out_of_range_error, _DEADLINE_SEC, "librdkafka's reset error")
        assert error.code() == KafkaError._AUTO_OFFSET_RESET
    finally:
        consumer.close()


def test_aged_out_offset_resets_to_earliest(kafka_broker) -> None:
    consumer = _aged_out_consumer(kafka_broker, "gone2", "lenient", "earliest")
    try:
        consumer.assign([TopicPartition("gone2", 0, 2)])
        assert _consume(consumer, 4) == [b"6", b"7", b"8", b"9"]
    finally:
        consumer.close()


def test_two_librdkafka_members_rebalance(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "pairs", partitions=4)

    def member() -> Consumer:
        consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": "pairs",
                "session.timeout.ms": 6_000,
                "heartbeat.interval.ms": 300,
            }
        )
        consumer.subscribe(["pairs"])
        return consumer

    def owns(*counts: int) -> Callable[[], bool]:
        def check() -> bool:
            for consumer in members:
                consumer.poll(0.1)
            return [len(c.assignment()) for c in members] == list(counts)

        return check

    members = [member()]
    try:
        wait_until(owns(4), _DEADLINE_SEC, "one member owning all four partitions")
        members.append(member())
        wait_until(owns(2, 2), _DEADLINE_SEC, "two members with two partitions each")
        members.pop().close()
        wait_until(owns(4), _DEADLINE_SEC, "the remaining member taking all back")
    finally:
        for consumer in members:
            consumer.close()


def test_commit_in_on_revoke_is_accepted_during_the_rebalance(kafka_broker) -> None:
    """librdkafka revokes (eager protocol) after hearing REBALANCE_IN_PROGRESS and before it
    rejoins: the group prepares a rebalance then, and Kafka accepts the current generation's
    commit, so the next owner resumes where this one stopped instead of reading it all again."""
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "handover")
    _produce(bootstrap, "handover", [b"%d" % i for i in range(5)])
    revoke_commits: list[list[TopicPartition]] = []

    def on_revoke(consumer: Consumer, partitions: list[TopicPartition]) -> None:
        # Only the rebalance's revocation: close() revokes again, with nothing left to commit.
        if partitions and not revoke_commits:
            revoke_commits.append(consumer.commit(asynchronous=False) or [])

    config = {
        "bootstrap.servers": bootstrap,
        "group.id": "handover",
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 6_000,
        "heartbeat.interval.ms": 200,
        "partition.assignment.strategy": "range",
    }
    first = Consumer(config)
    second = Consumer(config)
    try:
        first.subscribe(["handover"], on_revoke=on_revoke)
        assert _consume(first, 5) == [b"%d" % i for i in range(5)]
        second.subscribe(["handover"])
        wait_until(
            lambda: first.poll(0.1) is None and second.poll(0.1) is None and revoke_commits,
            _DEADLINE_SEC,
            "the first member to commit in on_revoke",
        )
        assert [(tp.offset, tp.error) for tp in revoke_commits[0]] == [(5, None)]
    finally:
        first.close()
        second.close()
    assert committed_offset(bootstrap, "handover", "handover") == 5
