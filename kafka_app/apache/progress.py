"""A waiting line for long waits (Kafka's start): rich on a terminal, plain lines every 5 s otherwise.

Usage:
    with Waiting("Kafka 4.1.2 to answer", enabled=True) as waiting:
        while not ready(): waiting.update("2 of 3 nodes answer"); time.sleep(0.2)
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

__all__ = ["Waiting"]

_PLAIN_EVERY_SEC = 5.0


class Waiting:
    def __init__(self, what: str, *, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.what, self.enabled = what, enabled
        self.stream = stream or sys.stderr
        self._start = time.monotonic()
        self._next_plain = self._start + _PLAIN_EVERY_SEC
        self._status: object | None = None

    def __enter__(self) -> Waiting:
        if self.enabled and self.stream.isatty():
            from rich.console import Console
            from rich.status import Status

            self._status = Status(self._text(""), console=Console(file=self.stream))
            self._status.start()  # type: ignore[attr-defined]
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._status is not None:
            self._status.stop()  # type: ignore[attr-defined]

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._start

    def update(self, detail: str) -> None:
        if not self.enabled:
            return
        if self._status is not None:
            self._status.update(self._text(detail))  # type: ignore[attr-defined]
        elif time.monotonic() >= self._next_plain:
            self._next_plain += _PLAIN_EVERY_SEC
            print(self._text(detail), file=self.stream, flush=True)

    def _text(self, detail: str) -> str:
        return f"waiting for {self.what}: {self.elapsed:.0f} s" + (f", {detail}" if detail else "")
