"""group.initial.rebalance.delay.ms with librdkafka: consumers started together share the
first assignment instead of the first taking every partition and each next one forcing a
rebalance. On both brokers: the delayed case starts its own (Apache Kafka: a JVM start)."""

from __future__ import annotations

from pathlib import Path

from confluent_kafka import Consumer, TopicPartition

from kafka_app.broker import BrokerSettings
from tests.kafka_app.broker.both_brokers import own_broker
from tests.kafka_app.broker.broker_helpers import create_topic, wait_until

_DEADLINE_SEC = 20
# Long enough that the second member's JoinGroup lands inside it on a loaded 2-core CI machine:
# with 1 s, Apache Kafka's first member once got all four partitions (CI, the JVM busy with a
# scenario), as Kafka does when the second join comes after the delay.
_INITIAL_DELAY_MS = 3_000


def _member(bootstrap: str, assignments: list[int]) -> Consumer:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "together",
            "session.timeout.ms": 6_000,
            "heartbeat.interval.ms": 200,
            "partition.assignment.strategy": "range",
        }
    )

    def on_assign(_: Consumer, partitions: list[TopicPartition]) -> None:
        assignments.append(len(partitions))

    consumer.subscribe(["shared"], on_assign=on_assign)
    return consumer


def _run_two_members(bootstrap: str, delay_ms: int) -> tuple[list[int], list[int]]:
    create_topic(bootstrap, "shared", partitions=4)
    first_seen: list[int] = []
    second_seen: list[int] = []
    first = _member(bootstrap, first_seen)
    members = [first]
    try:
        if delay_ms:
            # The second consumer starts a moment after the first, well inside the delay:
            # a stagger that is the point of the test, spent polling so the first joins.
            first.poll(0.3)
        else:
            wait_until(
                lambda: first.poll(0.1) is None and bool(first_seen),
                _DEADLINE_SEC,
                "the first consumer's assignment",
            )
        members.append(_member(bootstrap, second_seen))

        def both_hold_two() -> bool:
            for consumer in members:
                consumer.poll(0.1)
            return [len(c.assignment()) for c in members] == [2, 2]

        wait_until(both_hold_two, _DEADLINE_SEC, "two members with two partitions each")
    finally:
        for consumer in members:
            consumer.close()
    return first_seen, second_seen


def test_consumers_starting_together_share_the_first_assignment(
    broker_kind: str, tmp_path: Path, free_port: int
) -> None:
    settings = BrokerSettings(
        port=free_port,
        data_dir=tmp_path / "data",
        log_dir=tmp_path / "log",
        group_initial_rebalance_delay_ms=_INITIAL_DELAY_MS,
    )
    with own_broker(broker_kind, settings) as broker:
        first_seen, second_seen = _run_two_members(
            broker.bootstrap_servers, delay_ms=_INITIAL_DELAY_MS
        )
    assert first_seen[0] == 2 and second_seen[0] == 2, (first_seen, second_seen)


def test_without_the_delay_the_first_consumer_takes_everything_first(kafka_broker) -> None:
    first_seen, _ = _run_two_members(kafka_broker.bootstrap_servers, delay_ms=0)
    assert first_seen[0] == 4, first_seen
