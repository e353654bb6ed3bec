"""One client of the broker, served on its connection: each request read off the wire, answered
by the handler its API key names, in order, until the client closes or sends something
undecodable (which closes this connection only, with a log line).

The bytes (framing, headers, decoding, encoding) are the wire's (wire/connection.py); the
answers are the handlers' (handlers/). This module joins the two, above both, so that neither
imports the other's floor the wrong way.

Usage: `await Connection(ctx, reader, writer).serve()`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time

from kafka.protocol.api_key import ApiKey

from kafka_app.broker.handlers import HANDLERS, BrokerContext
from kafka_app.broker.handlers.cluster import UNSUPPORTED_VERSION, api_versions_body
from kafka_app.broker.wire.connection import (
    MalformedRequest,
    decode_request,
    encode_response,
    read_frame,
    request_header,
)
from kafka_app.broker.wire.versions import API_VERSIONS

__all__ = ["Connection"]

# The name kafka.log has shown on these lines since they were written in wire/connection.py.
log = logging.getLogger("kafka_app.broker.wire.connection")

# A big answer (a 55 MiB Fetch) goes out in slices, each written once the last drained, so the
# transport never copies more than one slice: the answer is in memory once, not twice.
_WRITE_SLICE_BYTES = 1 << 20


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
        api_key, version, correlation_id = request_header(frame)
        try:
            key = ApiKey(api_key)
            spec = API_VERSIONS[key]
        except (ValueError, KeyError):
            raise MalformedRequest(f"API key {api_key} is not served by this broker") from None
        if not spec.supports(version):
            if key == ApiKey.ApiVersions:
                # Kafka's rule: answer in v0 with the versions we do speak; the client retries lower.
                return encode_response(
                    api_versions_body(UNSUPPORTED_VERSION), 0, correlation_id, False
                )
            raise MalformedRequest(
                f"{key.name} v{version} is not supported "
                f"(we speak v{spec.min_version}-v{spec.max_version})"
            )
        request = decode_request(spec.request, frame, version, key)
        response = await HANDLERS[key](self._ctx, request, version)
        if response is None:
            return None
        # ApiVersions answers with the old header whatever its version, so old clients can read it.
        flexible = key != ApiKey.ApiVersions and spec.response.flexible_version_q(version)
        return encode_response(response, version, correlation_id, flexible)
