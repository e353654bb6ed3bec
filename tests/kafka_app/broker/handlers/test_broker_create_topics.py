"""CreateTopics answers what Kafka's controller answers for absurd or contradictory requests:
duplicate names, non-positive counts, and manual replica assignments that a one-broker cluster
cannot hold. Each case is a raw CreateTopics v7 on the wire, so the exact error code is checked,
on both brokers (`kafka_broker`)."""

from __future__ import annotations

import pytest
from kafka.protocol.admin.topics import CreateTopicsRequest

from tests.kafka_app.broker.broker_helpers import own_node, raw_call, topic_names

Topic = CreateTopicsRequest.CreatableTopic
Assignment = Topic.CreatableReplicaAssignment
INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR, INVALID_REPLICA_ASSIGNMENT = 37, 38, 39
INVALID_REQUEST = 42


def create(port: int, *topics: Topic) -> dict[str, tuple[int, str | None]]:
    request = CreateTopicsRequest[7](topics=list(topics), timeout_ms=5000, validate_only=False)
    response = raw_call(port, request, 7)
    return {t.name: (t.error_code, t.error_message) for t in response.topics}


def topic(
    name: str,
    partitions: int = 1,
    factor: int = 1,
    assignments: list[tuple[int, list[int]]] | None = None,
) -> Topic:
    return Topic(
        name=name,
        num_partitions=partitions,
        replication_factor=factor,
        configs=[],
        assignments=[Assignment(partition_index=i, broker_ids=b) for i, b in assignments or []],
    )


def test_a_name_given_twice_is_answered_once_with_invalid_request(kafka_broker) -> None:
    answers = create(kafka_broker.port, topic("twice"), topic("twice", 2), topic("once"))
    assert answers == {"twice": (INVALID_REQUEST, "Duplicate topic name."), "once": (0, None)}
    assert "twice" not in topic_names(kafka_broker.bootstrap_servers)


@pytest.mark.parametrize("partitions", [0, -2, -(2**31)])
def test_a_non_positive_partition_count_is_invalid_partitions(kafka_broker, partitions) -> None:
    [(code, _)] = create(kafka_broker.port, topic("none", partitions)).values()
    assert code == INVALID_PARTITIONS


@pytest.mark.parametrize("factor", [0, -2, 3])
def test_an_impossible_replication_factor_is_refused(kafka_broker, factor) -> None:
    [(code, _)] = create(kafka_broker.port, topic("copies", 1, factor)).values()
    assert code == INVALID_REPLICATION_FACTOR


# Broker 0 below is the broker's own node (own_node maps it: Apache Kafka's node is 1).
@pytest.mark.parametrize(
    ("assignments", "expected"),
    [
        ([(0, [0]), (1, [0])], 0),  # two partitions on broker 0
        ([(0, [0]), (0, [0])], INVALID_REPLICA_ASSIGNMENT),  # partition 0 twice
        ([(0, [0]), (2, [0])], INVALID_REPLICA_ASSIGNMENT),  # not 0..n-1
        ([(0, [])], INVALID_REPLICA_ASSIGNMENT),  # no replica
        ([(0, [7])], INVALID_REPLICA_ASSIGNMENT),  # no broker 7
        ([(0, [0, 0])], INVALID_REPLICA_ASSIGNMENT),  # broker 0 twice
    ],
)
def test_manual_assignments_are_checked_as_kafka_checks_them(
    kafka_broker, assignments, expected
) -> None:
    placed = [(index, own_node(brokers, kafka_broker.node_id)) for index, brokers in assignments]
    [(code, message)] = create(kafka_broker.port, topic("manual", -1, -1, placed)).values()
    assert code == expected, message
    assert ("manual" in topic_names(kafka_broker.bootstrap_servers)) == (expected == 0)


def test_a_manual_assignment_with_a_partition_count_is_invalid_request(kafka_broker) -> None:
    [(code, message)] = create(
        kafka_broker.port, topic("both", 1, -1, [(0, [kafka_broker.node_id])])
    ).values()
    assert code == INVALID_REQUEST
    assert "numPartitions was not set to -1" in (message or "")
