"""The driver's look-ups in Kafka, as Spark's connector makes them (`KafkaOffsetReaderAdmin`).

Planning a batch needs three facts from Kafka: which partitions the subscription covers now,
and each one's earliest and latest offset. The connector retries every look-up
(`fetchOffset.numRetries`, default 3, `fetchOffset.retryIntervalMs` apart, each with a new
client), so a broker that restarts between two batches is ridden out instead of failing the
query. When a partition's latest offset is below where the query already is, it asks again
the same number of times (a broker may briefly report a stale latest, KAFKA-7703) and then
accepts the lower value; deciding what that means is planning's job (data_loss.py).

Usage:
    with OffsetReader(options, warn=print) as reader:
        latest = reader.latest(known=start)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TypeVar

from spark_app.errors import KafkaUnreachableError, SourceOptionError
from spark_app.offsets import EARLIEST, LATEST, Offsets, TopicPartition, parse_offsets
from spark_app.source.data_loss import java_set
from spark_app.source.kafka_client import TopicClient
from spark_app.source.options import SourceOptions, Subscription, kafka_client_settings

__all__ = ["OffsetReader", "resolve_starting_offsets", "check_admin_timeouts"]

_T = TypeVar("_T")
# The admin client's default.api.timeout.ms: how long one attempt may wait for Kafka.
_ATTEMPT_TIMEOUT_MS = 60_000


# Kafka's admin client defaults (kafka-clients 3.9, AdminClientConfig).
_ADMIN_REQUEST_TIMEOUT_MS = 30_000


def check_admin_timeouts(kafka_params: Mapping[str, str]) -> None:
    """KafkaAdminClient.configureDefaultApiTimeoutMs: the connector's admin client refuses a
    default.api.timeout.ms below request.timeout.ms when the query starts, and so do we, in
    the same words (kafka.default.api.timeout.ms=2000 alone is refused: the default is 30 s)."""
    api = int(kafka_params.get("default.api.timeout.ms", _ATTEMPT_TIMEOUT_MS))
    request = int(kafka_params.get("request.timeout.ms", _ADMIN_REQUEST_TIMEOUT_MS))
    if api < request:
        raise KafkaAdminConfigError(
            "Failed to create new KafkaAdminClient; Caused by: "
            "org.apache.kafka.common.config.ConfigException: The specified value of "
            "default.api.timeout.ms must be no smaller than the value of request.timeout.ms."
        )


class KafkaAdminConfigError(RuntimeError):
    """org.apache.kafka.common.KafkaException from the admin client's constructor."""


class OffsetReader:
    """Subscription, earliest and latest offsets, each look-up retried as the connector does."""

    def __init__(
        self,
        options: SourceOptions,
        warn: Callable[[str], None],
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.options = options
        self._warn = warn
        self._sleep = sleep
        self._client: TopicClient | None = None
        timeout = options.kafka_params.get("default.api.timeout.ms", str(_ATTEMPT_TIMEOUT_MS))
        self._timeout_sec = int(timeout) / 1000

    def __enter__(self) -> OffsetReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.stop()

    def _kafka(self) -> TopicClient:
        if self._client is None:
            check_admin_timeouts(self.options.kafka_params)
            self._client = TopicClient(
                self.options.bootstrap_servers,
                self._timeout_sec,
                kafka_client_settings(self.options.kafka_params),
            ).start()
        return self._client

    def _with_retries(self, look_up: Callable[[TopicClient], _T]) -> _T:
        """KafkaOffsetReaderAdmin.withRetries: a new client for each attempt after a failure."""
        attempts = max(1, self.options.fetch_offset_num_retries)
        for attempt in range(1, attempts + 1):
            try:
                return look_up(self._kafka())
            except KafkaUnreachableError as err:
                self._warn(f"Error in attempt {attempt} getting Kafka offsets: {err}")
                self.close()
                if attempt == attempts:
                    raise
                self._sleep(self.options.fetch_offset_retry_interval_ms / 1000)
        raise AssertionError("unreachable")

    def partitions(self) -> list[TopicPartition]:
        """The partitions the subscription covers now."""
        return self._with_retries(lambda kafka: _assigned(kafka, self.options.subscription))

    def earliest(self, parts: list[TopicPartition] | None = None) -> Offsets:
        return self._with_retries(
            lambda kafka: kafka.earliest_of(
                parts if parts is not None else _assigned(kafka, self.options.subscription)
            )
        )

    def latest(self, known: Mapping[TopicPartition, int] | None = None) -> Offsets:
        """Latest offsets; asked again (numRetries) while some are below `known`."""
        attempts = max(1, self.options.fetch_offset_num_retries)
        for attempt in range(1, attempts + 1):
            latest = self._with_retries(
                lambda kafka: kafka.latest_of(_assigned(kafka, self.options.subscription))
            )
            wrong = [
                (tp, known[tp], latest[tp])
                for tp in sorted(latest)
                if known and tp in known and latest[tp] < known[tp]
            ]
            if not wrong:
                return latest
            listed = ", ".join(f"({tp}, {before}, {now})" for tp, before, now in wrong)
            self._warn(
                f"Found incorrect offsets in some partitions (partition, previous offset, "
                f"fetched offset): {listed}"
            )
            if attempt < attempts:
                self._warn("Retrying to fetch latest offsets because of incorrect offsets")
                self._sleep(self.options.fetch_offset_retry_interval_ms / 1000)
        return latest

    def offsets_for_times(
        self, stamps: Mapping[TopicPartition, int]
    ) -> dict[TopicPartition, int | None]:
        return self._with_retries(lambda kafka: kafka.offsets_for_times(dict(stamps)))


def _assigned(kafka: TopicClient, subscription: Subscription) -> list[TopicPartition]:
    if subscription.kind == "assign":
        return list(subscription.assigned)
    kafka.refresh_metadata()
    if subscription.kind == "subscribe":
        return [tp for topic in subscription.topics for tp in kafka.partitions(topic)]
    return [
        tp
        for topic in sorted(kafka.topics())
        if subscription.matches(topic)
        for tp in kafka.partitions(topic)
    ]


def resolve_starting_offsets(options: SourceOptions, reader: OffsetReader) -> Offsets:
    """Where a new query starts (getKafkaOffsetRangeLimit + the fetch* of the offset reader)."""
    if options.starting_timestamp is not None or options.starting_offsets_by_timestamp:
        return _by_timestamp(options, reader)
    spec = options.starting_offsets.strip()
    if spec.lower() == "earliest":
        return reader.earliest()
    if spec.lower() == "latest":
        return reader.latest()
    wanted = _parse_specific(spec)
    assigned = set(reader.partitions())
    if set(wanted) != assigned:
        raise SourceOptionError(
            f"java.lang.AssertionError: assertion failed: If startingOffsets contains specific "
            f"offsets, you must specify all TopicPartitions. Use -1 for latest, -2 for earliest, "
            f"if you don't care. Specified: {java_set(wanted)} Assigned: {java_set(assigned)}"
        )
    earliest, latest = reader.earliest(sorted(assigned)), reader.latest()
    return {
        tp: earliest[tp] if offset == EARLIEST else latest[tp] if offset == LATEST else offset
        for tp, offset in wanted.items()
    }


def _parse_specific(spec: str) -> Offsets:
    try:
        return parse_offsets(spec)
    except ValueError as err:
        raise SourceOptionError(
            f'java.lang.IllegalArgumentException: Expected e.g. {{"topicA":{{"0":23,"1":-1}},'
            f'"topicB":{{"0":-2}}}}, got {spec} [playground: startingOffsets (--starting-offsets) '
            f"takes earliest, latest, or JSON naming every partition, -2 for earliest and -1 "
            f"for latest]"
        ) from err


def _by_timestamp(options: SourceOptions, reader: OffsetReader) -> Offsets:
    """startingTimestamp (every partition) or startingOffsetsByTimestamp (JSON per partition)."""
    assigned = reader.partitions()
    if options.starting_timestamp is not None:
        stamps = dict.fromkeys(assigned, options.starting_timestamp)
    else:
        stamps = _parse_specific(options.starting_offsets_by_timestamp or "")
    found = reader.offsets_for_times(stamps)
    latest = reader.latest() if options.starting_by_timestamp_strategy == "latest" else {}
    out: Offsets = {}
    for tp, stamp in stamps.items():
        offset = found.get(tp)
        if offset is None and options.starting_by_timestamp_strategy == "error":
            raise SourceOptionError(
                f"java.lang.IllegalArgumentException: No offset matched from "
                f"request of topic-partition {tp} and timestamp {stamp}."
            )
        out[tp] = offset if offset is not None else latest[tp]
    return out
