"""Hostile and broken input: oversized, truncated and random frames close only their own
connection, and the broker keeps answering everyone else. Tests taking `kafka_broker` hold for
Apache Kafka too; the frame-size ones need the embedded broker's `max_frame_bytes` setting."""

from __future__ import annotations

import asyncio
import random
import socket
import struct
from pathlib import Path

import pytest
from kafka.protocol.metadata.api_versions import ApiVersionsRequest

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from kafka_app.broker.wire.connection import MalformedRequest, read_frame
from tests.kafka_app.broker.broker_helpers import raw_call

_TIMEOUT_SEC = 5


def _still_serving(port: int) -> bool:
    return (
        raw_call(
            port, ApiVersionsRequest[3](client_software_name="t", client_software_version="1"), 3
        ).error_code
        == 0
    )


def _closed_by_broker(sock: socket.socket) -> bool:
    """True when the broker closed the connection (EOF or reset) instead of answering."""
    sock.settimeout(_TIMEOUT_SEC)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


@pytest.fixture
def small_frames_broker(tmp_path: Path, free_port: int):
    with EmbeddedBroker(
        BrokerSettings(port=free_port, data_dir=tmp_path, max_frame_bytes=4096)
    ) as broker:
        yield broker


def test_oversized_length_prefix_is_refused_before_the_body(small_frames_broker) -> None:
    with socket.create_connection(("127.0.0.1", small_frames_broker.port)) as sock:
        sock.sendall(struct.pack(">i", 1_000_000))  # and never send the body
        assert _closed_by_broker(sock), "the broker waited for a body it should have refused"
    assert _still_serving(small_frames_broker.port)


@pytest.mark.parametrize("prefix", [-1, 0, 5, 2**31 - 1])
def test_impossible_lengths_close_the_connection(small_frames_broker, prefix: int) -> None:
    with socket.create_connection(("127.0.0.1", small_frames_broker.port)) as sock:
        sock.sendall(struct.pack(">i", prefix) + b"\x00" * 16)
        assert _closed_by_broker(sock)
    assert _still_serving(small_frames_broker.port)


def test_truncated_frames_do_not_hurt(kafka_broker) -> None:
    request = ApiVersionsRequest[3](client_software_name="t", client_software_version="1")
    request.with_header(correlation_id=1, client_id="t")
    frame = bytes(request.encode(header=True, framed=True))
    for cut in (2, 4, 9, len(frame) - 1):
        with socket.create_connection(("127.0.0.1", kafka_broker.port)) as sock:
            sock.sendall(frame[:cut])
    assert _still_serving(kafka_broker.port)


def test_random_frames_do_not_take_the_broker_down(kafka_broker) -> None:
    rng = random.Random(20161)
    for _ in range(200):
        api_key = rng.choice(
            [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 18, 19, 21, 22, 32, 44, 60, 999]
        )
        version = rng.randint(-1, 14)
        body = struct.pack(">hhi", api_key, version, rng.randint(0, 2**31 - 1))
        body += bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 300)))
        with socket.create_connection(("127.0.0.1", kafka_broker.port)) as sock:
            sock.sendall(struct.pack(">i", len(body)) + body)
            sock.settimeout(1)
            try:
                sock.recv(65536)  # an answer or a close; silence is legal too (Produce acks=0)
            except (ConnectionResetError, TimeoutError):
                pass
    assert _still_serving(kafka_broker.port)


def test_a_bad_request_closes_only_its_own_connection(kafka_broker) -> None:
    with socket.create_connection(("127.0.0.1", kafka_broker.port)) as healthy:
        with socket.create_connection(("127.0.0.1", kafka_broker.port)) as broken:
            garbled = (
                struct.pack(">hhi", 3, 12, 1) + b"\xff\xff"
            )  # Metadata v12 cut after the header
            broken.sendall(struct.pack(">i", len(garbled)) + garbled)
            assert _closed_by_broker(broken)
        request = ApiVersionsRequest[0]()
        request.with_header(correlation_id=5, client_id="t")
        healthy.sendall(bytes(request.encode(header=True, framed=True)))
        healthy.settimeout(_TIMEOUT_SEC)
        assert len(healthy.recv(65536)) > 8


def _feed(data: bytes, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    if eof:
        reader.feed_eof()
    return reader


def test_read_frame_limits_and_eof() -> None:
    async def scenario() -> None:
        assert await read_frame(_feed(b""), 100) is None
        body = struct.pack(">hhi", 18, 0, 1) + b"\x00\x00"
        assert await read_frame(_feed(struct.pack(">i", len(body)) + body), 100) == body
        with pytest.raises(MalformedRequest, match="exceeds the limit of 100"):
            await read_frame(_feed(struct.pack(">i", 101), eof=False), 100)
        with pytest.raises(MalformedRequest, match="inside a length prefix"):
            await read_frame(_feed(b"\x00\x00"), 100)
        with pytest.raises(MalformedRequest, match="closed after 3 of 20"):
            await read_frame(_feed(struct.pack(">i", 20) + b"abc"), 100)

    asyncio.run(scenario())
