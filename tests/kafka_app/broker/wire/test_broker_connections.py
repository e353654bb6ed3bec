"""max.connections: past the limit, the connection idle the longest makes room for the newcomer,
so idle or dribbling sockets cannot lock real clients out; one with a request in flight stays."""

from __future__ import annotations

import re
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from kafka import KafkaConsumer, KafkaProducer
from kafka.protocol.consumer.fetch import FetchRequest

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from kafka_app.broker.wire.connection_limit import ConnectionSlots
from tests.kafka_app.broker.broker_helpers import create_topic, recv_frame, send_frame, wait_until

LIMIT = 20


@pytest.fixture
def broker(tmp_path: Path, free_port: int) -> Iterator[EmbeddedBroker]:
    settings = BrokerSettings(port=free_port, data_dir=tmp_path / "data", max_connections=LIMIT)
    with EmbeddedBroker(settings) as running:
        yield running


def api_versions_seconds(port: int) -> float:
    """Seconds a fresh connection takes to get its ApiVersions answer."""
    started = time.monotonic()
    body = struct.pack(">hhih", 18, 0, 5, 4) + b"test"
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(struct.pack(">i", len(body)) + body)
        recv_frame(client)
    return time.monotonic() - started


def closed_by_broker(sock: socket.socket) -> bool:
    sock.settimeout(0.01)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_idle_connections_past_the_limit_make_room_oldest_first(broker: EmbeddedBroker) -> None:
    with ExitStack() as stack:
        idle = [
            stack.enter_context(socket.create_connection(("127.0.0.1", broker.port)))
            for _ in range(2 * LIMIT)
        ]
        assert api_versions_seconds(broker.port) < 1
        # The first ones were closed for the later ones; the newest are still open.
        wait_until(
            lambda: all(closed_by_broker(s) for s in idle[:LIMIT]),
            5,
            "the oldest idle connections closed",
        )
        assert not any(closed_by_broker(s) for s in idle[-LIMIT // 2 :])


def test_a_dribbling_client_does_not_hold_up_others(broker: EmbeddedBroker) -> None:
    """One byte at a time, never a whole request: others are answered meanwhile, and at the limit
    it is the first to go (it never completed a request)."""
    with socket.create_connection(("127.0.0.1", broker.port)) as slow, ExitStack() as stack:
        frame = struct.pack(">i", 12) + struct.pack(">hhih", 18, 0, 1, 2) + b"sl"
        for byte in frame[:6]:
            slow.sendall(bytes([byte]))
            assert api_versions_seconds(broker.port) < 0.5
        for _ in range(LIMIT):
            stack.enter_context(socket.create_connection(("127.0.0.1", broker.port)))
        wait_until(lambda: closed_by_broker(slow), 5, "the dribbling connection closed")


def test_a_connection_with_a_request_in_flight_is_not_the_one_closed(
    broker: EmbeddedBroker,
) -> None:
    create_topic(broker.bootstrap_servers, "waiting")
    Topic = FetchRequest.FetchTopic
    fetch = FetchRequest[12](
        replica_id=-1,
        max_wait_ms=3000,
        min_bytes=1,
        max_bytes=1 << 20,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        forgotten_topics_data=[],
        rack_id="",
        topics=[
            Topic(
                topic="waiting",
                partitions=[
                    Topic.FetchPartition(
                        partition=0,
                        current_leader_epoch=-1,
                        fetch_offset=0,
                        last_fetched_epoch=-1,
                        log_start_offset=-1,
                        partition_max_bytes=1 << 20,
                    )
                ],
            )
        ],
    )
    with (
        socket.create_connection(("127.0.0.1", broker.port), timeout=10) as polling,
        ExitStack() as stack,
    ):
        send_frame(polling, fetch, 12)  # waits up to 3 s for records that never come
        time.sleep(0.2)  # let the broker start waiting before the crowd arrives
        for _ in range(2 * LIMIT):
            stack.enter_context(socket.create_connection(("127.0.0.1", broker.port)))
        assert api_versions_seconds(broker.port) < 1
        assert struct.unpack_from(">i", recv_frame(polling))[0] == 1  # its answer, not a close


def test_clients_work_at_the_limit(broker: EmbeddedBroker) -> None:
    create_topic(broker.bootstrap_servers, "crowded")
    with ExitStack() as stack:
        for _ in range(LIMIT):
            stack.enter_context(socket.create_connection(("127.0.0.1", broker.port)))
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, linger_ms=0)
        producer.send("crowded", b"through").get(timeout=10)
        producer.close(5)
        consumer = KafkaConsumer(
            "crowded",
            bootstrap_servers=broker.bootstrap_servers,
            auto_offset_reset="earliest",
            consumer_timeout_ms=5000,
        )
        try:
            assert next(iter(consumer)).value == b"through"
        finally:
            consumer.close()


class _Fake:
    def __init__(self, peer: str, last_active: float, busy: bool = False) -> None:
        self.peer, self.last_active, self.busy, self.closed = peer, last_active, busy, False

    def close(self) -> None:
        self.closed = True


def test_the_busy_are_closed_only_when_everyone_is_busy() -> None:
    slots = ConnectionSlots(limit=2)
    old_busy, young_idle = _Fake("a", 1.0, busy=True), _Fake("b", 2.0)
    slots.admit(old_busy)
    slots.admit(young_idle)
    slots.admit(third := _Fake("c", 3.0, busy=True))
    assert (old_busy.closed, young_idle.closed) == (False, True)
    slots.admit(_Fake("d", 4.0))
    assert old_busy.closed and not third.closed and len(slots) == 2


@pytest.mark.e2e
def test_the_connections_benchmark_runs_and_the_limit_shows() -> None:
    """benchmarks/broker_connections.py against a real broker process, scaled down: 40 idle
    sockets past a limit of 20 leave the broker holding fewer than 20 of them."""
    repo = Path(__file__).resolve().parents[4]
    done = subprocess.run(
        [
            sys.executable,
            "benchmarks/broker_connections.py",
            "--idle",
            "40",
            "--samples",
            "5",
            "--max-connections",
            "20",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    held = re.search(r"the broker still held (\d+) of them", done.stdout)
    assert held and int(held[1]) < 20, done.stdout
    assert re.search(r"^\| ApiVersions, fresh connection \(ms\) \| [\d.]+ \|", done.stdout, re.M)
    assert re.search(r"^\| produce, acks=all \(ms\) \| [\d.]+ \|", done.stdout, re.M)
