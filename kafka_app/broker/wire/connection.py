"""A client connection's bytes: Kafka's framing, a request's header and body decoded, an
answer encoded.

A frame is a 4-byte big-endian length and that many bytes. The length is checked against
`max_frame_bytes` before a single body byte is read, so a hostile or broken prefix cannot make
the broker allocate gigabytes. Anything that cannot be decoded is a MalformedRequest, which
closes that connection only (kafka_app/broker/client.py serves it); the broker keeps serving
everyone else.

Request and response headers are read and written here rather than by the codec: they are a
few fixed fields, and the codec's generic path cost more per Produce than the body itself.

Usage:
    frame = await read_frame(reader, max_frame_bytes)
    api_key, version, correlation_id = request_header(frame)
    request = decode_request(spec.request, frame, version, key)
    writer.writelines(encode_response(response, version, correlation_id, flexible))
"""

from __future__ import annotations

import asyncio
import struct

from kafka.protocol.api_key import ApiKey
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.consumer.fetch import FetchResponse

from kafka_app.broker.errors import BrokerError, InvalidRequest
from kafka_app.broker.wire.fetch_encoding import encode_fetch_response
from kafka_app.broker.wire.request_bounds import check_body, read_uvarint

__all__ = [
    "MalformedRequest",
    "read_frame",
    "request_header",
    "decode_request",
    "encode_response",
]

# api_key int16, api_version int16, correlation_id int32, client_id length int16.
_HEADER_PREFIX = struct.Struct(">hhih")
_MIN_FRAME = _HEADER_PREFIX.size
# Response frame: size int32, correlation_id int32 (then one empty tagged-field byte if flexible).
_RESPONSE_PREFIX = struct.Struct(">ii")
_NO_TAGGED_FIELDS = b"\x00"


class MalformedRequest(BrokerError):
    """A frame that is not a request we can decode; the connection that sent it is closed."""

    error_code = 42  # INVALID_REQUEST


async def read_frame(reader: asyncio.StreamReader, max_frame_bytes: int) -> bytes | None:
    """The next frame's body, or None when the client closed the connection between frames."""
    try:
        prefix = await reader.readexactly(4)
    except asyncio.IncompleteReadError as eof:
        if eof.partial:
            raise MalformedRequest(
                f"connection closed inside a length prefix ({len(eof.partial)} of 4 bytes)"
            ) from eof
        return None
    size = int.from_bytes(prefix, "big", signed=True)
    if size > max_frame_bytes:
        raise MalformedRequest(f"frame of {size} bytes exceeds the limit of {max_frame_bytes}")
    if size < _MIN_FRAME:
        raise MalformedRequest(f"frame of {size} bytes is too short for a request header")
    try:
        return await reader.readexactly(size)
    except asyncio.IncompleteReadError as eof:
        raise MalformedRequest(
            f"connection closed after {len(eof.partial)} of {size} frame bytes"
        ) from None


def request_header(frame: bytes) -> tuple[int, int, int]:
    """The API key, API version and correlation id a request frame starts with."""
    api_key, version, correlation_id, _ = _HEADER_PREFIX.unpack_from(frame)
    return api_key, version, correlation_id


def decode_request(
    request_class: type[ApiMessage], frame: bytes, version: int, key: ApiKey
) -> ApiMessage:
    try:
        client_id, body_start = _parse_header(frame, request_class.flexible_version_q(version))
        # Kafka's bounds first: the codec trusts every length and count it reads.
        body = memoryview(frame)[body_start:]
        check_body(request_class, body, 0, version)
        request = request_class.decode(body, version=version)
    except InvalidRequest as error:
        raise MalformedRequest(f"cannot decode {key.name} v{version}: {error}") from None
    # The codec reports what the bounds let through (bad UTF-8, a bad tagged field) as
    # whichever low-level error it hits first.
    except (
        ValueError,
        IndexError,
        KeyError,
        TypeError,
        struct.error,
        UnicodeDecodeError,
        OverflowError,
        EOFError,
    ) as error:
        raise MalformedRequest(f"cannot decode {key.name} v{version}: {error!r}") from None
    # Handlers that name members after the client (JoinGroup) read it from the header.
    _, _, correlation_id, _ = _HEADER_PREFIX.unpack_from(frame)
    request.with_header(correlation_id=correlation_id, client_id=client_id)
    return request


def _parse_header(frame: bytes, flexible: bool) -> tuple[str | None, int]:
    """The client id and where the body starts, after the header (v1, or v2 when flexible)."""
    size = _HEADER_PREFIX.unpack_from(frame)[3]
    position = _HEADER_PREFIX.size + max(size, 0)
    if position > len(frame):
        raise EOFError(f"client id of {size} bytes runs past the end of the frame")
    client_id = None if size < 0 else frame[_HEADER_PREFIX.size : position].decode()
    if flexible:  # tagged fields: a count, then each tag's number, size and bytes
        count, position = read_uvarint(frame, position)
        for _ in range(count):
            _, position = read_uvarint(frame, position)
            length, position = read_uvarint(frame, position)
            position += length
            if position > len(frame):
                raise InvalidRequest("a tagged field of the header runs past the end of the frame")
    return client_id, position


def encode_response(
    response: ApiMessage, version: int, correlation_id: int, flexible: bool
) -> list[bytes]:
    """The response frame as [header, body parts]: not joined, so a big body is not copied again.

    A Fetch answer carries its records as storage read them (fetch_encoding.py).
    """
    if isinstance(response, FetchResponse):
        body = encode_fetch_response(response, version)
    else:
        body = [response.encode(version=version)]
    tagged = _NO_TAGGED_FIELDS if flexible else b""
    size = 4 + len(tagged) + sum(len(part) for part in body)
    return [_RESPONSE_PREFIX.pack(size, correlation_id) + tagged, *body]


# The names the header shortcut's test reads (tests/benchmarks/test_broker_header_shortcut.py).
_decode, _encode = decode_request, encode_response
