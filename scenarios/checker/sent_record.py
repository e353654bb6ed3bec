"""What the producer sent: the record the verifier holds the output log against.

The output log alone cannot show a message lost after the highest value written. A record of
what was sent can, and there are two:

- **the producer's log** (`log/kafka.log`): one line per message Kafka acknowledged, written
  by the producer right after the acknowledgement (`kafka_app/message_line.py` owns the line).
  It keeps every message, also those retention has since deleted from Kafka: the fuller record.
- **the topic itself**: every record Kafka still holds, read with kafka-python from the log
  start offset to the end. Records retention deleted are not there; the record says how many
  (`deleted`), and the verifier then cannot tell whether a value written below them was sent.

A value that is not a whole number (a message someone else sent with kcat) is counted apart,
as the output log's verifier does.

Usage:
    record = read_producer_log(Path("log/kafka.log"), topic="Experience")
    record = read_topic("127.0.0.1:9092", "Experience")
    record.values, record.foreign, record.deleted
"""

from __future__ import annotations

import re
import socket
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import kafka.errors
from kafka import KafkaConsumer, TopicPartition

from kafka_app.message_line import parse_log_line
from scenarios.errors import ScenarioError

__all__ = [
    "SentRecord",
    "SentRecordUnreadable",
    "read_producer_log",
    "read_topic",
    "sent_from_log_lines",
    "sent_from_values",
    "union",
]

# The output log writes a value that matches this as the number it is (spark_app/lines/output_line.py);
# the same test here keeps "foreign" meaning the same on both sides.
_WHOLE_NUMBER = re.compile(rb"-?\d{1,30}")


class SentRecordUnreadable(ScenarioError):
    """The record of what was sent could not be read (no file, no producer lines, no Kafka)."""


@dataclass(frozen=True)
class SentRecord:
    """The messages sent, by value, in the record's order.

    `deleted` counts messages the record knows were sent but cannot name (retention deleted
    them from the topic before it was read); 0 for the producer's log.
    """

    source: str
    values: tuple[int, ...]
    foreign: int = 0
    deleted: int = 0

    @property
    def complete(self) -> bool:
        """True when every message sent is named in the record."""
        return self.deleted == 0

    @property
    def messages(self) -> int:
        return len(self.values) + self.foreign


def sent_from_log_lines(lines: Iterable[str], topic: str | None, source: str) -> SentRecord:
    """The producer's lines for `topic` (every topic when None) among kafka.log's lines."""
    values = [
        line.value
        for line in map(parse_log_line, lines)
        if line is not None and (topic is None or line.topic == topic)
    ]
    return SentRecord(source, tuple(values))


def sent_from_values(values: Iterable[bytes | None], source: str, deleted: int = 0) -> SentRecord:
    """Records' raw values as the topic holds them; a value not a whole number is foreign."""
    numbers: list[int] = []
    foreign = 0
    for value in values:
        if value is not None and _WHOLE_NUMBER.fullmatch(value):
            numbers.append(int(value))
        else:
            foreign += 1
    return SentRecord(source, tuple(numbers), foreign, deleted)


def union(logged: SentRecord, held: SentRecord) -> SentRecord:
    """The producer's log completed by the topic: every value either holds, as often as the one
    that holds it more often.

    Each record misses what the other keeps: the topic, what retention deleted; the log, a
    message Kafka acknowledged while the producer was being stopped, before it wrote the line.
    The log names every message retention deleted, so the union counts as complete.
    """
    times = Counter(logged.values) | Counter(held.values)
    return SentRecord(
        f"{logged.source} and {held.source}",
        tuple(sorted(times.elements())),
        foreign=max(logged.foreign, held.foreign),
        deleted=0,
    )


def read_producer_log(path: Path, topic: str | None) -> SentRecord:
    """The producer's lines in `path`; raises SentRecordUnreadable without one for `topic`."""
    try:
        with Path(path).open(encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
    except OSError as error:
        raise SentRecordUnreadable(
            f"cannot read the producer's log {path}: {error.strerror or error}"
        ) from error
    record = sent_from_log_lines(lines, topic, str(path))
    if not record.values:
        raise SentRecordUnreadable(_no_lines(path, topic, lines))
    return record


def _no_lines(path: Path, topic: str | None, lines: list[str]) -> str:
    """Why a log gave nothing: another topic's lines, or no producer line at all."""
    others = sorted({line.topic for line in map(parse_log_line, lines) if line is not None})
    if others:
        return (
            f"{path} has no producer line for topic {topic}, only for "
            f"{', '.join(others)}; name the topic with --topic"
        )
    return (
        f"{path} has no producer line (`{topic or 'TOPIC'} [earliest:latest]: key -> value`); "
        "is it the Kafka app's kafka.log?"
    )


def read_topic(bootstrap_servers: str, topic: str, timeout_sec: float = 30.0) -> SentRecord:
    """Every record `topic` still holds, read from the log start offset to the end.

    Raises SentRecordUnreadable when Kafka does not answer, the topic does not exist, or the
    end is not reached within `timeout_sec`.
    """
    _check_listening(bootstrap_servers)
    source = f"topic {topic} at {bootstrap_servers}"
    try:
        consumer = KafkaConsumer(
            bootstrap_servers=bootstrap_servers,
            group_id=None,
            enable_auto_commit=False,
            # Retention may delete records under the reader; it then goes on from the new start.
            auto_offset_reset="earliest",
            allow_auto_create_topics=False,
            client_id="scenarios-verify",
            bootstrap_timeout_ms=5000,
            request_timeout_ms=10_000,
        )
    except kafka.errors.KafkaError as error:
        raise SentRecordUnreadable(
            f"Kafka at {bootstrap_servers} does not answer: {error}"
        ) from error
    try:
        values, ends = _read_to_end(consumer, topic, bootstrap_servers, timeout_sec)
    except kafka.errors.KafkaError as error:
        raise SentRecordUnreadable(f"reading {source} failed: {error}") from error
    finally:
        consumer.close()
    # Whatever the end offsets count and was not read is gone: deleted before or during the read.
    return sent_from_values(values, source, deleted=max(0, sum(ends) - len(values)))


def _read_to_end(
    consumer: KafkaConsumer, topic: str, bootstrap_servers: str, timeout_sec: float
) -> tuple[list[bytes | None], list[int]]:
    partitions = consumer.partitions_for_topic(topic)
    if not partitions:
        raise SentRecordUnreadable(f"Kafka at {bootstrap_servers} has no topic {topic}")
    tps = [TopicPartition(topic, p) for p in sorted(partitions)]
    # The end is fixed first: the producer may still be sending, and the read must end.
    end = consumer.end_offsets(tps)
    consumer.assign(tps)
    consumer.seek_to_beginning(*tps)
    values: list[bytes | None] = []
    deadline = time.monotonic() + timeout_sec
    while any(consumer.position(tp) < end[tp] for tp in tps):
        if time.monotonic() > deadline:
            raise SentRecordUnreadable(
                f"could not read topic {topic} to its end within "
                f"{timeout_sec:g} s; is Kafka at {bootstrap_servers} healthy?"
            )
        for tp, records in consumer.poll(timeout_ms=500).items():
            values += [r.value for r in records if r.offset < end[tp]]
    return values, [end[tp] for tp in tps]


def _check_listening(bootstrap_servers: str) -> None:
    """Fail at once when nothing listens at any address: kafka-python would retry for seconds."""
    refused = []
    for address in bootstrap_servers.split(","):
        host, _, port = address.strip().rpartition(":")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
                return
        except (OSError, ValueError) as error:
            refused.append(f"{address.strip()} ({getattr(error, 'strerror', None) or error})")
    raise SentRecordUnreadable(
        f"cannot connect to Kafka at {', '.join(refused)}; start it, or "
        "name the producer's log instead: --sent log/kafka.log"
    )
