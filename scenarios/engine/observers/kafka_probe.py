"""The scenarios' own look at Kafka: a topic's earliest and latest offsets, asked with kafka-python.

Predictions come from here: what retention has deleted (the log start offset moved), how many
messages exist (the log end offset). It talks to any Kafka, embedded or real, and never joins a
consumer group or commits anything.

Usage:
    with KafkaProbe("127.0.0.1:19092", "Experience") as probe:
        window = probe.window()   # OffsetWindow(earliest=12, latest=40), or None if unreachable
        probe.set_retention(3600)
"""

from __future__ import annotations

from types import TracebackType

import kafka.errors
from kafka import KafkaConsumer, TopicPartition
from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType, KafkaAdminClient

from kafka_app.topic_offsets import OffsetWindow, read_window
from scenarios.errors import StepFailed

__all__ = ["KafkaProbe", "OffsetWindow"]

_METADATA_MAX_AGE_MS = 2000


class KafkaProbe:
    """Reads offsets of one topic; a context manager with idempotent start/stop."""

    def __init__(self, bootstrap_servers: str, topic: str, timeout_sec: float = 5.0) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.topic = topic
        self._timeout_ms = int(timeout_sec * 1000)
        self._consumer: KafkaConsumer | None = None

    def start(self) -> KafkaProbe:
        if self._consumer is None:
            try:
                self._consumer = KafkaConsumer(
                    bootstrap_servers=self.bootstrap_servers,
                    group_id=None,
                    enable_auto_commit=False,
                    client_id="scenarios-probe",
                    request_timeout_ms=self._timeout_ms + 1000,
                    # Partitions added to the topic show within seconds, not kafka-python's 5 min.
                    metadata_max_age_ms=_METADATA_MAX_AGE_MS,
                    bootstrap_timeout_ms=self._timeout_ms,
                )
            except kafka.errors.KafkaError as error:
                raise StepFailed(
                    f"Kafka at {self.bootstrap_servers} does not answer: {error}"
                ) from error
        return self

    def stop(self) -> None:
        if self._consumer is not None:
            self._consumer.close()
            self._consumer = None

    def window(self) -> OffsetWindow | None:
        """The topic's offsets now, or None while Kafka or the topic cannot be reached."""
        try:
            consumer = self.start()._consumer
        except StepFailed:
            return None  # no broker answers now (a cluster between elections); callers poll
        assert consumer is not None
        try:
            partitions = consumer.partitions_for_topic(self.topic)
            if not partitions:
                return None
            tps = [TopicPartition(self.topic, p) for p in sorted(partitions)]
            return read_window(consumer, tps, self._timeout_ms)
        except kafka.errors.KafkaError:
            # Unreachable for now; callers poll until a deadline. Start afresh on the next call:
            # a metadata answer lists only the brokers alive then, and kafka-python never asks
            # the bootstrap list again, so a consumer that last heard from a broker now dead
            # would wait on it forever (a cluster whose every broker restarted, broker-failover).
            self.stop()
            return None

    def values(self) -> list[int]:
        """The values of every record in the topic now, partition by partition, in offset order
        (a fresh consumer reads from each partition's earliest to its latest offset)."""
        consumer = KafkaConsumer(
            bootstrap_servers=self.bootstrap_servers,
            group_id=None,
            enable_auto_commit=False,
            client_id="scenarios-reader",
            request_timeout_ms=self._timeout_ms + 1000,
            consumer_timeout_ms=self._timeout_ms,
        )
        try:
            tps = [
                TopicPartition(self.topic, p)
                for p in sorted(consumer.partitions_for_topic(self.topic) or ())
            ]
            consumer.assign(tps)
            consumer.seek_to_beginning(*tps)
            ends = consumer.end_offsets(tps)
            values: list[int] = []
            if all(ends[tp] == 0 for tp in tps):
                return values
            for record in consumer:  # ends after consumer_timeout_ms without a record
                if record.value is not None and record.value.isdigit():
                    values.append(int(record.value))
                if all(consumer.position(tp) >= ends[tp] for tp in tps):
                    break
            return values
        except kafka.errors.KafkaError as error:
            raise StepFailed(f"reading topic {self.topic} failed: {error}") from error
        finally:
            consumer.close()

    def set_retention(self, retention_sec: float) -> None:
        """Change the topic's `retention.ms` (incrementally: its other settings stay)."""
        self.set_configs({"retention.ms": str(round(retention_sec * 1000))})

    def set_configs(self, configs: dict[str, str]) -> None:
        """Change topic configs incrementally: the ones not named stay as they are."""
        shown = ", ".join(f"{k}={v}" for k, v in configs.items())
        resource = ConfigResource(
            ConfigResourceType.TOPIC,
            self.topic,
            configs={k: (AlterConfigOp.SET, v) for k, v in configs.items()},
        )
        try:
            admin = KafkaAdminClient(
                bootstrap_servers=self.bootstrap_servers,
                client_id="scenarios-admin",
                request_timeout_ms=self._timeout_ms + 1000,
            )
        except kafka.errors.KafkaError as error:
            raise StepFailed(
                f"Kafka at {self.bootstrap_servers} does not answer: {error}"
            ) from error
        try:
            results = admin.alter_configs([resource], raise_on_unknown=False, incremental=True)
        except kafka.errors.KafkaError as error:
            raise StepFailed(f"changing {shown} of {self.topic} failed: {error}") from error
        finally:
            admin.close()
        outcome = results.get("topic", {}).get(self.topic)
        if outcome != "OK":
            raise StepFailed(f"Kafka refused {shown} for {self.topic}: {outcome}")

    def __enter__(self) -> KafkaProbe:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
