"""How much memory a process and its children hold (resident set size), sampled over a run.

The Spark app is a Python driver with a JVM child; a memory leak in either shows as a growing
sum. Read from /proc, so Linux only, like the rest of the scenarios' process handling.

Usage:
    with RssSampler(pid) as rss: ...
    rss.samples  # [(seconds since start, bytes), ...]
"""

from __future__ import annotations

import time
from pathlib import Path

from scenarios.engine.observers.periodic import PeriodicSampler

__all__ = ["tree_rss_bytes", "RssSampler"]


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(child) for child in task.read_text().split()]
        except OSError:
            continue  # the task ended while we looked
    return found


def _rss_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss_bytes(pid: int) -> int:
    """RSS of `pid` and all its descendants, in bytes (0 once they are gone)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += _rss_bytes(current)
        todo += _children(current)
    return total


class RssSampler(PeriodicSampler):
    """Samples `tree_rss_bytes(pid)` every `interval` seconds in a thread until stopped."""

    def __init__(self, pid: int, interval: float = 1.0) -> None:
        super().__init__(interval, "rss-sampler")
        self.pid = pid
        self.samples: list[tuple[float, int]] = []
        self._started = time.monotonic()

    def sample(self) -> None:
        rss = tree_rss_bytes(self.pid)
        if rss:
            self.samples.append((time.monotonic() - self._started, rss))
