"""connections.max.idle.ms: a connection that sends no complete request for that long is
closed, also in the middle of a frame; one that keeps asking stays, and the broker serves on."""

from __future__ import annotations

import socket
import struct
import time
from pathlib import Path

import pytest

from kafka_app.broker import BrokerSettings, EmbeddedBroker

IDLE_MS = 600


@pytest.fixture
def broker(tmp_path: Path, free_port: int):
    settings = BrokerSettings(
        port=free_port, data_dir=tmp_path / "data", connections_max_idle_ms=IDLE_MS
    )
    with EmbeddedBroker(settings) as running:
        yield running


def api_versions_request(correlation_id: int) -> bytes:
    body = struct.pack(">hhih", 18, 0, correlation_id, 4) + b"idle"
    return struct.pack(">i", len(body)) + body


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the broker closed `sock`, or None if it stayed open that long."""
    started = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - started


def test_a_silent_connection_is_closed_after_the_idle_time(broker: EmbeddedBroker) -> None:
    with socket.create_connection(("127.0.0.1", broker.port)) as silent:
        took = closed_within(silent, 10)
    assert took is not None and IDLE_MS / 1000 * 0.8 <= took < 5


def test_a_half_sent_frame_does_not_hold_a_connection_forever(broker: EmbeddedBroker) -> None:
    with socket.create_connection(("127.0.0.1", broker.port)) as slow:
        slow.sendall(api_versions_request(1)[:6])  # the length and two bytes of the header
        assert closed_within(slow, 10) is not None


def test_a_busy_connection_stays_and_others_are_served(broker: EmbeddedBroker) -> None:
    with socket.create_connection(("127.0.0.1", broker.port)) as busy:
        busy.settimeout(5)
        for n in range(8):  # 8 x 0.2 s: well past the idle time, but never idle that long
            busy.sendall(api_versions_request(n))
            assert busy.recv(4096), f"request {n} got no answer"
            time.sleep(0.2)
    with socket.create_connection(("127.0.0.1", broker.port)) as other:
        other.settimeout(5)
        other.sendall(api_versions_request(99))
        assert other.recv(4096)
