"""The source's rows: the declared schema and the Arrow batches its tasks return agree."""

from __future__ import annotations

from datetime import datetime, timezone

import pyarrow as pa

from spark_app.offsets import TopicPartition
from spark_app.source.kafka_client import Record
from spark_app.source.rows import record_batch, schema_text

TP = TopicPartition("Experience", 3)
RECORDS = [
    Record(41, b"1", b"one", 1_700_000_000_123, 0, (("trace", b"x"),)),
    Record(42, None, b"two", 1_700_000_000_456, 1, ()),
]


def _declared(include_headers: bool) -> list[str]:
    """The column names of the DDL the source gives Spark, in order."""
    text = schema_text(include_headers)
    # Split at top-level commas only: the headers type has commas inside its <...>.
    names, depth, field = [], 0, ""
    for char in text + ",":
        depth += char == "<"
        depth -= char == ">"
        if char == "," and depth == 0:
            names.append(field.strip().split(" ")[0])
            field = ""
        else:
            field += char
    return names


def test_the_batch_has_the_declared_columns_in_order() -> None:
    for include_headers in (False, True):
        batch = record_batch(TP, RECORDS, include_headers)
        assert batch.schema.names == _declared(include_headers)


def test_a_batch_holds_the_records_as_the_connector_shows_them() -> None:
    rows = pa.Table.from_batches([record_batch(TP, RECORDS, include_headers=True)]).to_pylist()
    assert rows[0] == {
        "key": b"1",
        "value": b"one",
        "topic": "Experience",
        "partition": 3,
        "offset": 41,
        "timestamp": datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=timezone.utc),
        "timestampType": 0,
        "headers": [{"key": "trace", "value": b"x"}],
    }
    # A record without headers has null headers, not an empty list; a null key stays null.
    assert rows[1]["headers"] is None and rows[1]["key"] is None
    assert [r["partition"] for r in rows] == [3, 3]


def test_the_schema_is_the_connectors() -> None:
    assert schema_text(include_headers=False) == (
        "key binary, value binary, topic string, partition int, offset bigint, "
        "timestamp timestamp, timestampType int"
    )
    assert schema_text(include_headers=True).endswith(
        ", headers array<struct<key: string, value: binary>>"
    )
