"""Fetch on the wire, on both brokers: size limits with at least one batch, out-of-range answers
(offsets unknown: clients ask ListOffsets), and long polling bounded by max_wait_ms."""

from __future__ import annotations

import time

from kafka import KafkaProducer
from kafka.protocol.consumer.fetch import FetchRequest
from kafka.record.memory_records import MemoryRecords

from tests.kafka_app.broker.broker_helpers import create_topic, delete_records_before, raw_call


def _fetch(
    port: int,
    topic: str,
    offsets: dict[int, int],
    max_bytes: int = 1 << 20,
    partition_max_bytes: int = 1 << 20,
    max_wait_ms: int = 0,
    min_bytes: int = 0,
) -> dict[int, object]:
    Topic = FetchRequest.FetchTopic
    request = FetchRequest[12](
        replica_id=-1,
        max_wait_ms=max_wait_ms,
        min_bytes=min_bytes,
        max_bytes=max_bytes,
        isolation_level=1,
        session_id=0,
        session_epoch=-1,
        topics=[
            Topic(
                topic=topic,
                partitions=[
                    Topic.FetchPartition(
                        partition=p,
                        current_leader_epoch=-1,
                        fetch_offset=o,
                        last_fetched_epoch=-1,
                        log_start_offset=-1,
                        partition_max_bytes=partition_max_bytes,
                    )
                    for p, o in offsets.items()
                ],
            )
        ],
        forgotten_topics_data=[],
        rack_id="",
    )
    response = raw_call(port, request, 12)
    return {p.partition_index: p for p in response.responses[0].partitions}


def _batch_count(records: bytes) -> int:
    batches = MemoryRecords(records)
    count = 0
    while batches.next_batch() is not None:
        count += 1
    return count


def _three_batches_per_partition(bootstrap: str, topic: str) -> None:
    create_topic(bootstrap, topic, partitions=2)
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=0)
    for _ in range(3):
        for partition in (0, 1):
            producer.send(topic, value=b"x" * 100, partition=partition).get(10)  # one batch each
    producer.close(5)


def test_limits_keep_at_least_one_batch(kafka_broker) -> None:
    _three_batches_per_partition(kafka_broker.bootstrap_servers, "sizes")
    everything = _fetch(kafka_broker.port, "sizes", {0: 0, 1: 0})
    assert [_batch_count(everything[p].records) for p in (0, 1)] == [3, 3]
    tiny = _fetch(kafka_broker.port, "sizes", {0: 0, 1: 0}, max_bytes=1)
    assert [_batch_count(tiny[p].records) for p in (0, 1)] == [1, 0]
    # As in Kafka (KIP-74), only the first partition with data may exceed a limit.
    per_partition = _fetch(kafka_broker.port, "sizes", {0: 0, 1: 0}, partition_max_bytes=1)
    assert [_batch_count(per_partition[p].records) for p in (0, 1)] == [1, 0]
    second_first = _fetch(kafka_broker.port, "sizes", {1: 0, 0: 0}, partition_max_bytes=1)
    assert [_batch_count(second_first[p].records) for p in (0, 1)] == [0, 1]
    assert everything[0].high_watermark == everything[0].last_stable_offset == 3
    assert everything[0].aborted_transactions == []  # read_committed gets an empty list


def test_out_of_range_answers_unknown_offsets_and_a_read_carries_them(kafka_broker) -> None:
    _three_batches_per_partition(kafka_broker.bootstrap_servers, "range")
    delete_records_before(kafka_broker.bootstrap_servers, "range", 2)
    below, above = (
        _fetch(kafka_broker.port, "range", {0: 1})[0],
        _fetch(kafka_broker.port, "range", {0: 9})[0],
    )
    for answer in (below, above):  # unknown (-1), as Kafka answers: clients ask ListOffsets
        assert (answer.error_code, answer.log_start_offset, answer.high_watermark) == (1, -1, -1)
    assert (
        _fetch(kafka_broker.port, "range", {0: 2})[0].log_start_offset,
        _fetch(kafka_broker.port, "range", {0: 2})[0].high_watermark,
    ) == (2, 3)


def test_fetch_at_the_end_waits_max_wait_then_answers_empty(kafka_broker) -> None:
    _three_batches_per_partition(kafka_broker.bootstrap_servers, "wait")
    started = time.monotonic()
    answer = _fetch(kafka_broker.port, "wait", {0: 3}, max_wait_ms=400, min_bytes=1)[0]
    waited = time.monotonic() - started
    assert answer.error_code == 0 and not answer.records
    assert 0.35 <= waited < 3, f"waited {waited:.2f}s for a 0.4s max_wait"
