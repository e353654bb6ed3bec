"""The broker's data folder: topics, their configs, and one PartitionLog per partition.

Layout (like Kafka's log.dirs): `<data_dir>/topics.json` lists every topic with its partition
count and config overrides; each partition lives in `<data_dir>/<topic>-<partition>/` as
`<20-digit base offset>.log` segment files plus an optional `log-start-offset` checkpoint.
Opening a Storage recovers every partition, so a broker killed with kill -9 restarts with every
acknowledged record.

Usage:
    with Storage(Path("kafka-data")) as storage:
        storage.create_topic("events", 2, {"retention.ms": "60000"})
        storage.partition("events", 0).append(batch_bytes)
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import TracebackType

from kafka_app.broker.errors import (
    InvalidPartitions,
    InvalidTopic,
    PolicyViolation,
    StorageCorrupt,
    TopicAlreadyExists,
    UnknownTopicOrPartition,
)
from kafka_app.broker.storage.atomic_file import write_atomically
from kafka_app.broker.storage.clock import wall_clock_ms
from kafka_app.broker.storage.dir_failure import DataDirHealth
from kafka_app.broker.storage.log import PartitionLog
from kafka_app.broker.storage.retention import RetentionEvent
from kafka_app.broker.storage.topic_config import TopicConfig

__all__ = [
    "Storage",
    "PartitionLog",
    "RetentionEvent",
    "validate_topic_name",
    "TOPICS_FILE",
    "CLEAN_SHUTDOWN_FILE",
    "MAX_PARTITIONS",
    "check_partition_increase",
]

_log = logging.getLogger(__name__)

TOPICS_FILE = "topics.json"
CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown"  # Kafka's name (LogLoader/LogManager)
# Each partition is a folder plus open files; this keeps a typo (1e9) from filling the disk.
MAX_PARTITIONS = 10_000
_PARTITION_FOLDER = re.compile(r"[A-Za-z0-9._-]+-[0-9]+")
MAX_TOPIC_NAME_LENGTH = 249
_LEGAL_TOPIC_NAME = re.compile(r"[A-Za-z0-9._-]+")
_DELETED_FOLDER = "-delete"  # Kafka's suffix for the folder of a deleted partition


def validate_topic_name(name: str) -> None:
    """Kafka's topic-name rules; they also keep a name safe to use as a folder name."""
    if not isinstance(name, str) or not name:
        raise InvalidTopic("topic name is empty")
    if name in (".", ".."):
        raise InvalidTopic(f"topic name {name!r} is not allowed")
    if len(name) > MAX_TOPIC_NAME_LENGTH:
        raise InvalidTopic(
            f"topic name is {len(name)} characters long; the limit is {MAX_TOPIC_NAME_LENGTH}"
        )
    if not _LEGAL_TOPIC_NAME.fullmatch(name):
        raise InvalidTopic(
            f"topic name {name!r} may only contain letters, digits, '.', '_' and '-'"
        )


def check_partition_increase(name: str, current: int, count: int) -> None:
    """Kafka's rule for CreatePartitions: only ever more partitions (INVALID_PARTITIONS)."""
    if count == current:
        raise InvalidPartitions(f"topic {name!r} already has {current} partition(s)")
    if count < current:
        raise InvalidPartitions(
            f"topic {name!r} currently has {current} partition(s); {count} "
            f"would not be an increase (Kafka never removes partitions)"
        )
    if count > MAX_PARTITIONS:
        raise InvalidPartitions(
            f"topic {name!r} may have at most {MAX_PARTITIONS} partitions, got {count}"
        )


class _Topic:
    def __init__(self, config: TopicConfig, partitions: list[PartitionLog]) -> None:
        self.config = config
        self.partitions = partitions


class Storage:
    """Every topic of one broker, on disk under `data_dir`."""

    def __init__(
        self,
        data_dir: Path,
        clock: Callable[[], int] = wall_clock_ms,
        max_partitions: int | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self._clock = clock
        # All topics together; None = only the per-topic MAX_PARTITIONS. Topics already on disk
        # are opened whatever their count: the cap refuses new ones, it never loses data.
        self.max_partitions = max_partitions
        self._topics: dict[str, _Topic] = {}
        self._closed = False
        # One failed write takes the whole folder offline until restart, as Kafka does a log dir.
        self.health = DataDirHealth(self.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        marker = self.data_dir / CLEAN_SHUTDOWN_FILE
        # Kafka's rule: the marker says the last stop flushed everything, so nothing is rechecked.
        # It goes before serving, so a crash from here on counts as unclean.
        self.clean_start = marker.exists()
        for leftover in self.data_dir.glob(f"*{_DELETED_FOLDER}"):
            shutil.rmtree(leftover, ignore_errors=True)  # a DeleteTopics cut short by a stop
        try:
            for name, (count, configs) in self._read_topics_file().items():
                config = TopicConfig.from_strings(configs)
                self._topics[name] = _Topic(config, self._open_partitions(name, count, config))
        except BaseException:
            # Refusing to start must not leak the descriptors of the logs already opened, nor
            # mark anything: the folder stays exactly as it was found.
            for topic in self._topics.values():
                for log in topic.partitions:
                    log.release()
            raise
        marker.unlink(missing_ok=True)

    # ---- topics --------------------------------------------------------------------------------

    def create_topic(self, name: str, partitions: int, configs: Mapping[str, str]) -> TopicConfig:
        """Create a topic with `partitions` empty partitions; persists it before returning."""
        validate_topic_name(name)
        if name in self._topics:
            raise TopicAlreadyExists(f"topic {name!r} already exists")
        if not 1 <= partitions <= MAX_PARTITIONS:
            raise InvalidPartitions(
                f"topic {name!r} needs 1..{MAX_PARTITIONS} partitions, got {partitions}"
            )
        self.check_partition_cap(name, partitions)
        config = TopicConfig.from_strings(configs)
        self.health.check()
        logs: list[PartitionLog] = []
        try:
            for partition in range(partitions):
                self._remove_orphan_folder(name, partition)
                logs.append(self._open_partition(name, partition, config))
            # The topic exists once topics.json says so; only then is it live in memory.
            self._write_topics_file({**self._topics, name: _Topic(config, logs)})
        except OSError as error:
            self._discard_new_partitions(logs)
            raise self.health.fail(
                self.data_dir / TOPICS_FILE, error, f"creating topic {name!r}"
            ) from error
        self._topics[name] = _Topic(config, logs)
        _log.info(
            "created topic %s with %d partition(s), configs %s",
            name,
            partitions,
            config.to_strings() or "default",
        )
        return config

    def delete_topic(self, name: str) -> None:
        """Delete a topic and its data, as Kafka's DeleteTopics does; a new topic of the same
        name starts again at offset 0.

        topics.json is rewritten first: once it no longer lists the topic, a crash can only leave
        folders that the next start removes (they are renamed to `*-delete`, as Kafka renames them).
        """
        entry = self._topic(name)
        self.health.check()
        try:
            self._write_topics_file({n: t for n, t in self._topics.items() if n != name})
            del self._topics[name]
            for log in entry.partitions:
                log.release()
                doomed = log.folder.with_name(
                    f"{log.folder.name}.{uuid.uuid4().hex}{_DELETED_FOLDER}"
                )
                os.replace(log.folder, doomed)
                shutil.rmtree(doomed, ignore_errors=True)
        except OSError as error:
            raise self.health.fail(self.data_dir, error, f"deleting topic {name!r}") from error
        _log.info("deleted topic %s and its %d partition(s)", name, len(entry.partitions))

    def add_partitions(self, name: str, count: int) -> None:
        """Grow a topic to `count` partitions (CreatePartitions); existing ones are untouched."""
        entry = self._topic(name)
        current = len(entry.partitions)
        check_partition_increase(name, current, count)
        self.check_partition_cap(name, count - current)
        self.health.check()
        logs: list[PartitionLog] = []
        try:
            for partition in range(current, count):
                self._remove_orphan_folder(name, partition)
                logs.append(self._open_partition(name, partition, entry.config))
            self._write_topics_file(
                {**self._topics, name: _Topic(entry.config, entry.partitions + logs)}
            )
        except OSError as error:
            self._discard_new_partitions(logs)
            raise self.health.fail(
                self.data_dir / TOPICS_FILE, error, f"adding partitions to {name!r}"
            ) from error
        entry.partitions.extend(logs)
        _log.info("topic %s grew from %d to %d partitions", name, current, count)

    def check_partition_cap(self, name: str, partitions: int) -> None:
        """Raise PolicyViolation when `partitions` more would pass the broker-wide cap: every
        partition holds an open file, and 9000 of them took 9010 file descriptors."""
        held = self.partition_count()
        if self.max_partitions is not None and held + partitions > self.max_partitions:
            raise PolicyViolation(
                f"topic {name!r} needs {partitions} partition(s), but the broker holds {held} of "
                f"at most {self.max_partitions} (--max-partitions)"
            )

    def partition_count(self) -> int:
        """Partitions of all topics together."""
        return sum(len(topic.partitions) for topic in self._topics.values())

    def topics(self) -> dict[str, int]:
        """Topic name -> number of partitions."""
        return {name: len(topic.partitions) for name, topic in self._topics.items()}

    def partition(self, topic: str, partition: int) -> PartitionLog:
        """The log of one partition; raises UnknownTopicOrPartition, or KafkaStorageError when
        the data folder is offline (Kafka's answer for a partition on a failed log dir)."""
        self.health.check()
        entry = self._topic(topic)
        if not 0 <= partition < len(entry.partitions):
            raise UnknownTopicOrPartition(
                f"topic {topic!r} has no partition {partition} (it has {len(entry.partitions)})"
            )
        return entry.partitions[partition]

    def topic_config(self, topic: str) -> TopicConfig:
        return self._topic(topic).config

    def alter_topic_config(
        self, topic: str, sets: Mapping[str, str], deletes: Iterable[str]
    ) -> TopicConfig:
        """Apply IncrementalAlterConfigs SET/DELETE operations; persists; effective at once."""
        entry = self._topic(topic)
        config = entry.config.altered(sets, deletes)
        self.health.check()
        try:
            # On disk first: a config that could not be saved must not act until a restart drops it.
            self._write_topics_file({**self._topics, topic: _Topic(config, entry.partitions)})
        except OSError as error:
            raise self.health.fail(
                self.data_dir / TOPICS_FILE, error, f"changing the configs of {topic!r}"
            ) from error
        entry.config = config
        for log in entry.partitions:
            log.config = config
        _log.info("topic %s configs now %s", topic, config.to_strings() or "default")
        return config

    def _topic(self, topic: str) -> _Topic:
        try:
            return self._topics[topic]
        except KeyError:
            raise UnknownTopicOrPartition(f"unknown topic {topic!r}") from None

    # ---- retention -----------------------------------------------------------------------------

    def enforce_retention(self) -> list[RetentionEvent]:
        """One retention pass over every partition at now = clock(); none while offline."""
        if not self.health.online:
            return []
        now_ms = self._clock()
        events: list[RetentionEvent] = []
        for topic in self._topics.values():
            for log in topic.partitions:
                events.extend(log.apply_retention(now_ms))
        return events

    # ---- files ---------------------------------------------------------------------------------

    def _partition_folder(self, topic: str, partition: int) -> Path:
        return self.data_dir / f"{topic}-{partition}"

    def _open_partitions(self, name: str, count: int, config: TopicConfig) -> list[PartitionLog]:
        return [self._open_partition(name, p, config) for p in range(count)]

    def _open_partition(self, name: str, partition: int, config: TopicConfig) -> PartitionLog:
        return PartitionLog.open(
            self._partition_folder(name, partition),
            name,
            partition,
            config,
            self._clock,
            self.clean_start,
            self.health,
        )

    def _discard_new_partitions(self, logs: list[PartitionLog]) -> None:
        """Undo a topic creation or growth that could not be recorded: no folder outlives it."""
        for log in logs:
            log.release()
            shutil.rmtree(
                log.folder, ignore_errors=True
            )  # offline anyway; a start removes leftovers

    def _remove_orphan_folder(self, topic: str, partition: int) -> None:
        # topics.json is the source of truth: a folder it does not list was left by a crash
        # between creating folders and recording the topic, and must not leak into a new topic.
        folder = self._partition_folder(topic, partition)
        if folder.exists():
            _log.warning("removing %s: no topic in %s owns it", folder, TOPICS_FILE)
            shutil.rmtree(folder)

    def _read_topics_file(self) -> dict[str, tuple[int, dict[str, str]]]:
        """Topic -> (partitions, configs); anything odd raises StorageCorrupt, never a silent reset."""
        path = self.data_dir / TOPICS_FILE
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            # Empty folders are a crash while creating the first topic; data is something to keep.
            orphans = sorted(
                p.name
                for p in self.data_dir.iterdir()
                if _PARTITION_FOLDER.fullmatch(p.name) and _holds_records(p)
            )
            if orphans:
                raise StorageCorrupt(
                    f"{path} is missing but {self.data_dir} holds partition folders "
                    f"({', '.join(orphans[:3])}{', ...' if len(orphans) > 3 else ''}); restore "
                    f"{TOPICS_FILE} or move those folders aside"
                ) from None
            return {}
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise StorageCorrupt(
                f"{path} is not valid JSON ({error}); restore it from a backup "
                f"or move the data folder aside"
            ) from None
        topics = document.get("topics") if isinstance(document, dict) else None
        if not isinstance(topics, dict):
            raise StorageCorrupt(f'{path} has no "topics" object; restore it from a backup')
        return {name: _topic_entry(path, name, entry) for name, entry in topics.items()}

    def _write_topics_file(self, topics: Mapping[str, _Topic]) -> None:
        """Record `topics` (what the topics will be once this returns) in topics.json."""
        document = {
            "version": 1,
            "topics": {
                name: {"partitions": len(topic.partitions), "configs": topic.config.to_strings()}
                for name, topic in topics.items()
            },
        }
        write_atomically(self.data_dir / TOPICS_FILE, json.dumps(document, indent=2) + "\n")

    # ---- lifecycle -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close every partition's files; idempotent."""
        if self._closed:
            return
        self._closed = True
        if not self.health.online:
            # Kafka writes nothing more to a failed log dir; the next start checks what is there.
            _log.warning(
                "%s is offline (%s): not flushed and not marked cleanly shut down",
                self.data_dir,
                self.health.offline_reason,
            )
        flushed = [log.close() for topic in self._topics.values() for log in topic.partitions]
        if not all(flushed):
            return  # no marker: the next start rechecks what could not be flushed
        # Every log flushed its active segment and wrote its recovery point: the next start
        # need not recheck anything. Written last, so a failure above leaves it absent.
        try:
            write_atomically(self.data_dir / CLEAN_SHUTDOWN_FILE, "")
        except OSError as error:
            _log.warning(
                "could not mark %s cleanly shut down (%s); the next start rechecks "
                "the unflushed part of every log",
                self.data_dir,
                error,
            )

    def __enter__(self) -> Storage:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _holds_records(folder: Path) -> bool:
    return folder.is_dir() and any(log.stat().st_size > 0 for log in folder.glob("*.log"))


def _topic_entry(path: Path, name: str, entry: object) -> tuple[int, dict[str, str]]:
    """Check one topics.json entry as strictly as a CreateTopics request (a name is a folder name)."""
    try:
        validate_topic_name(name)
    except InvalidTopic as error:
        raise StorageCorrupt(f"{path} lists an illegal topic: {error}") from None
    partitions = entry.get("partitions") if isinstance(entry, dict) else None
    configs = entry.get("configs", {}) if isinstance(entry, dict) else None
    if (
        not isinstance(partitions, int)
        or isinstance(partitions, bool)
        or not 1 <= partitions <= MAX_PARTITIONS
    ):
        raise StorageCorrupt(
            f"{path}: topic {name!r} has partitions {partitions!r}; "
            f"expected a whole number 1..{MAX_PARTITIONS}"
        )
    if not isinstance(configs, dict) or not all(isinstance(v, str) for v in configs.values()):
        raise StorageCorrupt(
            f"{path}: topic {name!r} has configs {configs!r}; expected an object of strings"
        )
    return partitions, configs
