"""Test helpers for the Spark side: create a topic, send counter messages, delete records.

Messages are what the producer app sends: key = value = n as UTF-8 decimal text, a negative key
for the "crash" messages.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pyarrow as pa
from kafka import KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic

if TYPE_CHECKING:
    from spark_app.source.kafka_source import KafkaStreamReader

__all__ = ["create_topic", "send_counter", "delete_records", "rows_of"]


def create_topic(
    bootstrap: str,
    topic: str = "Experience",
    partitions: int = 1,
    configs: dict[str, str] | None = None,
) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(topic, partitions, 1, topic_configs=configs or {})])
    finally:
        admin.close()


def send_counter(
    bootstrap: str,
    values: Iterable[int],
    topic: str = "Experience",
    negative: Iterable[int] = (),
    partition: int | None = None,
) -> None:
    """Send key = value = n for each n; keys of values in `negative` are sent as -n."""
    negatives = set(negative)
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    try:
        for n in values:
            key = -n if n in negatives else n
            producer.send(topic, key=str(key).encode(), value=str(n).encode(), partition=partition)
        producer.flush(timeout=30)
    finally:
        producer.close()


def set_retention(bootstrap: str, retention_ms: str, topic: str = "Experience") -> None:
    """The topic's retention.ms, as `kafka-configs --alter` sets it."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.alter_configs(
            [
                ConfigResource(
                    ConfigResourceType.TOPIC, topic, configs={"retention.ms": retention_ms}
                )
            ]
        )
    finally:
        admin.close()


def delete_records(
    bootstrap: str, before: int, topic: str = "Experience", partition: int = 0
) -> None:
    """Kafka's DeleteRecords: the partition's log start offset becomes `before`."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.delete_records({TopicPartition(topic, partition): before})
    finally:
        admin.close()


def rows_of(source: KafkaStreamReader, start: dict, end: dict) -> list[dict]:
    """Plan [start, end) with the source and read every task, as Spark's workers would."""
    out: list[dict] = []
    for partition in source.partitions(start, end):
        for batch in source.read(partition):
            out.extend(pa.Table.from_batches([batch]).to_pylist())
    return out
