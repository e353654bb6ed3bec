"""Clocks for storage: wall-clock milliseconds, and a hand-driven clock for deterministic tests.

Retention and segment rolling compare record timestamps with "now"; taking now from an injected
callable lets a test move time forward instead of sleeping.

Usage: `clock = ManualClock(1_000); Storage(path, clock=clock); clock.advance(60_000)`
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Clock", "wall_clock_ms", "ManualClock"]

Clock = Callable[[], int]  # any callable returning epoch milliseconds


def wall_clock_ms() -> int:
    """Epoch milliseconds, the unit of Kafka timestamps."""
    return time.time_ns() // 1_000_000


class ManualClock:
    """A clock that only moves when told to; call it to read the time."""

    def __init__(self, now_ms: int = 0) -> None:
        self.now_ms = now_ms

    def __call__(self) -> int:
        return self.now_ms

    def advance(self, delta_ms: int) -> int:
        """Move forward by `delta_ms` and return the new time."""
        self.now_ms += delta_ms
        return self.now_ms
