"""Every record of a one-partition topic with its offset and Kafka timestamp, read once.

The real-time-mode scenario judges Spark's Kafka sink from the topics alone: the output topic's
records carry the input record's offset (queries/real_time/echo.py), and each record's
timestamp is when its producer sent it, so an output record's timestamp minus its input
record's is that record's latency through the query, and an offset written twice is a
duplicate.

Usage: `for r in topic_records("127.0.0.1:19092", "Echo"): r.offset, r.timestamp_ms, r.value`
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import kafka.errors
from kafka import KafkaConsumer, TopicPartition

from scenarios.errors import StepFailed

__all__ = ["ReadRecord", "topic_records", "json_values"]


@dataclass(frozen=True)
class ReadRecord:
    """One record of a topic as a consumer read it back: where, when, and its bytes."""

    offset: int
    timestamp_ms: int
    value: bytes


def topic_records(bootstrap_servers: str, topic: str, timeout_sec: float = 5.0) -> list[ReadRecord]:
    """The records of partition 0 of `topic` from its earliest offset to its latest now."""
    try:  # no broker answering is a step that failed too, said in one line
        consumer = KafkaConsumer(
            bootstrap_servers=bootstrap_servers,
            group_id=None,
            enable_auto_commit=False,
            client_id="scenarios-reader",
            consumer_timeout_ms=int(timeout_sec * 1000),
        )
    except kafka.errors.KafkaError as error:
        raise StepFailed(f"reading topic {topic} failed: {error}") from error
    tp = TopicPartition(topic, 0)
    try:
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        end = consumer.end_offsets([tp])[tp]
        records: list[ReadRecord] = []
        if end == 0:
            return records
        for record in consumer:  # ends after consumer_timeout_ms without a record
            records.append(ReadRecord(record.offset, record.timestamp, record.value or b""))
            if consumer.position(tp) >= end:
                break
        return records
    except kafka.errors.KafkaError as error:
        raise StepFailed(f"reading topic {topic} failed: {error}") from error
    finally:
        consumer.close()


def json_values(records: list[ReadRecord]) -> list[dict[str, Any]]:
    """The records' values read as JSON objects (Spark's Kafka sink writes `to_json` rows)."""
    return [json.loads(r.value) for r in records]
