"""What the topic holds: its offset window per partition and the highest counter in it.

The producer prints `Experience [earliest:latest]` after each send: earliest is the log start
offset (it moves when retention deletes segments), latest the log end offset. On start it
continues the counter after the highest value the topic still holds.

Usage:
    with TopicOffsets("127.0.0.1:9092", "Experience", partitions=1) as offsets:
        window = offsets.window()          # OffsetWindow(earliest=0, latest=12)
        start = offsets.highest_counter() + 1
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import kafka.errors
from kafka import KafkaConsumer, TopicPartition

from kafka_app.errors import BadCounterValue, KafkaUnreachable, TopicUnreadable
from kafka_app.resource import StartStop

__all__ = ["OffsetWindow", "TopicOffsets", "read_window"]

_READ_TIMEOUT_SEC = 15.0


@dataclass(frozen=True)
class OffsetWindow:
    """Log start and end offsets, summed over the topic's partitions.

    With one partition these are that partition's offsets, as in the seed. With several the
    sums still say what a reader wants: `latest` counts every message ever written and
    `latest - earliest` how many retention still keeps.
    """

    earliest: int
    latest: int
    per_partition: tuple[tuple[int, int], ...]


def read_window(
    consumer: KafkaConsumer, partitions: list[TopicPartition], timeout_ms: int | None = None
) -> OffsetWindow:
    """The partitions' log start and end offsets, summed and per partition (one ListOffsets
    round trip each); the one way the producer and the scenarios read a topic's window."""
    starts = consumer.beginning_offsets(partitions, timeout_ms=timeout_ms)
    ends = consumer.end_offsets(partitions, timeout_ms=timeout_ms)
    pairs = tuple((starts[tp], ends[tp]) for tp in partitions)
    return OffsetWindow(
        earliest=sum(s for s, _ in pairs), latest=sum(e for _, e in pairs), per_partition=pairs
    )


class TopicOffsets(StartStop):
    """A reader of one topic's offsets and last records (a context manager)."""

    def __init__(self, bootstrap_servers: str, topic: str, partitions: int) -> None:
        self._bootstrap_servers = bootstrap_servers
        self._partitions = [TopicPartition(topic, p) for p in range(partitions)]
        self._consumer: KafkaConsumer | None = None

    def start(self) -> None:
        if self._consumer is not None:
            return
        try:
            # No group: this reader only looks, it never commits offsets.
            self._consumer = KafkaConsumer(
                bootstrap_servers=self._bootstrap_servers,
                group_id=None,
                enable_auto_commit=False,
                auto_offset_reset="latest",
                request_timeout_ms=10_000,
                bootstrap_timeout_ms=10_000,
            )
        except kafka.errors.KafkaError as error:
            raise KafkaUnreachable(self._bootstrap_servers, "is Kafka running there?") from error

    def stop(self) -> None:
        if self._consumer is None:
            return
        self._consumer.close()
        self._consumer = None

    def window(self, patience_sec: float = 0.0) -> OffsetWindow:
        """The current log start and end offsets (one ListOffsets round trip each). With
        `patience_sec`, a read that timed out is asked again until that much time has passed:
        when a partition's leader dies, the read waits for the new one as the producer's send
        did (broker-failover's producer died here once, a message after the kill, beside
        another scenario: the election took 9.4 s and this read's timeout is 10 s)."""
        deadline = time.monotonic() + patience_sec
        while True:
            try:
                return read_window(self._require(), self._partitions)
            except kafka.errors.KafkaTimeoutError:
                if time.monotonic() >= deadline:
                    raise

    def highest_counter(self) -> int:
        """The counter to continue after: 0 for a topic that never held a message.

        It is the highest value in the last record of each partition (values only grow, so
        the last record holds a partition's highest). When retention has emptied the topic
        there is no record left to read; then the number of messages it ever held (the sum
        of end offsets) stands in, so a value is never sent twice.
        """
        window = self.window()
        last_values = self._last_values(window)
        return max([window.latest, *last_values])

    def _last_values(self, window: OffsetWindow) -> list[int]:
        consumer = self._require()
        wanted: dict[TopicPartition, int] = {}
        for tp, (start, end) in zip(self._partitions, window.per_partition):
            if end > start:
                wanted[tp] = end - 1
        if not wanted:
            return []
        consumer.assign(list(wanted))
        for tp, offset in wanted.items():
            consumer.seek(tp, offset)
        values: list[int] = []
        deadline = time.monotonic() + _READ_TIMEOUT_SEC
        while wanted and time.monotonic() < deadline:
            for tp, records in consumer.poll(timeout_ms=500).items():
                for record in records:
                    if record.offset >= wanted.get(tp, record.offset + 1):
                        values.append(
                            _counter(record.topic, record.partition, record.offset, record.value)
                        )
                        wanted.pop(tp, None)
            # Retention may delete the record between our look and the fetch: the consumer then
            # resets to the end, and that partition has nothing left to tell.
            for tp in list(wanted):
                if consumer.position(tp) > wanted[tp]:
                    wanted.pop(tp)
        consumer.unsubscribe()
        if wanted:
            partitions = ", ".join(f"{tp.topic}-{tp.partition}" for tp in wanted)
            raise TopicUnreadable(
                f"could not read the last record of {partitions} within {_READ_TIMEOUT_SEC:g} s, "
                "so the counter cannot continue; is Kafka healthy?"
            )
        return values

    def _require(self) -> KafkaConsumer:
        if self._consumer is None:
            raise RuntimeError("TopicOffsets used outside its `with` block")
        return self._consumer


def _counter(topic: str, partition: int, offset: int, value: bytes | None) -> int:
    try:
        number = int((value or b"").decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        number = -1
    if number < 1:
        raise BadCounterValue(topic, partition, offset, value)
    return number
