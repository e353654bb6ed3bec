"""A TCP proxy the scenarios can cut: a network outage between the Spark app and Kafka.

The proxy listens on its own port and copies bytes both ways to the broker's second listener,
which tells its clients to come back to the proxy (Kafka's advertised listeners), so every
connection the Spark app makes goes through here while the producer talks to the broker
directly. `cut()` closes every connection and refuses new ones, as a pulled cable or a firewall
rule would look to the app; `restore()` lets them through again.

Usage:
    with TcpProxy(listen_port=19095, target=("127.0.0.1", 19096)) as proxy:
        proxy.cut(); ...; proxy.restore()
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Protocol

__all__ = ["Tap", "TcpProxy"]

_CHUNK = 65536


class Tap(Protocol):
    """Sees each connection's chunks both ways, and may hold a client's chunk back (latency)."""

    def sent(self, connection: int, chunk: bytes) -> float:
        """A client's chunk, before it goes on; the seconds to hold it first."""

    def answered(self, connection: int, chunk: bytes) -> None:
        """The server's chunk, before it goes back to the client."""


class TcpProxy:
    """Forwards 127.0.0.1:`listen_port` to `target`; start/stop idempotent."""

    def __init__(
        self,
        listen_port: int,
        target: tuple[str, int],
        record: Callable[[bytes], None] | None = None,
        tap: Tap | None = None,
    ) -> None:
        self.listen_port = listen_port
        self.target = target
        # Called with every chunk a client sends (the broker fuzzer records its corpus so).
        self.record = record
        self.tap = tap
        self._connections = 0
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.cuts = 0

    def __enter__(self) -> TcpProxy:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> TcpProxy:
        if self._listener is None:
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.listen_port))
            listener.listen(64)
            self._listener = listener
            threading.Thread(
                target=self._accept, args=(listener,), daemon=True, name="tcp-proxy-accept"
            ).start()
        return self

    def stop(self) -> None:
        """Close the listening socket and every connection (what `cut` does)."""
        listener, self._listener = self._listener, None
        if listener is not None:
            # shutdown wakes the accept thread; close alone does not on Linux, and the socket
            # then keeps listening until a client comes (storage-outage on hdfs: no client
            # came after the app died at the cut, and restore() met EADDRINUSE).
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        with self._lock:
            sockets, self._open = self._open, set()
        for sock in sockets:
            _close(sock)

    def cut(self) -> None:
        """The outage starts: open connections are reset, new ones refused."""
        self.cuts += 1
        self.stop()

    def restore(self) -> None:
        """The network is back."""
        self.start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # the listener was closed: cut or stopped
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                if self._listener is not listener:  # cut while connecting
                    _close(client)
                    _close(upstream)
                    return
                self._open.update((client, upstream))
            self._connections += 1
            for source, sink, to_server in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(
                    target=self._pump,
                    args=(source, sink, to_server, self._connections),
                    daemon=True,
                    name="tcp-proxy-pump",
                ).start()

    def _pump(
        self, source: socket.socket, sink: socket.socket, to_server: bool, connection: int
    ) -> None:
        try:
            while data := source.recv(_CHUNK):
                self._watch(data, to_server, connection)
                sink.sendall(data)
        except OSError:
            pass  # one side closed or the proxy was cut
        finally:
            for sock in (source, sink):
                with self._lock:
                    self._open.discard(sock)
                _close(sock)

    def _watch(self, data: bytes, to_server: bool, connection: int) -> None:
        if to_server and self.record is not None:
            self.record(data)
        if self.tap is None:
            return
        if not to_server:
            self.tap.answered(connection, data)
        elif (hold := self.tap.sent(connection, data)) > 0:
            time.sleep(hold)  # this connection's request waits; others go on


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()
