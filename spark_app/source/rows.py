"""The rows our Kafka source produces: one table of columns, from which everything else derives.

Spark's connector gives every record the same seven columns (KafkaRecordToRowConverter's
`kafkaSchema`), plus `headers` with `includeHeaders=true`. The schema the source declares, the
Arrow batches its tasks return and the check of a user-given schema are all read from
`COLUMNS`, so a column is added or retyped in one place.

Usage:
    schema_text(include_headers=False)   # "key binary, value binary, topic string, ..."
    batch = record_batch(TopicPartition("Experience", 0), records, include_headers=False)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from spark_app.offsets import TopicPartition
from spark_app.source.kafka_client import Record

__all__ = ["Column", "COLUMNS", "HEADERS_COLUMN", "columns", "schema_text", "record_batch"]

# How a column's values come from one chunk of one partition's records.
_Fill = Callable[[TopicPartition, list[Record], pa.DataType], pa.Array]


@dataclass(frozen=True)
class Column:
    """One column: its name, its type as Spark's DDL writes it, its Arrow type, its values."""

    name: str
    spark_type: str
    arrow_type: pa.DataType
    fill: _Fill

    def ddl(self) -> str:
        return f"{self.name} {self.spark_type}"

    def array(self, tp: TopicPartition, chunk: list[Record]) -> pa.Array:
        return self.fill(tp, chunk, self.arrow_type)


def _each(value: Callable[[Record], Any]) -> _Fill:
    """A column with one value per record."""
    return lambda tp, chunk, arrow: pa.array([value(r) for r in chunk], arrow)


def _same(value: Callable[[TopicPartition], Any]) -> _Fill:
    """A column holding the partition's value on every row (repeated, not built per record)."""
    return lambda tp, chunk, arrow: pa.repeat(pa.scalar(value(tp), arrow), len(chunk))


def _headers(record: Record) -> list[dict[str, Any]] | None:
    # A record without headers has null, not an empty list (toInternalRowWithHeaders).
    return [{"key": k, "value": v} for k, v in record.headers] or None


# KafkaRecordToRowConverter.kafkaSchema, field for field.
COLUMNS: tuple[Column, ...] = (
    Column("key", "binary", pa.binary(), _each(lambda r: r.key)),
    Column("value", "binary", pa.binary(), _each(lambda r: r.value)),
    Column("topic", "string", pa.string(), _same(lambda tp: tp.topic)),
    Column("partition", "int", pa.int32(), _same(lambda tp: tp.partition)),
    Column("offset", "bigint", pa.int64(), _each(lambda r: r.offset)),
    Column(
        "timestamp",
        "timestamp",
        pa.timestamp("us", tz="UTC"),
        _each(lambda r: r.timestamp_ms * 1000),
    ),
    Column("timestampType", "int", pa.int32(), _each(lambda r: r.timestamp_type)),
)
HEADERS_COLUMN = Column(
    "headers",
    "array<struct<key: string, value: binary>>",
    pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())])),
    _each(_headers),
)


def columns(include_headers: bool) -> tuple[Column, ...]:
    """The row's columns in order, for the query's `includeHeaders`."""
    return COLUMNS + ((HEADERS_COLUMN,) if include_headers else ())


def schema_text(include_headers: bool) -> str:
    """The schema as the source declares it to Spark (DDL)."""
    return ", ".join(c.ddl() for c in columns(include_headers))


def record_batch(tp: TopicPartition, chunk: list[Record], include_headers: bool) -> pa.RecordBatch:
    """The rows of `chunk`, records of partition `tp`, as one Arrow batch."""
    wanted = columns(include_headers)
    return pa.RecordBatch.from_arrays(
        [c.array(tp, chunk) for c in wanted],
        schema=pa.schema([(c.name, c.arrow_type) for c in wanted]),
    )
