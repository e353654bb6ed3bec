"""The broker's server: opens storage, listens on host:port, runs retention, shuts down cleanly.

It runs entirely on one asyncio loop (storage is single-threaded by design). The CLI runs it on
the main thread; `EmbeddedBroker` runs it on a background thread for in-process use.
Usage: `server = BrokerServer(settings); await server.start(); ...; await server.stop()`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import functools
import logging
import shutil
import tempfile
from pathlib import Path

from kafka_app.broker.client import Connection
from kafka_app.broker.errors import BrokerError
from kafka_app.broker.groups.coordinator import GroupCoordinator
from kafka_app.broker.groups.offsets import CommittedOffsets
from kafka_app.broker.handlers import BrokerContext
from kafka_app.broker.settings import BrokerSettings
from kafka_app.broker.storage.data_dir import Storage
from kafka_app.broker.storage.retention_schedule import run_retention
from kafka_app.broker.wire.connection_limit import ConnectionSlots

__all__ = ["BrokerServer", "PortInUse", "OFFSETS_FILE", "advertised_host"]

log = logging.getLogger(__name__)

# Committed consumer offsets live beside the topic folders (which are named "<topic>-<n>").
OFFSETS_FILE = "group-offsets.jsonl"
# Connections the kernel completes before we accept them. asyncio's default of 100 overflows when
# a crowd connects at once; the dropped handshakes are retried a second later (2,000 connections
# took 12 s instead of 0.13 s, see BENCHMARKS.md).
_LISTEN_BACKLOG = 1024


class PortInUse(BrokerError):
    """Another process already listens on the port the broker was told to use."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(
            f"port {port} on {host} is already in use; "
            f"stop whatever listens there or choose another with --port"
        )
        self.host = host
        self.port = port


class BrokerServer:
    """One broker: storage, committed offsets, groups, a listening socket and the retention task."""

    def __init__(self, settings: BrokerSettings) -> None:
        self.settings = settings
        self.ctx: BrokerContext | None = None
        self._server: asyncio.Server | None = None
        self._second: asyncio.Server | None = None
        self._retention: asyncio.Task[None] | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._slots = ConnectionSlots(settings.max_connections)
        self._temp_dir: Path | None = None

    @property
    def port(self) -> int:
        """The bound port (differs from settings.port when that was 0)."""
        if self._server is None:
            raise RuntimeError("the broker is not started")
        return self._server.sockets[0].getsockname()[1]

    @property
    def data_dir(self) -> Path:
        return self.settings.data_dir or self._temp_dir or Path()

    async def start(self) -> None:
        """Open storage and bind; idempotent. Raises PortInUse when the port is taken."""
        if self._server is not None:
            return
        if self.settings.data_dir is None:
            self._temp_dir = Path(tempfile.mkdtemp(prefix="kafka-app-broker-"))
        storage = Storage(self.data_dir, max_partitions=self.settings.max_partitions)
        offsets = CommittedOffsets(self.data_dir / OFFSETS_FILE)
        groups = GroupCoordinator(offsets, self.settings.group_initial_rebalance_delay_ms)
        self.ctx = BrokerContext(
            self.settings,
            storage,
            offsets,
            groups,
            advertised_host=advertised_host(self.settings.host),
        )
        try:
            self._server = await asyncio.start_server(
                self._on_connect,
                self.settings.host,
                self.settings.port,
                reuse_address=True,
                backlog=_LISTEN_BACKLOG,
            )
        except OSError as error:
            self._close_storage()
            if error.errno == errno.EADDRINUSE:
                raise PortInUse(self.settings.host, self.settings.port) from None
            raise
        self.ctx.advertised_port = self.port
        await self._start_second_listener()
        self._retention = asyncio.create_task(run_retention(storage, self.settings))
        log.info(
            "Broker listening on %s:%d, data in %s", self.settings.host, self.port, self.data_dir
        )

    async def stop(self) -> None:
        """Close the socket and every connection, stop retention, close storage; idempotent."""
        if self._server is not None:
            self._server.close()
            if self._second is not None:
                self._second.close()
            for task in list(self._connections):
                task.cancel()
            if self._retention is not None:
                self._retention.cancel()
            pending = [*self._connections, *([self._retention] if self._retention else [])]
            await asyncio.gather(*pending, return_exceptions=True)
            if self.ctx is not None:
                await self.ctx.groups.stop()
            await self._server.wait_closed()
            if self._second is not None:
                await self._second.wait_closed()
            self._server = self._second = None
            self._retention = None
            log.info("Broker on %s:%d stopped", self.settings.host, self.settings.port)
        self._close_storage()

    def _close_storage(self) -> None:
        if self.ctx is not None:
            self.ctx.groups.close()
            self.ctx.offsets.close()
            self.ctx.storage.close()
            self.ctx = None
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)
            self._temp_dir = None

    async def _start_second_listener(self) -> None:
        """Kafka's second listener: the same broker, another advertised address."""
        address = self.settings.second_listener_address()
        if address is None or self.ctx is None:
            return
        port, host, advertised_port = address
        # The same storage and groups; only what Metadata and FindCoordinator say differs.
        advertised = dataclasses.replace(
            self.ctx, advertised_host=host, advertised_port=advertised_port
        )
        try:
            self._second = await asyncio.start_server(
                functools.partial(self._on_connect, ctx=advertised),
                self.settings.host,
                port,
                reuse_address=True,
            )
        except OSError as error:
            await self.stop()
            if error.errno == errno.EADDRINUSE:
                raise PortInUse(self.settings.host, port) from None
            raise
        log.info(
            "Second listener on %s:%d advertises %s:%d",
            self.settings.host,
            port,
            host,
            advertised_port,
        )

    async def _on_connect(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        ctx: BrokerContext | None = None,
    ) -> None:
        assert self.ctx is not None
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        connection = Connection(ctx or self.ctx, reader, writer)
        self._slots.admit(connection)
        try:
            await connection.serve()
        finally:
            self._slots.release(connection)
            self._connections.discard(task)


def advertised_host(host: str) -> str:
    """The address clients are told to connect to: a wildcard bind is not an address to dial."""
    return "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
