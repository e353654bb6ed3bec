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
from kafka.structs import OffsetAndMetadata

from tests.kafka_app.broker_helpers import create_topic, wait_until

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def _start(port: int, data_dir: Path, log_dir: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "kafka_app.broker", "--port", str(port), "--data-dir", str(data_dir),
         "--log-dir", str(log_dir), "--retention-initial-delay-sec", "600"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: _listening(port) or process.poll() is not None, 30, "the broker to listen")
    assert process.poll() is None, process.communicate()
    return process


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


def test_kill_9_keeps_acknowledged_messages_and_committed_offsets(tmp_path, free_port, processes) -> None:
    data_dir, log_dir = tmp_path / "data", tmp_path / "log"
    processes.append(_start(free_port, data_dir, log_dir))
    bootstrap = f"127.0.0.1:{free_port}"
    create_topic(bootstrap, "durable", partitions=2)
    tp = TopicPartition("durable", 0)
    committer = KafkaConsumer(bootstrap_servers=bootstrap, group_id="keeper", enable_auto_commit=False)
    committer.commit({tp: OffsetAndMetadata(7, "seven", -1)})
    committer.close()

    acknowledged: list[bytes] = []
    stop = threading.Event()

    def produce_until_killed() -> None:
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", retries=0,
                                 request_timeout_ms=3_000, max_block_ms=3_000)
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
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                             consumer_timeout_ms=5_000, enable_auto_commit=False)
    consumer.assign([tp, TopicPartition("durable", 1)])
    stored = {m.value for m in consumer}
    consumer.close()
    assert set(acknowledged) <= stored, f"lost {len(set(acknowledged) - stored)} acknowledged messages"

    checker = KafkaConsumer(bootstrap_servers=bootstrap, group_id="keeper", enable_auto_commit=False)
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
            [sys.executable, "-m", "kafka_app.broker", "--port", str(free_port),
             "--log-dir", str(tmp_path / "log")],
            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(free_port) in lines[0] and "--port" in lines[0]
