"""The oracle's evaluation: a user's query over every record sent.

`python -m oracle evaluate --query FILE.py --records sent-records.jsonl --out expected.jsonl`
reads the records the producer had acknowledged (kafka_app/sent_records.py), builds them into a
DataFrame with the Kafka source's seven columns, runs the module's `build()` over it, and writes
the rows it gives in query_rows.py's form: what the query should have produced.

As a batch query where Spark runs one: that result is the truth, whole, with no batch boundary
in it (every window complete, nothing late). Spark refuses some streaming operators in a batch
(applyInPandasWithState, dropDuplicatesWithinWatermark, transformWithState); for those the
records are read as a stream from a file of them and the query runs in the module's output mode
until it has read them all (Trigger.AvailableNow: every record in the first batch, then the
batches Spark adds for the watermark), and the result is read per mode as the sink's would be.

Records that retention deleted before the query read them are left out when their ranges are
given (`--lost TOPIC:PARTITION:FROM-UNTIL`, repeated): the expected result is then that of the
records the query could still read, and the checker names the loss with its offsets.

Usage: `evaluate(spark, query, records, scratch) -> list[dict]`
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka_app.sent_records import SentRecord
from spark_app.lines.query_rows import BATCH_COLUMN, json_value, rows_text
from spark_app.query.user_query import UserQuery

__all__ = ["LostRange", "evaluate", "kept_records", "write_expected"]

_SCHEMA = (
    "key binary, value binary, topic string, partition int, offset bigint, "
    "timestamp timestamp, timestampType int"
)


@dataclass(frozen=True)
class LostRange:
    """Offsets [start, end) of one partition the query never read: deleted by retention before
    it read them, or past its checkpoint's last commit. `end` None: every offset from `start`
    on, for a producer that may still be sending while the oracle reads what it sent."""

    topic: str
    partition: int
    start: int
    end: int | None = None

    @classmethod
    def parse(cls, text: str) -> LostRange:
        """`TOPIC:PARTITION:FROM-UNTIL`, e.g. `Experience:0:24-59`; `FROM-` for no end."""
        try:
            topic, partition, span = text.rsplit(":", 2)
            start, end = span.split("-")
            return cls(topic, int(partition), int(start), int(end) if end else None)
        except ValueError as error:
            raise ValueError(
                f"--lost {text}: write TOPIC:PARTITION:FROM-UNTIL, e.g. Experience:0:24-59, "
                "or FROM- for every offset from FROM on"
            ) from error

    def text(self) -> str:
        """The form `parse` reads: what a scenario passes as `--lost`."""
        return f"{self.topic}:{self.partition}:{self.start}-{'' if self.end is None else self.end}"

    def holds(self, record: SentRecord) -> bool:
        return (
            record.topic == self.topic
            and record.partition == self.partition
            and self.start <= record.offset
            and (self.end is None or record.offset < self.end)
        )


def kept_records(records: Iterable[SentRecord], lost: Sequence[LostRange] = ()) -> list[SentRecord]:
    """The records a query could read: every one sent, less those retention deleted first."""
    return [r for r in records if not any(span.holds(r) for span in lost)]


def _as_rows(records: Sequence[SentRecord]) -> list[tuple[Any, ...]]:
    from datetime import datetime, timezone

    return [
        (
            None if r.key is None else r.key.encode(),
            r.value.encode(),
            r.topic,
            r.partition,
            r.offset,
            # An aware time: Spark stores the instant, whatever this machine's time zone.
            datetime.fromtimestamp(r.timestamp_ms / 1000, tz=timezone.utc),
            0,
        )
        for r in records
    ]


def evaluate(
    spark: Any, query: UserQuery, records: Sequence[SentRecord], scratch: Path
) -> list[dict[str, Any]]:
    """The rows `query` gives over `records`, as a batch if Spark runs one, else as one stream."""
    frame = spark.createDataFrame(_as_rows(records), _SCHEMA)
    try:
        # Through pandas, as the app's sink reads a batch: the same values, the same text.
        rows = query.build(frame).toPandas().to_dict("records")
    except Exception as error:
        if not _batch_refused(error):
            raise
        return _stream_on_its_store(spark, query, records, scratch)
    return [{k: json_value(v) for k, v in row.items()} for row in rows]


def _batch_refused(error: BaseException) -> bool:
    """Spark's refusal of a streaming-only operator in a batch query; or a stateful operator
    that looked for a streaming query's state store coordinator, as transformWithState did in
    a batch query on 4.0 to 4.2 (CANNOT_LOAD_STATE_STORE: `Cannot find endpoint:
    spark://StateStoreCoordinator`, run 29 Nov 2026)."""
    text = str(error)
    return "StateStoreCoordinator" in text or (
        "batch" in text.lower()
        and (
            "is unsupported in batch" in text
            or "not supported with batch" in text
            or "supported only" in text
            or "streaming" in text.lower()
        )
    )


# Spark's refusals of transformWithState on the HDFS state store (4.1 on, and 4.0's words).
_NEEDS_ROCKSDB = ("STORE_BACKEND_NOT_SUPPORTED_FOR_TWS", "STATE_STORE_MULTIPLE_COLUMN_FAMILIES")
_PROVIDER = "spark.sql.streaming.stateStore.providerClass"
_ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"


def _stream_on_its_store(
    spark: Any, query: UserQuery, records: Sequence[SentRecord], scratch: Path
) -> list[dict[str, Any]]:
    """The query as one stream on Spark's default state store; a transformWithState query,
    which Spark runs on RocksDB only, again on RocksDB (the result is the same on either)."""
    try:
        return _as_stream(spark, query, records, scratch / "hdfs")
    except Exception as error:
        if not any(refusal in str(error) for refusal in _NEEDS_ROCKSDB):
            raise
    spark.conf.set(_PROVIDER, _ROCKSDB)
    return _as_stream(spark, query, records, scratch / "rocksdb")


def _as_stream(
    spark: Any, query: UserQuery, records: Sequence[SentRecord], scratch: Path
) -> list[dict[str, Any]]:
    """The query over a stream of every record, read with Trigger.AvailableNow."""
    folder = scratch / "records"
    folder.mkdir(parents=True, exist_ok=True)
    _write_records(folder / "records.json", records)
    stream = (
        spark.readStream.schema(_FILE_SCHEMA)
        .json(str(folder))
        .selectExpr(
            "unbase64(key) AS key",
            "unbase64(value) AS value",
            "topic",
            "partition",
            "offset",
            "timestamp",
            "timestampType",
        )
    )
    result = query.build(stream)
    batches: list[dict[str, Any]] = []

    def collect(batch: Any, batch_id: int) -> None:
        for row in batch.toPandas().to_dict("records"):
            batches.append({**{k: json_value(v) for k, v in row.items()}, BATCH_COLUMN: batch_id})

    running = (
        result.writeStream.outputMode(query.OUTPUT_MODE)
        .foreachBatch(collect)
        .option("checkpointLocation", str(scratch / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    running.awaitTermination()
    return _as_the_sink_reads(batches, query)


def _as_the_sink_reads(batches: list[dict[str, Any]], query: UserQuery) -> list[dict[str, Any]]:
    """The result per mode, as the checker reads the sink: the last row per KEY (update), the
    last batch (complete), every row (append)."""

    def bare(row: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in row.items() if k != BATCH_COLUMN}

    if query.OUTPUT_MODE == "append":
        return [bare(r) for r in batches]
    if query.OUTPUT_MODE == "complete":
        last = max((r[BATCH_COLUMN] for r in batches), default=None)
        return [bare(r) for r in batches if r[BATCH_COLUMN] == last]
    final: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in batches:
        final[tuple(repr(row.get(c)) for c in query.KEY)] = bare(row)
    return list(final.values())


_FILE_SCHEMA = (
    "key string, value string, topic string, partition int, offset bigint, "
    "timestamp timestamp, timestampType int"
)


def _write_records(path: Path, records: Sequence[SentRecord]) -> None:
    """The records as JSON, key and value in base64 (bytes as the Kafka source gives them)."""
    import json
    from datetime import datetime, timezone

    def b64(text: str | None) -> str | None:
        return None if text is None else base64.b64encode(text.encode()).decode()

    with path.open("w", encoding="utf-8") as out:
        for r in records:
            stamp = datetime.fromtimestamp(r.timestamp_ms / 1000, tz=timezone.utc)
            out.write(
                json.dumps(
                    {
                        "key": b64(r.key),
                        "value": b64(r.value),
                        "topic": r.topic,
                        "partition": r.partition,
                        "offset": r.offset,
                        "timestamp": stamp.isoformat(),
                        "timestampType": 0,
                    }
                )
                + "\n"
            )


def write_expected(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rows_text(rows), encoding="utf-8")
