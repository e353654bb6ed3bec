"""The broker CLI as a real process: kill -9 loses no acknowledged message or committed offset,
SIGTERM is a clean exit, and a taken port is a one-line error."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.errors import KafkaError
from kafka.protocol.producer.produce import ProduceRequest
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.structs import OffsetAndMetadata

from tests.kafka_app.broker.broker_helpers import create_topic, listening, raw_call, wait_until

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[3]


def _start(port: int, data_dir: Path, log_dir: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kafka_app.broker",
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
            "--log-dir",
            str(log_dir),
            "--retention-initial-delay-sec",
            "600",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: listening(port) or process.poll() is not None, 30, "the broker to listen")
    assert process.poll() is None, process.communicate()
    return process


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


def test_kill_9_keeps_acknowledged_messages_and_committed_offsets(
    tmp_path, free_port, processes
) -> None:
    data_dir, log_dir = tmp_path / "data", tmp_path / "log"
    processes.append(_start(free_port, data_dir, log_dir))
    bootstrap = f"127.0.0.1:{free_port}"
    create_topic(bootstrap, "durable", partitions=2)
    tp = TopicPartition("durable", 0)
    committer = KafkaConsumer(
        bootstrap_servers=bootstrap, group_id="keeper", enable_auto_commit=False
    )
    committer.commit({tp: OffsetAndMetadata(7, "seven", -1)})
    committer.close()

    acknowledged: list[bytes] = []
    stop = threading.Event()

    def produce_until_killed() -> None:
        producer = KafkaProducer(
            bootstrap_servers=bootstrap,
            acks="all",
            retries=0,
            request_timeout_ms=3_000,
            max_block_ms=3_000,
        )
        counter = 0
        try:
            while not stop.is_set():
                counter += 1
                value = b"%d" % counter
                try:
                    producer.send("durable", value=value, partition=counter % 2).get(5)
                except KafkaError:  # the broker died under us: this message was never acknowledged
                    return
                acknowledged.append(value)
        finally:
            producer.close(1)

    thread = threading.Thread(target=produce_until_killed, daemon=True)
    thread.start()
    wait_until(lambda: len(acknowledged) >= 200, 30, "200 acknowledged messages")
    os.kill(processes[0].pid, signal.SIGKILL)
    stop.set()
    thread.join(30)
    processes[0].communicate(timeout=30)

    processes.append(_start(free_port, data_dir, log_dir))
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=5_000,
        enable_auto_commit=False,
    )
    consumer.assign([tp, TopicPartition("durable", 1)])
    stored = {m.value for m in consumer}
    consumer.close()
    assert set(acknowledged) <= stored, (
        f"lost {len(set(acknowledged) - stored)} acknowledged messages"
    )

    checker = KafkaConsumer(
        bootstrap_servers=bootstrap, group_id="keeper", enable_auto_commit=False
    )
    try:
        assert checker.committed(tp) == 7
    finally:
        checker.close()


def test_sigterm_is_a_clean_exit(tmp_path, free_port, processes) -> None:
    process = _start(free_port, tmp_path / "data", tmp_path / "log")
    processes.append(process)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "stopped" in out
    assert "Broker listening on" in (tmp_path / "log" / "kafka.log").read_text()


def test_port_in_use_is_one_line_naming_the_port_and_option(tmp_path, free_port) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port))
        taken.listen()
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "kafka_app.broker",
                "--port",
                str(free_port),
                "--log-dir",
                str(tmp_path / "log"),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(free_port) in lines[0] and "--port" in lines[0]


def test_kill_9_mid_stream_an_idempotent_producer_resends_without_duplicates(
    tmp_path, free_port, processes
) -> None:
    """Batches in flight when the broker dies are resent to the restarted broker with the same
    producer id and sequences; the broker rebuilt that state from the log, so none lands twice."""
    data_dir, log_dir = tmp_path / "data", tmp_path / "log"
    processes.append(_start(free_port, data_dir, log_dir))
    bootstrap = f"127.0.0.1:{free_port}"
    create_topic(bootstrap, "once", partitions=1)
    producer = KafkaProducer(
        bootstrap_servers=bootstrap,
        enable_idempotence=True,
        acks="all",
        linger_ms=2,
        request_timeout_ms=3_000,
        delivery_timeout_ms=60_000,
        retry_backoff_ms=100,
        reconnect_backoff_ms=100,
    )
    futures = []
    stop = threading.Event()

    def send_until_stopped() -> None:
        counter = 0
        while not stop.is_set():
            counter += 1
            futures.append(producer.send("once", value=b"%d" % counter, partition=0))

    thread = threading.Thread(target=send_until_stopped, daemon=True)
    thread.start()
    try:
        wait_until(
            lambda: sum(f.is_done for f in list(futures)) >= 2_000, 30, "2000 sends acknowledged"
        )
        os.kill(processes[0].pid, signal.SIGKILL)  # many batches are in flight right now
        processes[0].communicate(timeout=30)
        stop.set()
        thread.join(30)
        processes.append(_start(free_port, data_dir, log_dir))
        producer.flush(60)
    finally:
        stop.set()
        producer.close(5)
    failed = [f for f in futures if f.failed()]
    assert not failed, f"{len(failed)} sends failed, first: {failed[0].exception!r}"

    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        auto_offset_reset="earliest",
        consumer_timeout_ms=5_000,
        enable_auto_commit=False,
    )
    consumer.assign([TopicPartition("once", 0)])
    stored = [m.value for m in consumer]
    consumer.close()
    duplicates = len(stored) - len(set(stored))
    assert duplicates == 0, f"{duplicates} records were written twice"
    assert len(stored) == len(futures)


def _produce_idempotent(port: int, sequence: int) -> int:
    """One Produce as an idempotent producer sends it (id 9000, epoch 0); returns its base offset."""
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=False,
        producer_id=9000,
        producer_epoch=0,
        base_sequence=sequence,
        batch_size=1 << 20,
    )
    for delta in range(3):
        builder.append(delta, 1_000, None, b"%d" % (sequence + delta), [])
    Data = ProduceRequest.TopicProduceData
    request = ProduceRequest[8](
        transactional_id=None,
        acks=-1,
        timeout_ms=5_000,
        topic_data=[
            Data(
                name="once",
                partition_data=[Data.PartitionProduceData(index=0, records=bytes(builder.build()))],
            )
        ],
    )
    partition = raw_call(port, request, 8).responses[0].partition_responses[0]
    assert partition.error_code == 0, partition
    return partition.base_offset


def test_a_batch_resent_after_kill_9_is_answered_with_its_first_offset(
    tmp_path, free_port, processes
) -> None:
    """The lost-acknowledgement case made exact: the broker stored sequence 3-5, died before the
    producer heard back, and the producer resends the same batch to the restarted broker."""
    data_dir, log_dir = tmp_path / "data", tmp_path / "log"
    processes.append(_start(free_port, data_dir, log_dir))
    create_topic(f"127.0.0.1:{free_port}", "once", partitions=1)
    assert _produce_idempotent(free_port, 0) == 0
    assert _produce_idempotent(free_port, 3) == 3
    os.kill(processes[0].pid, signal.SIGKILL)
    processes[0].communicate(timeout=30)
    processes.append(_start(free_port, data_dir, log_dir))
    assert _produce_idempotent(free_port, 3) == 3  # the resend: recognised, not written again
    assert _produce_idempotent(free_port, 6) == 6
    consumer = KafkaConsumer(
        bootstrap_servers=f"127.0.0.1:{free_port}",
        auto_offset_reset="earliest",
        consumer_timeout_ms=3_000,
        enable_auto_commit=False,
    )
    consumer.assign([TopicPartition("once", 0)])
    stored = [m.value for m in consumer]
    consumer.close()
    assert stored == [b"%d" % i for i in range(9)]
