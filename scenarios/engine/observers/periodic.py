"""A measurement taken every few seconds in a thread of its own while a scenario runs.

The samplers (Kafka's offsets, the checkpoint folder's size, memory) differ only in what they
measure; starting, pacing and stopping the thread is this one class. A sample must never end a
scenario, so a sampler catches what its own measurement may raise.

Usage:
    class Clock(PeriodicSampler):
        def sample(self) -> None: print(time.time())
    with Clock(interval=0.5, name="clock"): ...
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import TypeVar

__all__ = ["PeriodicSampler"]

S = TypeVar("S", bound="PeriodicSampler")


class PeriodicSampler:
    """Calls `sample()` every `interval` seconds until stopped; start/stop are idempotent."""

    def __init__(self, interval: float, name: str) -> None:
        self.interval = interval
        self._name = name
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> object:
        raise NotImplementedError

    def start(self: S) -> S:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)  # paces the samples; stop() wakes it at once

    def __enter__(self: S) -> S:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
