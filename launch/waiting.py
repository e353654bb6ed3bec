"""Waiting on a condition until a deadline, never on a bare sleep.

A run waits for things it can observe: a value in the output log, the broker's earliest
offset moving past a checkpoint, a process ending. Each wait has a deadline on
`time.monotonic()` and reports progress, so a slow machine shows "still waiting…" instead of
looking hung, and a broken one fails with a message saying what never happened.

Usage: `value = wait_until(lambda: read_latest() or None, timeout=30, what="the first message")`
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from launch.errors import WaitTimeout

__all__ = ["Progress", "wait_until"]

T = TypeVar("T")

Progress = Callable[[str, float], None]
"""Called now and then while waiting, with what is awaited and the seconds waited so far."""


def wait_until(
    condition: Callable[[], T | None],
    *,
    timeout: float,
    what: str,
    poll: float = 0.2,
    progress: Progress | None = None,
    progress_every: float = 5.0,
) -> T:
    """Poll `condition` until it returns something other than None/False, and return that.

    Raises WaitTimeout naming `what` when the deadline passes. The condition may itself raise
    (e.g. a process it watches has died); that error propagates at once.
    """
    start = time.monotonic()
    deadline = start + timeout
    next_report = start + progress_every
    while True:
        result = condition()
        if result is not None and result is not False:
            return result
        now = time.monotonic()
        if now >= deadline:
            raise WaitTimeout(f"{what} did not happen within {timeout:.0f} s")
        if progress is not None and now >= next_report:
            progress(what, now - start)
            next_report = now + progress_every
        # Sleeping between polls is pacing, not synchronisation: the condition decides.
        time.sleep(min(poll, max(0.0, deadline - now)))
