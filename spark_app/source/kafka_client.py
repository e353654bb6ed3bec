"""The app's only contact with Kafka: offsets of a topic's partitions and exact range fetches.

The source plans batches on the driver side with `earliest`/`latest`, and its tasks read each
batch with `fetch_range`, which returns exactly the records in [start, end) of one partition,
so a replay of the same range yields the same rows. Failures become our typed errors here.

Usage:
    with TopicClient("127.0.0.1:9092") as kafka:
        latest = kafka.latest("Experience")
        for record in kafka.fetch_range(TopicPartition("Experience", 0), 0, 10): ...
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any, NamedTuple, TypeVar

from kafka import KafkaConsumer
from kafka import TopicPartition as KafkaTopicPartition
from kafka.errors import KafkaConnectionError, KafkaError, KafkaTimeoutError, OffsetOutOfRangeError
from kafka.structs import OffsetAndMetadata

from spark_app.errors import GroupOffsetsError, KafkaUnreachableError
from spark_app.offsets import Offsets, TopicPartition

__all__ = ["TopicClient", "Record", "OffsetGone", "GroupOffsets"]

# A fetch that makes no progress for this long means the broker went away mid-batch.
_STALL_SEC = 30.0
_CLIENT_ID = "spark_app"


class Record(NamedTuple):
    """One Kafka record as the source turns it into a row."""

    offset: int
    key: bytes | None
    value: bytes | None
    timestamp_ms: int
    timestamp_type: int  # Kafka's ids: -1 none, 0 CreateTime, 1 LogAppendTime
    headers: tuple[tuple[str, bytes | None], ...]


class OffsetGone(Exception):
    """Raised by `fetch_range` when Kafka says the next offset to read is below its log start."""

    def __init__(self, tp: TopicPartition, offset: int) -> None:
        super().__init__(f"offset {offset} of {tp} is out of range")
        self.tp = tp
        self.offset = offset


_Holder = TypeVar("_Holder", bound="_ConsumerHolder")


class _ConsumerHolder:
    """Opens one kafka-python consumer on first use and closes it on `stop` or leaving `with`."""

    def __init__(self, bootstrap_servers: str, timeout_sec: float) -> None:
        self.bootstrap_servers = bootstrap_servers
        self._timeout_ms = int(timeout_sec * 1000)
        self._consumer: KafkaConsumer | None = None

    def __enter__(self: _Holder) -> _Holder:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _consumer_settings(self) -> dict[str, object]:
        raise NotImplementedError

    @contextmanager
    def _kafka_errors(
        self, refused: Callable[[KafkaError], Exception] | None = None
    ) -> Iterator[None]:
        """The one translation of kafka-python's failures into our typed errors.

        Inside `with self._kafka_errors():` a KafkaError (or a socket's OSError) becomes
        KafkaUnreachableError naming the servers; with `refused`, an error that is Kafka's
        answer rather than its silence becomes `refused(err)` instead.
        """
        try:
            yield
        except (KafkaError, OSError) as err:
            if (
                refused is not None
                and isinstance(err, KafkaError)
                and not isinstance(err, (KafkaConnectionError, KafkaTimeoutError))
            ):
                raise refused(err) from err
            raise KafkaUnreachableError.at(self.bootstrap_servers, type(err).__name__) from err

    def start(self: _Holder) -> _Holder:
        if self._consumer is None:
            with self._kafka_errors():
                self._consumer = KafkaConsumer(
                    bootstrap_servers=self.bootstrap_servers,
                    client_id=_CLIENT_ID,
                    enable_auto_commit=False,
                    bootstrap_timeout_ms=self._timeout_ms,
                    **self._consumer_settings(),
                )
        return self

    def stop(self) -> None:
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            consumer.close(autocommit=False)

    @property
    def consumer(self) -> KafkaConsumer:
        return self.start()._consumer  # type: ignore[return-value]


class TopicClient(_ConsumerHolder):
    """A kafka-python consumer used only for manual assignment, never a consumer group.

    `settings` are extra kafka-python settings (the source's `kafka.*` options), applied last.
    """

    def __init__(
        self,
        bootstrap_servers: str,
        timeout_sec: float = 10.0,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(bootstrap_servers, timeout_sec)
        self._settings = dict(settings or {})

    def _consumer_settings(self) -> dict[str, object]:
        return (
            dict(
                group_id=None,
                # 'none': an offset below the log start must surface, not be silently reset.
                auto_offset_reset="none",
                request_timeout_ms=max(self._timeout_ms, 5000) + 1000,
                max_partition_fetch_bytes=8 * 1024 * 1024,
                fetch_max_wait_ms=100,
                max_poll_records=50_000,
            )
            | self._settings
        )

    def refresh_metadata(self) -> None:
        """Ask Kafka for the topics' partitions now, as the connector's admin client does on
        every look-up: kafka-python otherwise serves them from a cache up to 5 minutes old, and
        partitions added meanwhile would go unseen. Bounded by the client's timeout."""
        consumer = self.consumer
        with self._kafka_errors():
            future = consumer._cluster.request_update()
            consumer._net.run(consumer._manager.wait_for, future, self._timeout_ms)

    def topics(self) -> set[str]:
        """Every topic's name (for subscribePattern)."""
        with self._kafka_errors():
            return set(self.consumer.topics())

    def partitions(self, topic: str) -> list[TopicPartition]:
        """The topic's partitions; empty while the topic does not exist yet."""
        with self._kafka_errors():
            ids = self.consumer.partitions_for_topic(topic)
        return [TopicPartition(topic, p) for p in sorted(ids or ())]

    def earliest(self, topic: str) -> Offsets:
        """Each partition's log start offset: anything below it has been deleted."""
        return self._offsets(topic, latest=False)

    def latest(self, topic: str) -> Offsets:
        """Each partition's end offset (the offset the next message will get)."""
        return self._offsets(topic, latest=True)

    def earliest_of(self, parts: Iterable[TopicPartition]) -> Offsets:
        return self._offsets_of(parts, latest=False)

    def latest_of(self, parts: Iterable[TopicPartition]) -> Offsets:
        return self._offsets_of(parts, latest=True)

    def offsets_for_times(
        self, stamps: Mapping[TopicPartition, int]
    ) -> dict[TopicPartition, int | None]:
        """The first offset at or after each timestamp (ms); None where there is none."""
        wanted = {KafkaTopicPartition(tp.topic, tp.partition): ts for tp, ts in stamps.items()}
        with self._kafka_errors():
            found = self.consumer.offsets_for_times(wanted)
        return {
            TopicPartition(tp.topic, tp.partition): (None if at is None else int(at.offset))
            for tp, at in found.items()
        }

    def _offsets(self, topic: str, latest: bool) -> Offsets:
        return self._offsets_of(self.partitions(topic), latest)

    def _offsets_of(self, parts: Iterable[TopicPartition], latest: bool) -> Offsets:
        """Offsets of those of `parts` that exist (a deleted partition is simply absent)."""
        parts = list(parts)
        known = {tp for topic in {tp.topic for tp in parts} for tp in self.partitions(topic)}
        tps = [KafkaTopicPartition(tp.topic, tp.partition) for tp in parts if tp in known]
        if not tps:
            return {}
        with self._kafka_errors():
            if latest:
                found = self.consumer.end_offsets(tps, timeout_ms=self._timeout_ms)
            else:
                found = self.consumer.beginning_offsets(tps, timeout_ms=self._timeout_ms)
        return {TopicPartition(tp.topic, tp.partition): int(off) for tp, off in found.items()}

    def fetch_range(
        self,
        tp: TopicPartition,
        start: int,
        end: int,
        poll_timeout_ms: int = int(_STALL_SEC * 1000),
    ) -> Iterator[list[Record]]:
        """Chunks of records for exactly the offsets in [start, end).

        Raises OffsetGone when Kafka no longer holds the offset being fetched, and
        KafkaUnreachableError with the connector's words when nothing moves for
        `poll_timeout_ms` (its `kafkaConsumer.pollTimeoutMs`).
        """
        ktp = KafkaTopicPartition(tp.topic, tp.partition)
        consumer = self.consumer
        consumer.assign([ktp])
        consumer.seek(ktp, start)
        position, last_progress = start, time.monotonic()
        while position < end:
            with self._kafka_errors():
                try:
                    polled = consumer.poll(timeout_ms=200, max_records=50_000)
                except OffsetOutOfRangeError as err:
                    raise OffsetGone(tp, position) from err
            records = polled.get(ktp, [])
            chunk = [
                Record(
                    r.offset, r.key, r.value, r.timestamp, r.timestamp_type, tuple(r.headers or ())
                )
                for r in records
                if r.offset < end
            ]
            # The position, not the last record, says how far we got: compacted gaps and
            # transaction markers advance it without yielding a record.
            new_position = consumer.position(ktp)
            if new_position > position:
                position, last_progress = new_position, time.monotonic()
            elif time.monotonic() - last_progress > poll_timeout_ms / 1000:
                raise KafkaUnreachableError.at(
                    self.bootstrap_servers,
                    f"java.util.concurrent.TimeoutException: Cannot "
                    f"fetch record for offset {position} in {poll_timeout_ms} milliseconds; "
                    f"{tp}'s batch ends at {end}",
                )
            if chunk:
                yield chunk


class GroupOffsets(_ConsumerHolder):
    """A consumer group's committed offsets, used as a store: commit and read, never join.

    The consumer is only ever assigned partitions by hand (it never subscribes), so kafka-python
    commits with generation -1 and no member id: a standalone commit that needs no group
    membership, no JoinGroup and no heartbeats. Real Kafka accepts these as long as the group
    has no active members; the app is the group's only user.

    Usage:
        with GroupOffsets("127.0.0.1:9092", "manual-offsets") as group:
            group.commit({TopicPartition("Experience", 0): 42})
            group.committed([TopicPartition("Experience", 0)])  # {Experience-0: 42}
    """

    def __init__(self, bootstrap_servers: str, group: str, timeout_sec: float = 30.0) -> None:
        # Long: a commit that times out is retried by the caller's next batch anyway, but a
        # short one on a busy machine would make every batch warn.
        super().__init__(bootstrap_servers, timeout_sec)
        self.group = group

    def _consumer_settings(self) -> dict[str, object]:
        return {"group_id": self.group, "request_timeout_ms": self._timeout_ms}

    def commit(self, offsets: Offsets) -> None:
        """Store `offsets` (the next offset to read, per partition) for the group."""
        if not offsets:
            return
        consumer = self.consumer
        wanted = {
            KafkaTopicPartition(tp.topic, tp.partition): OffsetAndMetadata(off, "", -1)
            for tp, off in offsets.items()
        }
        with self._kafka_errors(refused=lambda err: self._refused("store offsets for", err)):
            consumer.commit(wanted, timeout_ms=self._timeout_ms)

    def committed(self, partitions: list[TopicPartition]) -> Offsets:
        """The group's committed offset of each partition that has one."""
        consumer = self.consumer
        found: Offsets = {}
        with self._kafka_errors(refused=lambda err: self._refused("read the offsets of", err)):
            for tp in partitions:
                offset = consumer.committed(
                    KafkaTopicPartition(tp.topic, tp.partition), timeout_ms=self._timeout_ms
                )
                if offset is not None and offset >= 0:
                    found[tp] = int(offset)
        return found

    def _refused(self, doing: str, err: KafkaError) -> GroupOffsetsError:
        return GroupOffsetsError(
            f"Kafka at {self.bootstrap_servers} would not {doing} consumer "
            f"group {self.group} ({type(err).__name__}: {err}). Check that "
            f"no other consumer is an active member of that group, or "
            f"choose another --offsets-from-group."
        )
