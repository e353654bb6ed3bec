"""Is a Kafka broker serving? Ask it ApiVersions (v0) on a raw socket, as every client first does.

An open port is not enough in principle (a proxy, or another program, may hold it); an
ApiVersions answer with error code 0 is Kafka speaking. Kafka opens its client listener only
once the broker is unfenced, so that answer also means "ready for clients".

Usage: `if answers_api_versions("127.0.0.1", 19092): ...`
"""

from __future__ import annotations

import socket
import struct

__all__ = ["answers_api_versions", "read_exactly"]

_API_VERSIONS, _CORRELATION_ID = 18, 7
_CLIENT_ID = b"checkpoint-experience-probe"


def _request() -> bytes:
    # Request header v1: api_key, api_version, correlation_id, client_id; ApiVersions v0 has no body.
    body = struct.pack(">hhih", _API_VERSIONS, 0, _CORRELATION_ID, len(_CLIENT_ID)) + _CLIENT_ID
    return struct.pack(">i", len(body)) + body


def read_exactly(sock: socket.socket, size: int) -> bytes:
    """`size` bytes from `sock`, or ConnectionError when the broker closes first."""
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        data += chunk
    return data


def answers_api_versions(host: str, port: int, timeout: float = 2.0) -> bool:
    """True when the broker at host:port answers ApiVersions without an error."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(_request())
            size = struct.unpack(">i", read_exactly(sock, 4))[0]
            if not 6 <= size <= 1 << 20:
                return False
            correlation_id, error_code = struct.unpack(">ih", read_exactly(sock, 6))
    except (OSError, ConnectionError, struct.error):
        return False
    return correlation_id == _CORRELATION_ID and error_code == 0
