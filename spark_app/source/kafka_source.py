"""Our Kafka source for Structured Streaming, on PySpark's Python Data Source API.

Spark's own Kafka connector is a jar from a Maven repository, which this playground cannot
reach, so this module plays its part, and plays it the same way: the same options
(source_options.py), the same rows (binary `key` and `value`, `timestamp`, ...), the same
`sources/0/0` in the checkpoint (initial_offsets.py), the same rate limits (rate_limit.py), and
data loss found at the same moments with the same condition names and ranges (data_loss.py):
partitions added, deleted or gone backwards while a batch is planned (after `offsets/N` is
written), offsets deleted by retention while a task reads. A query changes between the two by
the format name alone: `format("experience-kafka")` here, `format("kafka")` in production.

Two things the connector does not do and ours does, both under option names it ignores:
`checkpointLocation` (Spark never tells a Python source where its checkpoint is, and
`sources/0/0` lives there) and `offsetsGroup` (commit each batch's start offsets to a Kafka
consumer group, seed 000's offsets kept outside Spark; see query/group_offsets.py).

Usage:
    spark.dataSource.register(KafkaSource)
    df = (spark.readStream.format("experience-kafka")
          .option("kafka.bootstrap.servers", "127.0.0.1:9092").option("subscribe", "Experience")
          .option("startingOffsets", "earliest").load()
          .selectExpr("CAST(value AS STRING)"))
"""

from __future__ import annotations

import json
import logging
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.types import StructType

from spark_app.errors import SourceOptionError
from spark_app.lines.data_loss_lines import skipped_text
from spark_app.offsets import (
    Offsets,
    TopicPartition,
    offsets_to_json,
    offsets_to_text,
    parse_offsets,
)
from spark_app.runtime.log_file import log_to
from spark_app.runtime.spark_version import installed_spark_version
from spark_app.source.data_loss import (
    FAIL_ON_DATA_LOSS_FALSE_TEXT,
    DataLossReporter,
    could_not_read,
)
from spark_app.source.initial_offsets import InitialOffsetsFile
from spark_app.source.kafka_client import GroupOffsets, OffsetGone, TopicClient
from spark_app.source.offset_ranges import OffsetRange, split_ranges, start_offsets_to_commit
from spark_app.source.offset_reader import OffsetReader, resolve_starting_offsets
from spark_app.source.options import SourceOptions, kafka_client_settings
from spark_app.source.rate_limit import TriggerDelay, rate_limit
from spark_app.source.rows import HEADERS_COLUMN, columns, record_batch, schema_text

try:  # Admission control (ReadLimit) and Trigger.AvailableNow for Python sources: PySpark 4.2.
    from pyspark.sql.streaming.datasource import (
        ReadAllAvailable,
        ReadLimit,
        ReadMaxRows,
        ReadMinRows,
        SupportsTriggerAvailableNow,
    )
except ModuleNotFoundError:  # PySpark 4.0 and 4.1: Spark runs AvailableNow as one batch
    ReadAllAvailable = ReadLimit = ReadMaxRows = ReadMinRows = None  # type: ignore[assignment,misc]

    class SupportsTriggerAvailableNow:  # type: ignore[no-redef]
        """Absent before PySpark 4.2; a reader without it gets Spark's one-batch fallback."""


__all__ = [
    "KafkaSource",
    "KafkaStreamReader",
    "KafkaRange",
    "SOURCE_NAME",
    "SCHEMA",
    "HEADERS_FIELD",
    "ADMISSION_CONTROL",
    "executor_group_id",
]

SOURCE_NAME = "experience-kafka"
ADMISSION_CONTROL = ReadLimit is not None
# The connector's schema as the source declares it; rows.py holds the one column table.
SCHEMA = schema_text(include_headers=False)
HEADERS_FIELD = HEADERS_COLUMN.ddl()
_log = logging.getLogger("spark_app.source.kafka_source")


def executor_group_id(options: SourceOptions) -> str:
    """The executors' consumer group as the connector names it (`streamingUniqueGroupId`):
    `<groupIdPrefix>-<random UUID>-<hash of the source's metadata path>-executor`. Nothing is
    ever committed to it; it appears in COULD_NOT_READ_OFFSET_RANGE's message."""
    if options.group_id:
        return options.group_id
    where = f"file:{Path(options.checkpoint_location or '.').resolve()}/sources/0"
    return f"{options.group_id_prefix}-{uuid.uuid4()}-{_java_hash(where)}-executor"


def _java_hash(text: str) -> int:
    """Java's String.hashCode, a signed 32-bit int."""
    data, h = text.encode("utf-16-be"), 0
    for i in range(0, len(data), 2):  # Java strings are UTF-16 code units
        h = (31 * h + int.from_bytes(data[i : i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


class KafkaRange(InputPartition):
    """Offsets [start, end) of one Kafka partition in one batch: one Spark task."""

    def __init__(self, topic: str, partition: int, start: int, end: int) -> None:
        super().__init__((topic, partition, start, end))
        self.tp = TopicPartition(topic, partition)
        self.start = start
        self.end = end


def _log_to(options: SourceOptions) -> None:
    """Warnings from whichever Spark process runs us go to spark.log, beside Spark's own."""
    if options.log_file:
        log_to(_log, Path(options.log_file))


def _warn(options: SourceOptions, message: str) -> None:
    _log_to(options)
    _log.warning(message)
    print(f"WARN KafkaSource: {message}", file=sys.stderr, flush=True)


def _info(options: SourceOptions, message: str) -> None:
    _log_to(options)
    _log.info(message)


def _compact_offsets_json() -> None:
    """Make offsets/N's source line compact JSON, `{"Experience":{"0":42}}`, as the connector's.

    Spark writes the offsets a Python source returns as PySpark's streaming source runner
    serialises them, `json.dumps(offset)` with the default separators, which puts spaces after
    `:` and `,`. That call uses json's module-level default encoder; this runs in the process
    that plans the batches (the runner calls streamReader), so swapping that encoder there
    makes every offset it hands Spark compact. Reading is unaffected: JSON is JSON.
    """
    if json._default_encoder.item_separator != ",":  # type: ignore[attr-defined]
        json._default_encoder = json.JSONEncoder(separators=(",", ":"))  # type: ignore[attr-defined]


class KafkaStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Plans batches on the driver (offsets, data loss at planning) and reads them in tasks.

    Trigger.AvailableNow as the connector runs it (KafkaMicroBatchStream): the latest offsets
    when the query starts are the target, and every batch is planned toward them under the
    rate limits, so a backfill is many bounded batches. Without the mixin Spark falls back to
    one batch of everything, whatever maxOffsetsPerTrigger says (seen on PySpark 4.2.0: "does
    not support Trigger.AvailableNow. Falling back to single batch execution").
    """

    def __init__(self, options: SourceOptions) -> None:
        self.options = options
        self.group_id = executor_group_id(options)
        self._reader: OffsetReader | None = None
        self._group: GroupOffsets | None = None
        self._latest: Offsets | None = None
        self._target: Offsets | None = None  # Trigger.AvailableNow's end, fixed at the start
        low = options.min_offsets_per_trigger
        self._delay = TriggerDelay(low, options.max_trigger_delay_ms) if low is not None else None

    # The driver's live clients and planning state: a task's copy starts without them.
    _DRIVER_ONLY = ("_reader", "_group", "_latest", "_delay", "_target")

    def __getstate__(self) -> dict[str, object]:
        # Tasks receive a pickled copy of this reader. Everything travels but the driver-only
        # attributes, so an attribute added later reaches the tasks without being listed here.
        return {**self.__dict__, **dict.fromkeys(self._DRIVER_ONLY)}

    def _offsets(self) -> OffsetReader:
        if self._reader is None:
            self._reader = OffsetReader(self.options, lambda text: _warn(self.options, text))
        return self._reader

    def initialOffset(self) -> dict:
        """getOrCreateInitialPartitionOffsets: sources/0/0 if it exists, else resolve and write."""
        resolve = lambda: resolve_starting_offsets(self.options, self._offsets())  # noqa: E731
        if self.options.checkpoint_location is None:
            _warn(
                self.options,
                "no checkpointLocation option: the initial offsets are not kept "
                "in sources/0/0, so a replay of batch 0 resolves startingOffsets "
                "again (Spark's connector would read them from the checkpoint)",
            )
            return offsets_to_json(resolve())
        offsets, created = InitialOffsetsFile(Path(self.options.checkpoint_location)).get_or_create(
            resolve
        )
        if created:
            _info(self.options, f"Initial offsets: {offsets_to_text(offsets)}")
        return offsets_to_json(offsets)

    def prepareForTriggerAvailableNow(self) -> None:
        """The connector's allDataForTriggerAvailableNow: the latest offsets now, no later."""
        self._target = self._offsets().latest(parse_offsets(self.initialOffset()))
        _info(self.options, f"Trigger.AvailableNow: reading up to {offsets_to_text(self._target)}")

    def getDefaultReadLimit(self) -> ReadLimit:
        """KafkaMicroBatchStream.getDefaultReadLimit, as far as Python's ReadLimit goes: the
        minimum and the delay are applied in latestOffset (there is no composite limit)."""
        if self.options.max_offsets_per_trigger is not None:
            return ReadMaxRows(self.options.max_offsets_per_trigger)
        if self.options.min_offsets_per_trigger is not None:
            return ReadMinRows(self.options.min_offsets_per_trigger)
        return ReadAllAvailable()

    def latestOffset(self, start: dict | None = None, limit: ReadLimit | None = None) -> dict:
        """The end of the next batch. PySpark 4.0/4.1 call it without arguments (read all)."""
        known = parse_offsets(start) if start is not None else None
        latest = self._target if self._target is not None else self._offsets().latest(known)
        self._latest = latest
        if known is None or limit is None or isinstance(limit, ReadAllAvailable):
            return offsets_to_json(latest)
        if self._delay is not None and self._delay.should_wait(known, latest):
            return offsets_to_json(known)
        if isinstance(limit, ReadMaxRows):
            new = sorted(set(latest) - set(known))
            earliest_of_new = self._offsets().earliest(new) if new else {}
            return offsets_to_json(rate_limit(limit.max_rows, known, latest, earliest_of_new))
        return offsets_to_json(latest)

    def reportLatestOffset(self) -> dict | None:
        return offsets_to_json(self._latest) if self._latest is not None else None

    def partitions(self, start: dict, end: dict) -> list[KafkaRange]:
        """Plan the batch's tasks (runs after Spark wrote offsets/N), checking for data loss as
        KafkaOffsetReaderAdmin.getOffsetRangesFromResolvedOffsets does, in its order."""
        begin, until = parse_offsets(start), parse_offsets(end)
        report = DataLossReporter(
            self.options.fail_on_data_loss, lambda text: _warn(self.options, text)
        )
        added = set(until) - set(begin)
        first_of_added = self._offsets().earliest(sorted(added)) if added else {}
        if set(first_of_added) != added:
            report.initial_offset_not_found(added - set(first_of_added))
        if added:
            _info(self.options, f"Partitions added: {offsets_to_text(first_of_added)}")
        for tp in sorted(first_of_added):
            if first_of_added[tp] != 0:
                report.added_partition_not_from_zero(tp, first_of_added[tp])
        if set(begin) - set(until):
            report.partitions_deleted(set(begin) - set(until))
        ranges = []
        for tp in sorted(tp for tp in until if tp in begin or tp in first_of_added):
            first = begin.get(tp, first_of_added.get(tp, 0))
            if until[tp] < first:
                report.partition_offset_changed(tp, first, until[tp])
            ranges.append(OffsetRange(tp, first, until[tp]))
        if self.options.offsets_group:
            # The moment seed 000 stores the batch's start ("fromOffset") outside Spark.
            self._group_client().commit(start_offsets_to_commit({**first_of_added, **begin}, until))
        tasks = split_ranges(
            ranges, self.options.min_partitions, self.options.max_records_per_partition
        )
        return [KafkaRange(r.tp.topic, r.tp.partition, r.start, r.end) for r in tasks]

    def read(self, partition: KafkaRange) -> Iterator[pa.RecordBatch]:
        """Exactly the records of [start, end); a deleted head is data loss (KafkaDataConsumer)."""
        kafka = _task_client(self.options)
        position, end = partition.start, partition.end
        try:
            while position < end:
                try:
                    for chunk in kafka.fetch_range(
                        partition.tp, position, end, self.options.poll_timeout_ms
                    ):
                        yield record_batch(partition.tp, chunk, self.options.include_headers)
                        position = chunk[-1].offset + 1
                    return
                except OffsetGone as gone:
                    position = self._after_offset_gone(kafka, partition, gone.offset)
        except BaseException:
            _drop_task_client(self.options)
            raise

    def _after_offset_gone(self, kafka: TopicClient, partition: KafkaRange, offset: int) -> int:
        """Where reading goes on after `offset` turned out deleted, or the condition to raise
        (KafkaDataConsumer.get and getEarliestAvailableOffsetBetween)."""
        tp, end = partition.tp, partition.end
        earliest, latest = kafka.earliest_of([tp])[tp], kafka.latest_of([tp])[tp]
        if self.options.fail_on_data_loss:
            raise could_not_read(tp, offset, end, self.group_id, earliest, latest)
        where = f"(GroupId: {self.group_id}, TopicPartition: {tp})"
        # No space before the parenthesis: the connector's own line (4.2.0) reads so.
        _warn(self.options, f"Cannot fetch offset {offset}{where}. {FAIL_ON_DATA_LOSS_FALSE_TEXT}")
        _warn(
            self.options, f"Some data may be lost. Recovering from the earliest offset: {earliest}"
        )
        if offset >= latest or earliest >= end:
            skipped_to = end
        elif offset >= earliest:
            _warn(
                self.options, f"Found a disappeared offset {offset}. Some data may be lost {where}"
            )
            return offset
        else:
            skipped_to = earliest
        _warn(
            self.options,
            f"The current available offset range is AvailableOffsetRange("
            f"{earliest},{latest}). Offset {offset} is out of range, and "
            f"{skipped_text(offset, skipped_to)} {where}. "
            f"{FAIL_ON_DATA_LOSS_FALSE_TEXT}",
        )
        return skipped_to

    def _group_client(self) -> GroupOffsets:
        if self._group is None:
            assert self.options.offsets_group is not None
            self._group = GroupOffsets(
                self.options.bootstrap_servers, self.options.offsets_group
            ).start()
        return self._group

    def commit(self, end: dict) -> None:
        # Progress lives in the checkpoint, as with Spark's Kafka source. With offsetsGroup the
        # group gets this offset in partitions(), as the start of the next batch with data.
        return None

    def stop(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()
        group, self._group = self._group, None
        if group is not None:
            group.stop()


# Spark reuses its Python workers between tasks; keeping one connected client per worker saves
# the connection set-up (bootstrap, versions, metadata) on every batch of a 1-second trigger,
# as the connector caches its executors' consumers. Queries with other settings in the same
# worker get clients of their own: the key is everything a client is built from.
@dataclass(frozen=True)
class _ClientSpec:
    """What a task's TopicClient is built from, and the key of the worker's client cache."""

    bootstrap_servers: str
    timeout_sec: float
    settings: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, options: SourceOptions) -> _ClientSpec:
        # A task waits for Kafka as long as the connector's executors do (pollTimeoutMs).
        settings = kafka_client_settings(options.kafka_params)
        return cls(
            options.bootstrap_servers,
            options.poll_timeout_ms / 1000,
            tuple(sorted(settings.items())),
        )

    def connect(self) -> TopicClient:
        return TopicClient(self.bootstrap_servers, self.timeout_sec, dict(self.settings)).start()


_TASK_CLIENTS: dict[_ClientSpec, TopicClient] = {}


def _task_client(options: SourceOptions) -> TopicClient:
    """The worker's client for these options, connected on first use."""
    spec = _ClientSpec.of(options)
    client = _TASK_CLIENTS.get(spec)
    if client is None:
        client = _TASK_CLIENTS[spec] = spec.connect()
    return client


def _drop_task_client(options: SourceOptions) -> None:
    client = _TASK_CLIENTS.pop(_ClientSpec.of(options), None)
    if client is not None:
        client.stop()


def _check_version_allows(options: SourceOptions) -> None:
    if ADMISSION_CONTROL:
        return
    wanted = {
        "maxOffsetsPerTrigger": options.max_offsets_per_trigger,
        "minOffsetsPerTrigger": options.min_offsets_per_trigger,
    }
    for name, value in wanted.items():
        if value is not None:
            raise SourceOptionError(
                f"{name} needs PySpark 4.2 or later (admission control for "
                f"Python streaming sources); this is PySpark "
                f"{installed_spark_version()}. Leave it out, or upgrade."
            )


class KafkaSource(DataSource):
    """`spark.readStream.format("experience-kafka")`: Kafka topics as a stream of records."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def _options(self) -> SourceOptions:
        options = SourceOptions.parse(self.options)
        _check_version_allows(options)
        return options

    def schema(self) -> str:
        # Spark calls this at load(): the moment the connector validates its options.
        return schema_text(self._options().include_headers)

    def streamReader(self, schema: StructType) -> KafkaStreamReader:
        options = self._options()
        fixed = tuple(c.name for c in columns(options.include_headers))
        if tuple(f.name for f in schema.fields) != fixed:
            raise SourceOptionError(
                "java.lang.IllegalArgumentException: Kafka source has a fixed "
                "schema and cannot be set with a custom one"
            )
        _compact_offsets_json()
        return KafkaStreamReader(options)
