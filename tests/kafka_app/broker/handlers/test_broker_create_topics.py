"""CreateTopics answers what Kafka's controller answers for absurd or contradictory requests:
duplicate names, non-positive counts, and manual replica assignments that a one-broker cluster
cannot hold. Each case is a raw CreateTopics v7 on the wire, so the exact error code is checked."""

from __future__ import annotations

import pytest
from kafka.protocol.admin.topics import CreateTopicsRequest

from tests.kafka_app.broker.broker_helpers import raw_call

Topic = CreateTopicsRequest.CreatableTopic
Assignment = Topic.CreatableReplicaAssignment
INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR, INVALID_REPLICA_ASSIGNMENT = 37, 38, 39
INVALID_REQUEST = 42


def create(port: int, *topics: Topic) -> dict[str, tuple[int, str | None]]:
    request = CreateTopicsRequest[7](topics=list(topics), timeout_ms=5000, validate_only=False)
    response = raw_call(port, request, 7)
    return {t.name: (t.error_code, t.error_message) for t in response.topics}


def topic(name: str, partitions: int = 1, factor: int = 1,
          assignments: list[tuple[int, list[int]]] | None = None) -> Topic:
    return Topic(name=name, num_partitions=partitions, replication_factor=factor, configs=[],
                 assignments=[Assignment(partition_index=i, broker_ids=b)
                              for i, b in assignments or []])


def test_a_name_given_twice_is_answered_once_with_invalid_request(embedded_broker) -> None:
    answers = create(embedded_broker.port, topic("twice"), topic("twice", 2), topic("once"))
    assert answers == {"twice": (INVALID_REQUEST, "Duplicate topic name."), "once": (0, None)}
    assert not list(embedded_broker.data_dir.glob("twice-*"))


@pytest.mark.parametrize("partitions", [0, -2, -(2**31)])
def test_a_non_positive_partition_count_is_invalid_partitions(embedded_broker, partitions) -> None:
    [(code, _)] = create(embedded_broker.port, topic("none", partitions)).values()
    assert code == INVALID_PARTITIONS


@pytest.mark.parametrize("factor", [0, -2, 3])
def test_an_impossible_replication_factor_is_refused(embedded_broker, factor) -> None:
    [(code, _)] = create(embedded_broker.port, topic("copies", 1, factor)).values()
    assert code == INVALID_REPLICATION_FACTOR


@pytest.mark.parametrize(("assignments", "expected"), [
    ([(0, [0]), (1, [0])], 0),                              # two partitions on broker 0
    ([(0, [0]), (0, [0])], INVALID_REPLICA_ASSIGNMENT),     # partition 0 twice
    ([(0, [0]), (2, [0])], INVALID_REPLICA_ASSIGNMENT),     # not 0..n-1
    ([(0, [])], INVALID_REPLICA_ASSIGNMENT),                # no replica
    ([(0, [7])], INVALID_REPLICA_ASSIGNMENT),               # no broker 7
    ([(0, [0, 0])], INVALID_REPLICA_ASSIGNMENT),            # broker 0 twice
])
def test_manual_assignments_are_checked_as_kafka_checks_them(embedded_broker, assignments,
                                                             expected) -> None:
    [(code, message)] = create(embedded_broker.port, topic("manual", -1, -1, assignments)).values()
    assert code == expected, message
    assert bool(list(embedded_broker.data_dir.glob("manual-*"))) == (expected == 0)


def test_a_manual_assignment_with_a_partition_count_is_invalid_request(embedded_broker) -> None:
    [(code, message)] = create(embedded_broker.port, topic("both", 1, -1, [(0, [0])])).values()
    assert code == INVALID_REQUEST
    assert "numPartitions was not set to -1" in (message or "")
