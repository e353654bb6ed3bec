"""Lines on standard input, turned into requests for negative keys.

Each line read (Enter at a terminal, a newline through a pipe) asks for one message with a
negative key: the Spark app crashes on it, which is how the seed simulates a failure. End of
input only means no more requests; the producer keeps going.

Usage:
    with NegativeKeys(sys.stdin.fileno()) as keys:
        negative = keys.take()   # True once per line read since the last take
"""

from __future__ import annotations

import os
import select
import threading

from kafka_app.resource import StartStop

__all__ = ["NegativeKeys"]


class NegativeKeys(StartStop):
    """Counts lines read from a file descriptor in a background thread (none when `fd` is None)."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd
        self._pending = 0
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None or self._fd is None:
            return
        # Lines typed (or piped) before the start count for the very first message: read them
        # here, not only in the thread, which may not have run yet when the first key is chosen.
        self._read_ready()
        # A daemon thread, because a blocking read cannot be interrupted portably; it reads the
        # raw descriptor so no buffer lock is held when the interpreter shuts down around it.
        self._thread = threading.Thread(target=self._read, name="negative-keys", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop counting; the reader thread may stay blocked in read() until exit."""
        self._thread = None

    def take(self) -> bool:
        """True if a line was read that no message has used yet (and use it up)."""
        with self._lock:
            if self._pending == 0:
                return False
            self._pending -= 1
            return True

    def _read_ready(self) -> None:
        assert self._fd is not None
        try:
            ready, _, _ = select.select([self._fd], [], [], 0)
            chunk = os.read(self._fd, 4096) if ready else b""
        except (OSError, ValueError):
            return  # not a readable descriptor: the thread finds out and stops too
        with self._lock:
            self._pending += chunk.count(b"\n")

    def _read(self) -> None:
        assert self._fd is not None
        while True:
            try:
                chunk = os.read(self._fd, 4096)
            except OSError:
                # stdin closed or not readable (e.g. a detached process): no requests can come.
                return
            if not chunk:
                return
            with self._lock:
                self._pending += chunk.count(b"\n")
