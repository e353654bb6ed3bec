"""The producer console app (seed 001's KafkaApp): one counter message per interval.

It starts the embedded broker (unless told to use an existing Kafka), makes sure the topic
has the retention settings, then every `interval_sec` sends key = value = the next counter
value and prints `Experience [earliest:latest]: key -> value`, the topic's log start and end
offsets right after Kafka acknowledged the message. A line on stdin makes the next key
negative. Values are the messages' identity: a re-run continues after the highest one.

Usage:
    ProducerApp(ProducerAppSettings(port=19092), ProducerConsole.for_stdout()).run()
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import tempfile
import threading
import time
from collections import deque
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import kafka.errors
from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient
from kafka.producer.future import FutureRecordMetadata

from kafka_app.console import ProducerConsole
from kafka_app.errors import KafkaUnreachable, SendFailed
from kafka_app.interrupts import held
from kafka_app.kafka_choice import DEFAULT_VERSION, KafkaChoice
from kafka_app.message_line import PRODUCER_LOGGER, format_message
from kafka_app.negative_keys import NegativeKeys
from kafka_app.partitioning import partition_for
from kafka_app.sent_records import SENT_RECORDS_FILE, SentRecord, format_record
from kafka_app.settings import ProducerAppSettings
from kafka_app.topic_offsets import OffsetWindow, TopicOffsets
from kafka_app.topic_setup import TopicState, ensure_topic
from kafka_app.user_records import UserRecord, read_user_records

# format_message stays importable from here; kafka_app/message_line.py owns the line.
__all__ = ["ProducerApp", "format_message"]

_log = logging.getLogger(PRODUCER_LOGGER)

_CONNECT_TIMEOUT_MS = 10_000


class ProducerApp:
    """Runs the whole app; `run()` returns when stopped (Ctrl-C, SIGTERM, `stop()`, `count`)."""

    def __init__(
        self,
        settings: ProducerAppSettings,
        console: ProducerConsole,
        stdin_fd: int | None = None,
        kafka: KafkaChoice | None = None,
    ) -> None:
        self._settings = settings
        # Which broker to start when no --bootstrap-servers is given (embedded unless told).
        self._choice = kafka or KafkaChoice()
        self._console = console
        self._stdin_fd = _stdin_fd() if stdin_fd is None else stdin_fd
        self._stop = threading.Event()
        # Messages handed to Kafka whose line is not printed yet, oldest first. A stop can come
        # while we wait for Kafka's acknowledgement; the message may still be stored, and its
        # line is owed (broker-failover's count read one value more than the lines said).
        self._unprinted: deque[_Sent] = deque()
        # Every acknowledged record, one JSON line each (kafka_app/sent_records.py).
        self._sent: TextIO = open(os.devnull, "w")  # noqa: SIM115 (run() opens the real one)

    def stop(self) -> None:
        """Ask the send loop to finish after the current message (thread-safe)."""
        self._stop.set()

    def run(self) -> int:
        """Run until stopped; returns how many messages were sent."""
        with ExitStack() as stack:
            self._sent.close()
            self._settings.log_dir.mkdir(parents=True, exist_ok=True)
            self._sent = stack.enter_context(
                (self._settings.log_dir / SENT_RECORDS_FILE).open("a", encoding="utf-8")
            )
            bootstrap, data_dir = self._kafka(stack)
            topic = self._topic(bootstrap)
            offsets = stack.enter_context(TopicOffsets(bootstrap, topic.name, topic.partitions))
            # Runs after the producer's close, which delivers what it still held.
            stack.callback(self._print_delivered, offsets, topic)
            producer = self._producer(bootstrap)
            # Registered after the offsets reader, so it closes before the broker goes away.
            stack.callback(producer.close, 5)
            _learn_partitions(producer, bootstrap, topic)
            given = self._settings.first_value
            if self._settings.records is not None:  # a user's records: no counter to go on from
                first = 0
            else:
                first = given if given is not None else offsets.highest_counter() + 1
            self._banner(bootstrap, data_dir, topic, first)
            keys = stack.enter_context(NegativeKeys(self._stdin_fd))
            sent = self._send_loop(producer, offsets, keys, topic, first)
        return sent

    def _kafka(self, stack: ExitStack) -> tuple[str, Path | None]:
        """The bootstrap address, starting the embedded broker when no Kafka was named."""
        s = self._settings
        if s.bootstrap_servers is not None:
            return s.bootstrap_servers, None
        # Imported here, so the app can talk to a real Kafka without loading our broker.
        from kafka_app.broker import BrokerSettings, EmbeddedBroker

        data_dir = s.data_dir
        if data_dir is None:
            # The seed's embedded Kafka kept nothing between runs; neither do we by default.
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kafka-app-")))
        broker_settings = BrokerSettings(
            host=s.host,
            port=s.port,
            data_dir=data_dir,
            retention_check_sec=s.retention_check_sec,
            retention_initial_delay_sec=s.retention_initial_delay_sec,
            log_dir=s.log_dir,
        )
        if self._choice.apache:
            from kafka_app.apache.cluster import ApacheKafka

            kafka = stack.enter_context(
                ApacheKafka(
                    broker_settings,
                    brokers=self._choice.brokers,
                    version=self._choice.kafka_version,
                )
            )
            return kafka.bootstrap_servers, data_dir
        broker = stack.enter_context(EmbeddedBroker(broker_settings))
        return broker.bootstrap_servers, data_dir

    def _topic(self, bootstrap: str) -> TopicState:
        s = self._settings
        _check_listening(bootstrap)
        try:
            admin = KafkaAdminClient(
                bootstrap_servers=bootstrap,
                bootstrap_timeout_ms=_CONNECT_TIMEOUT_MS,
                request_timeout_ms=_CONNECT_TIMEOUT_MS,
            )
        except kafka.errors.KafkaError as error:
            raise KafkaUnreachable(
                bootstrap, "it accepts connections but does not answer as Kafka"
            ) from error
        with admin:
            return ensure_topic(
                admin,
                s.topic,
                s.partitions,
                s.topic_configs(),
                replication_factor=s.replication_factor,
                grow=s.grow_partitions,
            )

    def _producer(self, bootstrap: str) -> KafkaProducer:
        try:
            # acks=all (the default) and waiting on each send: the offsets we print are the ones
            # Kafka stored. acks=1 is there to show what it loses (broker-failover).
            s = self._settings
            return KafkaProducer(
                bootstrap_servers=bootstrap,
                acks="all" if s.acks == "all" else int(s.acks),
                bootstrap_timeout_ms=_CONNECT_TIMEOUT_MS,
                request_timeout_ms=_CONNECT_TIMEOUT_MS,
                delivery_timeout_ms=round(s.send_timeout_sec * 1000),
                max_block_ms=_CONNECT_TIMEOUT_MS,
            )
        except kafka.errors.KafkaError as error:
            raise KafkaUnreachable(bootstrap, "the producer could not connect") from error

    def _kafka_kind(self) -> str:
        if not self._settings.embedded:
            return "existing Kafka"
        if self._choice.apache:
            nodes = f", {self._choice.brokers} nodes" if self._choice.brokers > 1 else ""
            return f"Apache Kafka {self._choice.kafka_version or DEFAULT_VERSION}{nodes}"
        return "embedded broker"

    def _banner(self, bootstrap: str, data_dir: Path | None, topic: TopicState, first: int) -> None:
        s = self._settings
        rows = [
            ("Kafka", f"{bootstrap} ({self._kafka_kind()})"),
            (
                "topic",
                f"{topic.name}, {topic.partitions} partition(s)"
                + (f", {s.replication_factor} replicas" if s.replication_factor != 1 else "")
                + _partitions_note(topic, s),
            ),
            (
                "retention",
                f"{s.retention_sec:g} s (retention.ms={s.retention_ms}), "
                f"segments roll every {s.segment_sec:g} s (segment.ms={s.segment_ms})"
                + (f", segment.bytes={s.segment_bytes}" if s.segment_bytes is not None else ""),
            ),
            (
                "retention check",
                f"every {s.retention_check_sec:g} s after {s.retention_initial_delay_sec:g} s"
                if s.embedded
                else "as that Kafka is configured (log.retention.check.interval.ms)",
            ),
        ]
        if s.embedded:
            rows.append(
                (
                    "data",
                    str(data_dir) + (" (temporary, removed on exit)" if s.data_dir is None else ""),
                )
            )
        first_row = (
            ("records", f"{s.records}, in order, the key's crash mark on Enter")
            if s.records is not None
            else (
                "first value",
                f"{first}"
                + (
                    ""
                    if s.first_value is not None or first == 1
                    else " (continuing after the messages already in the topic)"
                ),
            )
        )
        rows += [
            first_row,
            (
                "sending",
                (
                    f"a burst of {s.count} messages, as fast as Kafka takes them, acks={s.acks}"
                    if s.burst
                    else f"one message every {s.interval_sec:g} s, acks={s.acks}"
                    + (f", {s.count} in all" if s.count is not None else "")
                ),
            ),
            ("log", str(s.log_dir / "kafka.log")),
        ]
        hint = "Press Enter to send a negative key (the Spark app crashes on it). Ctrl-C stops."
        self._console.banner("Kafka app: the Experience producer", rows, hint)
        _log.info("producer started: %s", "; ".join(f"{k}: {v}" for k, v in rows))

    def _send_loop(
        self,
        producer: KafkaProducer,
        offsets: TopicOffsets,
        keys: NegativeKeys,
        topic: TopicState,
        first: int,
    ) -> int:
        s = self._settings
        if s.burst and s.count is not None:
            return self._send_burst(producer, offsets, topic, first, s.count)
        if s.records is not None:
            return self._send_records(producer, offsets, keys, topic)
        sent = 0
        due = time.monotonic()
        while s.count is None or sent < s.count:
            # Pacing, not synchronisation: wait for the next tick unless told to stop.
            if self._stop.wait(max(0.0, due - time.monotonic())):
                break
            value = first + sent
            key = -value if keys.take() else value
            self._send(producer, offsets, topic, key, value)
            sent += 1
            # After a stall (a suspended process, a slow Kafka) carry on at the interval, no burst.
            due = max(due + s.interval_sec, time.monotonic())
        return sent

    def _send_records(
        self,
        producer: KafkaProducer,
        offsets: TopicOffsets,
        keys: NegativeKeys,
        topic: TopicState,
    ) -> int:
        """A user's records in order at the interval; Enter marks the next one's key."""
        assert self._settings.records is not None
        records = read_user_records(self._settings.records)
        sent = 0
        due = time.monotonic()
        for record in records:
            if self._stop.wait(max(0.0, due - time.monotonic())):
                break
            chosen = record.marked() if keys.take() else record
            self._hand_over_record(producer, topic, chosen)
            message = self._acknowledged()
            self._print(
                message, offsets.window(patience_sec=self._settings.send_timeout_sec), topic
            )
            sent += 1
            due = max(due + self._settings.interval_sec, time.monotonic())
        self._console.note(f"all {sent} record(s) of {self._settings.records} sent")
        return sent

    def _hand_over_record(
        self, producer: KafkaProducer, topic: TopicState, record: UserRecord
    ) -> None:
        # As _hand_over: handed over and remembered together. Kafka's own partitioner places it
        # (by its key), and its event time is its timestamp.
        with held():
            future = producer.send(
                topic.name,
                key=None if record.key is None else record.key.encode(),
                value=record.value.encode(),
                timestamp_ms=record.timestamp_ms,
            )
            self._unprinted.append(_Sent(record.key, record.value, future))

    def _send_burst(
        self,
        producer: KafkaProducer,
        offsets: TopicOffsets,
        topic: TopicState,
        first: int,
        count: int,
    ) -> int:
        """`count` messages sent back to back, the acknowledgements awaited in order
        afterwards. The line of each says the window as it stood once that message was stored:
        the end offset grows by one per message, as with one message at a time."""
        start = offsets.window()
        for value in range(first, first + count):
            if self._stop.is_set():
                break
            self._hand_over(producer, topic, value, value)
        producer.flush(timeout=self._settings.send_timeout_sec)
        handed = len(self._unprinted)
        for sent in range(1, handed + 1):
            message = self._acknowledged(f" (message {sent} of the burst)")
            self._print(
                message,
                OffsetWindow(start.earliest, start.latest + sent, start.per_partition),
                topic,
            )
        return handed

    def _send(
        self,
        producer: KafkaProducer,
        offsets: TopicOffsets,
        topic: TopicState,
        key: int,
        value: int,
    ) -> None:
        self._hand_over(producer, topic, key, value)
        message = self._acknowledged()
        # Kafka took it: a leader that died since must not cost the message its line.
        self._print(message, offsets.window(patience_sec=self._settings.send_timeout_sec), topic)

    def _hand_over(self, producer: KafkaProducer, topic: TopicState, key: int, value: int) -> None:
        # Handed over and remembered together: a stop that landed after `send` queued the
        # message but before we noted it left a stored message without its line (CI, once in
        # some hundreds of stops). `send` does not wait here: the topic's partitions are known.
        with held():
            future = producer.send(
                topic.name,
                key=str(key).encode(),
                value=str(value).encode(),
                partition=partition_for(value, topic.partitions),
            )
            self._unprinted.append(_Sent(key, value, future))

    def _acknowledged(self, where: str = "") -> _Sent:
        """The oldest unprinted message once Kafka acknowledged it; SendFailed if it did not."""
        message = self._unprinted[0]
        try:
            message.future.get(timeout=self._settings.send_timeout_sec)
        except kafka.errors.KafkaError as error:
            self._unprinted.clear()
            raise SendFailed(
                f"Kafka did not acknowledge {message.key} -> {message.value}{where}: "
                f"{type(error).__name__} {error}"
            ) from error
        return message

    def _print(self, message: _Sent, window: OffsetWindow, topic: TopicState) -> None:
        line = format_message(topic.name, window, message.key, message.value)
        # Printed, recorded and forgotten together: a stop here would leave the line torn or
        # owed twice.
        with held():
            self._console.message(line, negative=str(message.key).startswith("-"))
            self._record(message)
            self._unprinted.popleft()
        _log.info("%s", line)

    def _record(self, message: _Sent) -> None:
        """The acknowledged record, as Kafka stored it, for the oracle (sent_records.py)."""
        stored = message.future.value  # done and succeeded: _acknowledged or the stop saw to it
        record = SentRecord(
            stored.topic,
            stored.partition,
            stored.offset,
            stored.timestamp,
            None if message.key is None else str(message.key),
            str(message.value),
        )
        self._sent.write(format_record(record) + "\n")
        self._sent.flush()

    def _print_delivered(self, offsets: TopicOffsets, topic: TopicState) -> None:
        """At the stop, the line of every message Kafka stored after all, with the window as
        it stands now (the window it was stored in is past asking)."""
        while self._unprinted:
            message = self._unprinted[0]
            if not (message.future.is_done and message.future.succeeded()):
                self._unprinted.popleft()
                continue
            try:
                window = offsets.window()
            except kafka.errors.KafkaError as error:
                _log.warning(
                    "%s -> %s was stored, but the topic's offsets could not be read for "
                    "its line: %s",
                    message.key,
                    message.value,
                    error,
                )
                return
            self._print(message, window, topic)


@dataclass(frozen=True)
class _Sent:
    """A message handed to Kafka: its key, its value, and Kafka's answer to come."""

    key: int | str | None  # a user's record's key and value are text (--records)
    value: int | str
    future: FutureRecordMetadata


def _stdin_fd() -> int | None:
    """The descriptor of standard input, or None when there is none (e.g. under pytest)."""
    try:
        return sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return None


def _check_listening(bootstrap: str) -> None:
    """Fail at once when nothing listens at any bootstrap address.

    kafka-python would retry until its bootstrap timeout; a refused connection already says
    all there is to say.
    """
    refused = []
    for address in bootstrap.split(","):
        host, _, port = address.strip().rpartition(":")
        try:
            with socket.create_connection(
                (host.strip("[]"), int(port)), timeout=_CONNECT_TIMEOUT_MS / 1000
            ):
                return
        except OSError as error:
            refused.append(f"{address.strip()} ({error.strerror or error})")
    raise KafkaUnreachable(
        bootstrap,
        f"cannot connect to {', '.join(refused)}; "
        "start Kafka there (docker compose up -d) or drop --bootstrap-servers",
    )


def _learn_partitions(producer: KafkaProducer, bootstrap: str, topic: TopicState) -> None:
    """Wait for the producer to know the topic's partitions, so that no `send` waits for them
    (a send is held against stops, and a stop must not wait for Kafka)."""
    try:
        producer.partitions_for(topic.name)
    except kafka.errors.KafkaError as error:
        raise KafkaUnreachable(
            bootstrap, f"the producer could not learn topic {topic.name}'s partitions"
        ) from error


def _partitions_note(topic: TopicState, settings: ProducerAppSettings) -> str:
    """What the banner adds when the topic's partitions are not simply what was asked."""
    if topic.grown_from is not None:
        return (
            f" (grown from {topic.grown_from}; a value's partition is "
            f"(v-1) % {topic.partitions} from now on)"
        )
    if topic.partitions == settings.partitions:
        return ""
    hint = (
        ""
        if settings.grow_partitions or topic.partitions > settings.partitions
        else "; --grow-partitions adds the missing ones"
    )
    return f" (it existed; --partitions {settings.partitions} not applied{hint})"
