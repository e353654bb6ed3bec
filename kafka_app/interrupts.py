"""A stop signal (Ctrl-C, SIGTERM, SIGHUP) as KeyboardInterrupt, held back while a line prints.

The producer's lines are a record other processes read: a message Kafka stored must have its
line, and a line must be written whole. Python runs a signal's handler in the main thread
between two bytecodes, so a flag set around the print is exact: a stop that arrives inside
`held()` is raised as the block ends, never inside it.

Usage:
    with installed():
        ...
        with held():
            console.message(line)
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["held", "installed"]

_STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_held = False
_pending = False


@contextmanager
def installed() -> Iterator[None]:
    """Our handler for the stop signals, the previous ones restored on the way out."""
    previous = {signum: signal.signal(signum, _interrupt) for signum in _STOPS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def held() -> Iterator[None]:
    """A block no stop signal cuts in two; a stop that came meanwhile is raised after it."""
    global _held, _pending
    _held = True
    try:
        yield
    finally:
        _held = False
        if _pending:
            _pending = False
            raise KeyboardInterrupt


def _interrupt(signum: int, frame: FrameType | None) -> None:
    global _pending
    # SIGTERM stops like Ctrl-C: through the same `with` blocks, so the broker closes cleanly.
    # A second SIGTERM must not cut that cleanup short; a second Ctrl-C or kill -9 still does.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if _held:
        _pending = True
        return
    raise KeyboardInterrupt
