"""Our Kafka source for Structured Streaming, on PySpark's Python Data Source API.

Spark's own Kafka connector is a jar from a Maven repository, which this playground cannot
reach, so this module plays its part with the same contract: offsets are `{"topic":
{"partition": offset}}` in the checkpoint, every Kafka partition is one input partition, a batch
reads exactly [start, end) so a replay yields the same rows, and `startingOffsets`,
`maxOffsetsPerTrigger` and `failOnDataLoss` mean what they mean there. With the option
`offsetsGroup` it also commits each batch's start offsets to that Kafka consumer group when the
batch is planned (seed 000's offsets kept outside Spark; see group_offsets.py).

Usage:
    spark.dataSource.register(KafkaSource)
    df = (spark.readStream.format("experience-kafka").option("bootstrapServers", "127.0.0.1:9092")
          .option("topic", "Experience").load())
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows
from pyspark.sql.types import StructType

from spark_app.errors import DataLossError, OffsetsSpecError
from spark_app.group_offsets import start_offsets_to_commit
from spark_app.kafka_client import GroupOffsets, OffsetGone, TopicClient
from spark_app.offsets import EARLIEST, LATEST, Offsets, TopicPartition, offsets_to_json, parse_offsets

__all__ = ["KafkaSource", "KafkaStreamReader", "KafkaRange", "SourceOptions", "SOURCE_NAME",
           "SCHEMA", "resolve_starting_offsets", "split_limit"]

SOURCE_NAME = "experience-kafka"
SCHEMA = "topic string, partition int, offset bigint, key string, value string, timestamp_ms bigint"
_ARROW_SCHEMA = pa.schema([("topic", pa.string()), ("partition", pa.int32()),
                           ("offset", pa.int64()), ("key", pa.string()), ("value", pa.string()),
                           ("timestamp_ms", pa.int64())])
_log = logging.getLogger("spark_app.kafka_source")


@dataclass(frozen=True)
class SourceOptions:
    """The source's options, parsed once from Spark's string map."""

    bootstrap_servers: str
    topic: str
    starting_offsets: str = "earliest"
    fail_on_data_loss: bool = True
    max_offsets_per_trigger: int | None = None
    log_file: str | None = None
    offsets_group: str | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> "SourceOptions":
        limit = options.get("maxOffsetsPerTrigger")
        return cls(bootstrap_servers=options.get("bootstrapServers", "127.0.0.1:9092"),
                   topic=options.get("topic", "Experience"),
                   starting_offsets=options.get("startingOffsets", "earliest"),
                   fail_on_data_loss=options.get("failOnDataLoss", "true").lower() != "false",
                   max_offsets_per_trigger=int(limit) if limit else None,
                   log_file=options.get("logFile") or None,
                   offsets_group=options.get("offsetsGroup") or None)


class KafkaRange(InputPartition):
    """One Kafka partition's offsets [start, end) of one batch: one Spark task."""

    def __init__(self, topic: str, partition: int, start: int, end: int, known: bool) -> None:
        super().__init__((topic, partition, start, end))
        self.tp = TopicPartition(topic, partition)
        self.start = start
        self.end = end
        # False for a partition that appeared after the previous batch: its early offsets were
        # never promised to us, so a missing head is not data loss.
        self.known = known


def resolve_starting_offsets(spec: str, topic: str, kafka: TopicClient) -> Offsets:
    """Where a new query starts: earliest, latest, or JSON with -2/-1 as in Spark's option."""
    if spec == "earliest":
        return kafka.earliest(topic)
    if spec == "latest":
        return kafka.latest(topic)
    try:
        wanted = parse_offsets(spec)
    except ValueError as err:
        raise OffsetsSpecError(f"--starting-offsets must be earliest, latest or JSON like "
                               f'{{"{topic}":{{"0":42}}}}: {err}') from err
    earliest, latest = kafka.earliest(topic), kafka.latest(topic)
    resolved: Offsets = {}
    for tp in earliest:
        offset = wanted.get(tp, EARLIEST)
        resolved[tp] = earliest[tp] if offset == EARLIEST else latest[tp] if offset == LATEST else offset
    return resolved


def split_limit(available: Mapping[TopicPartition, int], limit: int) -> dict[TopicPartition, int]:
    """Share at most `limit` offsets between partitions in proportion to what each has waiting."""
    total = sum(available.values())
    if total <= limit:
        return dict(available)
    shares = {tp: available[tp] * limit // total for tp in available}
    # Hand the rounding remainder out in partition order so the split is deterministic.
    remainder = limit - sum(shares.values())
    for tp in sorted(available):
        if remainder <= 0:
            break
        if shares[tp] < available[tp]:
            shares[tp] += 1
            remainder -= 1
    return shares


def _warn(options: SourceOptions, message: str) -> None:
    """A data-loss warning for both spark.log and the console, from whichever process reads."""
    target = str(Path(options.log_file).resolve()) if options.log_file else None
    files = [h for h in _log.handlers if isinstance(h, logging.FileHandler)]
    if target and not any(h.baseFilename == target for h in files):
        for old in files:  # a reused worker now serves another query
            _log.removeHandler(old)
            old.close()
        handler = logging.FileHandler(target, encoding="utf-8")
        handler.setFormatter(logging.Formatter("[%(levelname)s] [%(asctime)s] [%(name)s]: %(message)s"))
        _log.addHandler(handler)
        _log.setLevel(logging.INFO)
    _log.warning(message)
    print(f"WARNING: {message}", file=sys.stderr, flush=True)


class KafkaStreamReader(DataSourceStreamReader):
    """Plans batches on the driver side (offsets) and reads them in tasks (records)."""

    def __init__(self, options: SourceOptions) -> None:
        self.options = options
        self._kafka: TopicClient | None = None
        self._group: GroupOffsets | None = None
        self._latest: Offsets | None = None

    def __getstate__(self) -> dict[str, object]:
        # Tasks receive a pickled copy of this reader; a live consumer must not travel with it.
        return {"options": self.options, "_kafka": None, "_group": None, "_latest": None}

    def _client(self) -> TopicClient:
        if self._kafka is None:
            self._kafka = TopicClient(self.options.bootstrap_servers).start()
        return self._kafka

    def initialOffset(self) -> dict:
        offsets = resolve_starting_offsets(self.options.starting_offsets, self.options.topic,
                                           self._client())
        return offsets_to_json(offsets)

    def getDefaultReadLimit(self) -> ReadLimit:
        limit = self.options.max_offsets_per_trigger
        return ReadMaxRows(limit) if limit else ReadAllAvailable()

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        begin = parse_offsets(start)
        kafka, topic = self._client(), self.options.topic
        latest, earliest = kafka.latest(topic), kafka.earliest(topic)
        self._latest = latest
        available: dict[TopicPartition, int] = {}
        for tp, last in latest.items():
            first = begin.get(tp, earliest[tp])
            if first < earliest[tp] and tp in begin and self.options.fail_on_data_loss:
                raise DataLossError.for_range(tp.topic, tp.partition, first, earliest[tp], earliest[tp])
            if last < first and self.options.fail_on_data_loss:
                raise DataLossError(
                    f"the latest offset {last} of {tp} is below the offset {first} the query "
                    f"has already read (was the topic deleted and recreated?). Restart with "
                    f"--fail-on-data-loss false to wait for new data, or delete the checkpoint.")
            available[tp] = max(0, last - max(first, earliest[tp]))
        if isinstance(limit, ReadMaxRows):
            available = split_limit(available, limit.max_rows)
        end = dict(begin)
        for tp in latest:
            first = begin.get(tp, earliest[tp])
            # Never rewind: a partition whose offsets went backwards stays where it was.
            end[tp] = max(first, earliest[tp]) + available[tp] if available[tp] else first
        return offsets_to_json(end)

    def reportLatestOffset(self) -> dict | None:
        return offsets_to_json(self._latest) if self._latest is not None else None

    def partitions(self, start: dict, end: dict) -> list[KafkaRange]:
        begin, finish = parse_offsets(start), parse_offsets(end)
        if self.options.offsets_group:
            # Spark plans a batch's input partitions after writing offsets/N and before running
            # it: the moment seed 000 stores the batch's start ("fromOffset") outside Spark.
            self._group_client().commit(start_offsets_to_commit(begin, finish))
        return [KafkaRange(tp.topic, tp.partition, begin.get(tp, 0), finish[tp], tp in begin)
                for tp in sorted(finish) if finish[tp] > begin.get(tp, 0)]

    def read(self, partition: KafkaRange) -> Iterator[pa.RecordBatch]:
        start, end, tp = partition.start, partition.end, partition.tp
        kafka = _task_client(self.options.bootstrap_servers)
        try:
            start = self._first_readable(kafka, partition, start)
            while start < end:
                try:
                    for chunk in kafka.fetch_range(tp, start, end):
                        yield _record_batch(tp, chunk)
                        start = chunk[-1][0] + 1
                    return
                except OffsetGone as gone:
                    # Retention deleted the segment while we were reading it.
                    start = self._first_readable(kafka, partition, gone.offset)
        except BaseException:
            _drop_task_client(self.options.bootstrap_servers)
            raise

    def _first_readable(self, kafka: TopicClient, partition: KafkaRange, start: int) -> int:
        """`start`, or Kafka's earliest offset when the head of the range is gone (if allowed)."""
        earliest = kafka.earliest(partition.tp.topic).get(partition.tp, start)
        if start >= earliest:
            return start
        lost_end = min(earliest, partition.end)
        if partition.known and self.options.fail_on_data_loss:
            raise DataLossError.for_range(partition.tp.topic, partition.tp.partition, start,
                                          lost_end, earliest)
        if partition.known:
            _warn(self.options, f"data loss: offsets [{start}, {lost_end}) of {partition.tp} are "
                                f"no longer in Kafka (earliest is {earliest}); skipping "
                                f"{lost_end - start} messages because failOnDataLoss is false")
        return lost_end

    def _group_client(self) -> GroupOffsets:
        if self._group is None:
            assert self.options.offsets_group is not None
            self._group = GroupOffsets(self.options.bootstrap_servers,
                                       self.options.offsets_group).start()
        return self._group

    def commit(self, end: dict) -> None:
        # Progress lives in the checkpoint, as with Spark's Kafka source. With offsetsGroup the
        # group gets this offset in partitions(), as the start of the next batch with data.
        return None

    def stop(self) -> None:
        kafka, self._kafka = self._kafka, None
        if kafka is not None:
            kafka.stop()
        group, self._group = self._group, None
        if group is not None:
            group.stop()


# Spark reuses its Python workers between tasks; keeping one connected client per worker saves
# the connection set-up (bootstrap, versions, metadata) on every batch of a 1-second trigger.
_TASK_CLIENTS: dict[str, TopicClient] = {}


def _task_client(bootstrap_servers: str) -> TopicClient:
    client = _TASK_CLIENTS.get(bootstrap_servers)
    if client is None:
        client = _TASK_CLIENTS[bootstrap_servers] = TopicClient(bootstrap_servers).start()
    return client


def _drop_task_client(bootstrap_servers: str) -> None:
    client = _TASK_CLIENTS.pop(bootstrap_servers, None)
    if client is not None:
        client.stop()


def _text(raw: bytes | None) -> str | None:
    return raw.decode("utf-8", errors="replace") if raw is not None else None


def _texts(raw: tuple[bytes | None, ...]) -> pa.Array:
    """Kafka's bytes as strings: one Arrow cast when all are valid UTF-8 (keys and values here
    always are), else decoded one by one with U+FFFD in place of the invalid bytes."""
    try:
        return pa.array(raw, pa.binary()).cast(pa.string())
    except pa.ArrowInvalid:
        return pa.array([_text(r) for r in raw], pa.string())


def _record_batch(tp: TopicPartition, chunk: list[tuple[int, bytes | None, bytes | None, int]]
                  ) -> pa.RecordBatch:
    offsets, keys, values, stamps = zip(*chunk)
    n = len(chunk)
    return pa.RecordBatch.from_arrays(
        [pa.repeat(pa.scalar(tp.topic, pa.string()), n),
         pa.repeat(pa.scalar(tp.partition, pa.int32()), n),
         pa.array(offsets, pa.int64()), _texts(keys), _texts(values), pa.array(stamps, pa.int64())],
        schema=_ARROW_SCHEMA)


class KafkaSource(DataSource):
    """`spark.readStream.format("experience-kafka")`: a Kafka topic as a stream of records."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> str:
        return SCHEMA

    def streamReader(self, schema: StructType) -> KafkaStreamReader:
        return KafkaStreamReader(SourceOptions.from_options(self.options))

