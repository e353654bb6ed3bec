"""Limits a real Kafka broker enforces, on the wire: fetch.max.bytes over a request that names a
partition many times, the partition count of CreateTopics (per request, and our broker-wide
cap), and offset commit metadata size."""

from __future__ import annotations

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewPartitions, NewTopic
from kafka.errors import OffsetMetadataTooLargeError, PolicyViolationError
from kafka.protocol.consumer.fetch import FetchRequest
from kafka.protocol.consumer.group import JoinGroupRequest
from kafka.structs import OffsetAndMetadata

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from kafka_app.broker.groups.offsets import MAX_METADATA_CHARS
from kafka_app.broker.handlers import fetch as fetch_handler
from kafka_app.broker.handlers.create_topics import MAX_PARTITIONS_PER_REQUEST
from tests.kafka_app.broker.broker_helpers import create_topic, raw_call

BIG = 2**31 - 1


def _fetch_same_partition(port: int, topic: str, times: int) -> list[bytes]:
    Topic = FetchRequest.FetchTopic
    request = FetchRequest[12](
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=BIG,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[
            Topic(
                topic=topic,
                partitions=[
                    Topic.FetchPartition(
                        partition=0,
                        current_leader_epoch=-1,
                        fetch_offset=0,
                        last_fetched_epoch=-1,
                        log_start_offset=-1,
                        partition_max_bytes=BIG,
                    )
                    for _ in range(times)
                ],
            )
        ],
        forgotten_topics_data=[],
        rack_id="",
    )
    return [bytes(p.records or b"") for p in raw_call(port, request, 12).responses[0].partitions]


def test_fetch_max_bytes_caps_a_request_naming_one_partition_many_times(
    embedded_broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    create_topic(embedded_broker.bootstrap_servers, "many", partitions=1)
    producer = KafkaProducer(bootstrap_servers=embedded_broker.bootstrap_servers, linger_ms=0)
    for _ in range(4):
        producer.send("many", value=b"x" * 1000, partition=0).get(10)
    producer.close(5)
    whole = _fetch_same_partition(embedded_broker.port, "many", 1)[0]
    assert len(whole) > 4000
    # Kafka's 55 MiB cap, scaled down so the test stays small: the same rule, a smaller number.
    monkeypatch.setattr(fetch_handler, "FETCH_MAX_BYTES", len(whole) + 10)
    answers = _fetch_same_partition(embedded_broker.port, "many", 200)
    assert len(answers) == 200
    assert sum(len(records) for records in answers) <= len(whole) + 10
    assert answers[0] == whole


def test_create_topics_refuses_more_than_10000_partitions_per_request(kafka_broker) -> None:
    """Kafka's controller: POLICY_VIOLATION for every topic of the request, even when each
    topic alone would fit ("Excessively large number of partitions per request.")."""
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap_servers)
    try:
        with pytest.raises(PolicyViolationError, match="Excessively large"):
            admin.create_topics([NewTopic("huge", MAX_PARTITIONS_PER_REQUEST + 1, 1)])
        half = MAX_PARTITIONS_PER_REQUEST // 2 + 1
        with pytest.raises(PolicyViolationError):
            admin.create_topics([NewTopic("half-a", half, 1), NewTopic("half-b", half, 1)])
        assert not {"huge", "half-a", "half-b"} & set(admin.list_topics())
    finally:
        admin.close()


def test_the_broker_wide_partition_cap_refuses_the_topic_that_would_pass_it(
    tmp_path, free_port
) -> None:
    settings = BrokerSettings(port=free_port, data_dir=tmp_path / "data", max_partitions=5)
    with EmbeddedBroker(settings) as broker:
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap_servers)
        try:
            admin.create_topics([NewTopic("three", 3, 1)])
            with pytest.raises(PolicyViolationError, match="holds 3 of at most 5"):
                admin.create_topics([NewTopic("three-more", 3, 1)])
            with pytest.raises(PolicyViolationError):  # growing a topic counts too
                admin.create_partitions({"three": NewPartitions(6)})
            admin.create_topics([NewTopic("two-more", 2, 1)])  # exactly at the cap is fine
            assert {"three", "two-more"} <= set(admin.list_topics())
            assert "three-more" not in admin.list_topics()
        finally:
            admin.close()
    # Past the cap after a restart with a lower one: the data is opened, nothing new is made.
    lower = BrokerSettings(port=free_port, data_dir=tmp_path / "data", max_partitions=2)
    with EmbeddedBroker(lower) as broker:
        assert broker.call(broker.storage.topics) == {"three": 3, "two-more": 2}
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap_servers)
        try:
            with pytest.raises(PolicyViolationError):
                admin.create_topics([NewTopic("one", 1, 1)])
        finally:
            admin.close()


def test_offset_commit_metadata_over_4096_characters_is_refused(kafka_broker) -> None:
    create_topic(kafka_broker.bootstrap_servers, "meta", partitions=1)
    tp = TopicPartition("meta", 0)
    consumer = KafkaConsumer(
        bootstrap_servers=kafka_broker.bootstrap_servers, group_id="g", enable_auto_commit=False
    )
    try:
        consumer.commit({tp: OffsetAndMetadata(3, "m" * MAX_METADATA_CHARS, -1)})
        assert consumer.committed(tp) == 3
        with pytest.raises(OffsetMetadataTooLargeError):
            consumer.commit({tp: OffsetAndMetadata(5, "m" * (MAX_METADATA_CHARS + 1), -1)})
        assert consumer.committed(tp) == 3
    finally:
        consumer.close()


@pytest.mark.parametrize(
    ("session_ms", "expected"),
    [(5_999, 26), (6_000, 79), (1_800_000, 79), (1_800_001, 26), (2**31 - 1, 26), (-1, 26)],
)
def test_join_group_session_timeouts_outside_kafkas_bounds_are_refused(
    kafka_broker, session_ms: int, expected: int
) -> None:
    """Kafka's group.min/max.session.timeout.ms (6 s, 30 min): INVALID_SESSION_TIMEOUT (26);
    inside them a new member gets MEMBER_ID_REQUIRED (79), the first step of joining."""
    request = JoinGroupRequest[5](
        group_id="bounded",
        session_timeout_ms=session_ms,
        rebalance_timeout_ms=10_000,
        member_id="",
        group_instance_id=None,
        protocol_type="consumer",
        protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=b"")],
    )
    assert raw_call(kafka_broker.port, request, 5).error_code == expected
