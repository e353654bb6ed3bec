"""One client connection: Kafka's framing, decoding each request, answering in order.

A frame is a 4-byte big-endian length and that many bytes. The length is checked against
`max_frame_bytes` before a single body byte is read, so a hostile or broken prefix cannot make
the broker allocate gigabytes. Anything that cannot be decoded closes this connection only,
with a log line; the broker keeps serving everyone else.

Request and response headers are read and written here rather than by the codec: they are a
few fixed fields, and the codec's generic path cost more per Produce than the body itself.
Usage: `await Connection(ctx, reader, writer).serve()`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import struct
import time

from kafka.protocol.api_key import ApiKey
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.consumer.fetch import FetchResponse

from kafka_app.broker.errors import BrokerError, InvalidRequest
from kafka_app.broker.handlers import HANDLERS, BrokerContext
from kafka_app.broker.handlers.cluster import UNSUPPORTED_VERSION, api_versions_body
from kafka_app.broker.wire.fetch_encoding import encode_fetch_response
from kafka_app.broker.wire.request_bounds import check_body, read_uvarint
from kafka_app.broker.wire.versions import API_VERSIONS

__all__ = ["Connection", "MalformedRequest", "read_frame"]

log = logging.getLogger(__name__)

# api_key int16, api_version int16, correlation_id int32, client_id length int16.
_HEADER_PREFIX = struct.Struct(">hhih")
_MIN_FRAME = _HEADER_PREFIX.size
# Response frame: size int32, correlation_id int32 (then one empty tagged-field byte if flexible).
_RESPONSE_PREFIX = struct.Struct(">ii")
_NO_TAGGED_FIELDS = b"\x00"
# A big answer (a 55 MiB Fetch) goes out in slices, each written once the last drained, so the
# transport never copies more than one slice: the answer is in memory once, not twice.
_WRITE_SLICE_BYTES = 1 << 20


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


class Connection:
    """Serves one client socket until it closes or sends something undecodable."""

    def __init__(
        self, ctx: BrokerContext, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        # Its own lease on the broker's fetch memory, returned once each answer is written.
        self._ctx = dataclasses.replace(ctx, fetch_lease=ctx.fetch_memory.lease())
        self._reader = reader
        self._writer = writer
        host, port = (writer.get_extra_info("peername") or ("?", "?"))[:2]
        self.peer = f"{host}:{port}"
        # For the connection limit (connection_limit.py): who has been idle the longest.
        self.last_active = time.monotonic()
        self.busy = False

    def close(self) -> None:
        """Close the socket from outside (the connection limit); `serve` then ends."""
        self._writer.close()

    async def serve(self) -> None:
        try:
            while (frame := await self._next_frame()) is not None:
                self.busy, self.last_active = True, time.monotonic()
                try:
                    response = await self._answer(frame)
                    if response is not None:
                        await self._write(response)
                        del response  # the bytes go before the lease says they did
                finally:
                    self._ctx.fetch_lease.release()
                self.busy, self.last_active = False, time.monotonic()
        except MalformedRequest as error:
            log.warning("Closing connection from %s: %s", self.peer, error)
        except ConnectionError as error:
            log.debug("Connection from %s lost: %s", self.peer, error)
        except asyncio.CancelledError:
            # The broker is stopping and cancelled us; ending normally keeps asyncio's stream
            # machinery from reporting the cancellation as an error.
            log.debug("Connection from %s closed by broker shutdown", self.peer)
        except Exception:
            # A bug in one handler ends that client's connection, never the broker: the
            # traceback goes to kafka.log and the client reconnects.
            log.exception("Closing connection from %s after an internal error", self.peer)
        finally:
            self._writer.close()

    async def _write(self, parts: list[bytes]) -> None:
        if sum(len(part) for part in parts) <= _WRITE_SLICE_BYTES:
            # One write, as before: a small answer costs nothing to join and arrives in one piece.
            self._writer.write(b"".join(parts))
            await self._writer.drain()
            return
        for part in parts:
            view = memoryview(part)
            for start in range(0, len(view), _WRITE_SLICE_BYTES):
                self._writer.write(view[start : start + _WRITE_SLICE_BYTES])
                await self._writer.drain()

    async def _next_frame(self) -> bytes | None:
        """The next request, or None when the client closed; a client that sends no complete
        request within connections.max.idle.ms is closed, as Kafka closes idle connections."""
        settings = self._ctx.settings
        idle_sec = settings.connections_max_idle_ms / 1000
        try:
            return await asyncio.wait_for(
                read_frame(self._reader, settings.max_frame_bytes), idle_sec
            )
        except asyncio.TimeoutError:
            raise MalformedRequest(
                f"no complete request for {idle_sec:g} s (connections.max.idle.ms)"
            ) from None

    async def _answer(self, frame: bytes) -> list[bytes] | None:
        api_key, version, correlation_id, _ = _HEADER_PREFIX.unpack_from(frame)
        try:
            key = ApiKey(api_key)
            spec = API_VERSIONS[key]
        except (ValueError, KeyError):
            raise MalformedRequest(f"API key {api_key} is not served by this broker") from None
        if not spec.supports(version):
            if key == ApiKey.ApiVersions:
                # Kafka's rule: answer in v0 with the versions we do speak; the client retries lower.
                return _encode(api_versions_body(UNSUPPORTED_VERSION), 0, correlation_id, False)
            raise MalformedRequest(
                f"{key.name} v{version} is not supported "
                f"(we speak v{spec.min_version}-v{spec.max_version})"
            )
        request = _decode(spec.request, frame, version, key)
        response = await HANDLERS[key](self._ctx, request, version)
        if response is None:
            return None
        # ApiVersions answers with the old header whatever its version, so old clients can read it.
        flexible = key != ApiKey.ApiVersions and spec.response.flexible_version_q(version)
        return _encode(response, version, correlation_id, flexible)


def _decode(request_class: type[ApiMessage], frame: bytes, version: int, key: ApiKey) -> ApiMessage:
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


def _encode(response: ApiMessage, version: int, correlation_id: int, flexible: bool) -> list[bytes]:
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
