"""Helpers for the full-disk tests: a small disk, a broker process on it, and the client calls
whose Kafka error codes the tests check.

Brokers are started through `BrokerLauncher`, keyed by a broker kind (BROKER_KINDS): "embedded"
runs `python -m kafka_app.broker`, "apache" runs `python -m kafka_app broker --kafka apache`
(Apache Kafka 4.1.2 as the CLI's child JVM, its `log.dirs` on the same data folder). Both are a
real process stopped with SIGTERM, and the tests only speak the Kafka protocol.

Usage:
    with BrokerLauncher("embedded", log_dir, port) as launcher:
        broker = launcher.start(data_dir)
        code, offset = produce(broker.port, "events", b"v")
        assert broker.stop() == 0
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from kafka import KafkaConsumer, TopicPartition
from kafka.protocol.admin.configs import DescribeConfigsRequest, IncrementalAlterConfigsRequest
from kafka.protocol.admin.topics import CreateTopicsRequest, DeleteRecordsRequest
from kafka.protocol.consumer.fetch import FetchRequest
from kafka.protocol.consumer.group import OffsetCommitRequest
from kafka.protocol.producer.produce import ProduceRequest

from tests.kafka_app.broker.broker_helpers import committed_offset, listening, raw_call, wait_until
from tests.kafka_app.broker.storage_helpers import batch

__all__ = [
    "SmallDisk",
    "BrokerLauncher",
    "RunningBroker",
    "produce",
    "create_topic_code",
    "delete_records",
    "alter_config",
    "describe_config",
    "fetch_error",
    "consume_from",
    "commit_offset",
    "committed_offset",
    "KAFKA_STORAGE_ERROR",
]

REPO = Path(__file__).resolve().parents[3]
KAFKA_STORAGE_ERROR = 56
BROKER_KINDS = ("embedded", "apache")
# Seconds until a broker listens: the embedded one starts in about one, Apache Kafka's JVM in
# 12-30 s on this shared 2-core machine (docs/apache-kafka.md).
_START_SEC = {"embedded": 30, "apache": 240}


class SmallDisk:
    """A data folder where writes fail: a real tmpfs ("tmpfs", filled on demand with a ballast
    file) or a per-process file-size limit ("rlimit", RLIMIT_FSIZE, EFBIG past it)."""

    def __init__(self, kind: str, root: Path, size_bytes: int, fsize_limit: int) -> None:
        self.kind = kind
        self.root = root
        self.data_dir = root / "kafka-data"
        self.size_bytes = size_bytes
        # Only the rlimit disk limits the broker process; a tmpfs limits everyone.
        self.fsize_limit = fsize_limit if kind == "rlimit" else None
        self._ballast = root / "ballast"
        self._mounted = False

    def mount(self) -> bool:
        """Mount the tmpfs (root only); False where the machine does not allow it."""
        self.root.mkdir(parents=True, exist_ok=True)
        if self.kind != "tmpfs":
            return True
        if shutil.which("mount") is None or os.geteuid() != 0:
            return False
        result = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={self.size_bytes}", "tmpfs", str(self.root)],
            capture_output=True,
            text=True,
        )
        self._mounted = result.returncode == 0
        return self._mounted

    def unmount(self) -> None:
        if self._mounted:
            subprocess.run(["umount", str(self.root)], check=True)
            self._mounted = False

    def fill(self) -> None:
        """Take every free block of the tmpfs with a ballast file (the broker's next new block
        fails with ENOSPC, while bytes that fit the last block of a file still go in)."""
        assert self.kind == "tmpfs", "an rlimit disk is always full past its limit"
        chunk = b"\0" * 65536
        fd = os.open(self._ballast, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            while True:
                os.write(fd, chunk)
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
        finally:
            os.close(fd)

    def free(self) -> None:
        self._ballast.unlink(missing_ok=True)


@dataclass
class RunningBroker:
    """One broker process; `stop()` is SIGTERM and returns the exit code."""

    process: subprocess.Popen[str]
    port: int

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        self.process.communicate(timeout=60)
        return self.process.returncode

    def exited(self, timeout: float) -> tuple[int, str] | None:
        """(exit code, stderr) once the broker ended by itself within `timeout`; None if it runs."""
        try:
            _, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.process.returncode, err


class BrokerLauncher:
    """Starts brokers of one kind on a data folder; every one still running is killed on exit."""

    def __init__(self, kind: str, log_dir: Path, port: int) -> None:
        if kind not in BROKER_KINDS:
            raise ValueError(f"unknown broker kind {kind!r}; known: {BROKER_KINDS}")
        self.kind = kind
        self.log_dir = log_dir
        self.port = port
        self._started: list[RunningBroker] = []

    def start(self, data_dir: Path, fsize_limit: int | None = None) -> RunningBroker:
        """A broker on `data_dir`, listening; `fsize_limit` caps each file it writes."""
        # A file-size limit would cap the JVM's own log and metadata log too, and Kafka's
        # segments preallocate nothing a limit could catch first: Apache Kafka gets a tmpfs.
        assert fsize_limit is None or self.kind == "embedded", (
            "RLIMIT_FSIZE is for the embedded broker"
        )
        module = (
            ["kafka_app.broker"]
            if self.kind == "embedded"
            else ["kafka_app", "broker", "--kafka", "apache"]
        )
        command = [
            sys.executable,
            "-m",
            *module,
            "--port",
            str(self.port),
            "--data-dir",
            str(data_dir),
            "--log-dir",
            str(self.log_dir),
            "--retention-initial-delay-sec",
            "600",
        ]
        process = subprocess.Popen(
            command,
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_file_size_limit(fsize_limit),
        )
        broker = RunningBroker(process, self.port)
        self._started.append(broker)
        wait_until(
            lambda: listening(self.port) or process.poll() is not None,
            _START_SEC[self.kind],
            "the broker to listen",
        )
        assert process.poll() is None, process.communicate()
        return broker

    def __enter__(self) -> BrokerLauncher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # SIGTERM first: Apache Kafka's CLI then stops its JVM before the tmpfs is unmounted.
        for broker in self._started:
            try:
                broker.stop()
            except subprocess.TimeoutExpired:
                broker.process.kill()
                broker.process.communicate(timeout=30)


def _file_size_limit(limit: int | None):
    if limit is None:
        return None
    # Python ignores SIGXFSZ, so a write past the limit fails with EFBIG instead of killing it.
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


# ---- client calls: one request on a fresh connection, the Kafka error code back -------------


def produce(port: int, topic: str, value: bytes) -> tuple[int, int]:
    """(error code, base offset) of one record produced with acks=all, as a producer with
    retries=0 sees it."""
    Data = ProduceRequest.TopicProduceData
    request = ProduceRequest[8](
        transactional_id=None,
        acks=-1,
        timeout_ms=5_000,
        topic_data=[
            Data(
                name=topic,
                partition_data=[Data.PartitionProduceData(index=0, records=batch([value]))],
            )
        ],
    )
    answer = raw_call(port, request, 8).responses[0].partition_responses[0]
    return answer.error_code, answer.base_offset


def create_topic_code(port: int, name: str, configs: dict[str, str] | None = None) -> int:
    Topic = CreateTopicsRequest.CreatableTopic
    request = CreateTopicsRequest[7](
        topics=[
            Topic(
                name=name,
                num_partitions=1,
                replication_factor=1,
                assignments=[],
                configs=[
                    Topic.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()
                ],
            )
        ],
        timeout_ms=5_000,
        validate_only=False,
    )
    return raw_call(port, request, 7).topics[0].error_code


def delete_records(port: int, topic: str, before: int) -> tuple[int, int]:
    """(error code, low watermark) of DeleteRecords on partition 0."""
    Topic = DeleteRecordsRequest.DeleteRecordsTopic
    request = DeleteRecordsRequest[2](
        timeout_ms=5_000,
        topics=[
            Topic(
                name=topic,
                partitions=[Topic.DeleteRecordsPartition(partition_index=0, offset=before)],
            )
        ],
    )
    answer = raw_call(port, request, 2).topics[0].partitions[0]
    return answer.error_code, answer.low_watermark


def alter_config(port: int, topic: str, configs: dict[str, str]) -> int:
    Resource = IncrementalAlterConfigsRequest.AlterConfigsResource
    request = IncrementalAlterConfigsRequest[1](
        validate_only=False,
        resources=[
            Resource(
                resource_type=2,
                resource_name=topic,
                configs=[
                    Resource.AlterableConfig(name=k, config_operation=0, value=v)
                    for k, v in configs.items()
                ],
            )
        ],
    )
    return raw_call(port, request, 1).responses[0].error_code


def describe_config(port: int, topic: str, key: str) -> str:
    Resource = DescribeConfigsRequest.DescribeConfigsResource
    request = DescribeConfigsRequest[4](
        resources=[Resource(resource_type=2, resource_name=topic, configuration_keys=[key])],
        include_synonyms=False,
        include_documentation=False,
    )
    [entry] = raw_call(port, request, 4).results[0].configs
    return entry.value


def fetch_error(port: int, topic: str, offset: int) -> int:
    Topic = FetchRequest.FetchTopic
    request = FetchRequest[12](
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=0,
        max_bytes=1 << 20,
        isolation_level=1,
        session_id=0,
        session_epoch=-1,
        forgotten_topics_data=[],
        rack_id="",
        topics=[
            Topic(
                topic=topic,
                partitions=[
                    Topic.FetchPartition(
                        partition=0,
                        current_leader_epoch=-1,
                        fetch_offset=offset,
                        last_fetched_epoch=-1,
                        log_start_offset=-1,
                        partition_max_bytes=1 << 20,
                    )
                ],
            )
        ],
    )
    return raw_call(port, request, 12).responses[0].partitions[0].error_code


def consume_from(
    bootstrap: str, topic: str, starts: list[int]
) -> dict[int, list[tuple[int, bytes]]]:
    """For each start offset, (offset, value) of every record a consumer seeking there gets,
    up to the end offset it saw first."""
    tp = TopicPartition(topic, 0)
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="none"
    )
    try:
        consumer.assign([tp])
        end = consumer.end_offsets([tp])[tp]
        return {start: _read_to(consumer, tp, start, end) for start in starts}
    finally:
        consumer.close()


def _read_to(
    consumer: KafkaConsumer, tp: TopicPartition, start: int, end: int
) -> list[tuple[int, bytes]]:
    consumer.seek(tp, start)
    got: list[tuple[int, bytes]] = []
    deadline = time.monotonic() + 20
    while consumer.position(tp) < end and time.monotonic() < deadline:
        for record in consumer.poll(timeout_ms=500).get(tp, []):
            got.append((record.offset, record.value))
    return got


def commit_offset(port: int, group: str, topic: str, offset: int, metadata: str) -> int:
    """The error code of one OffsetCommit (no generation, as admin tools and `assign()` do)."""
    Topic = OffsetCommitRequest.OffsetCommitRequestTopic
    request = OffsetCommitRequest[8](
        group_id=group,
        generation_id_or_member_epoch=-1,
        member_id="",
        group_instance_id=None,
        topics=[
            Topic(
                name=topic,
                partitions=[
                    Topic.OffsetCommitRequestPartition(
                        partition_index=0,
                        committed_offset=offset,
                        committed_leader_epoch=-1,
                        committed_metadata=metadata,
                    )
                ],
            )
        ],
    )
    return raw_call(port, request, 8).topics[0].partitions[0].error_code
