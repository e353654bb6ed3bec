"""A closed terminal (SIGHUP) ends a run the way Ctrl-C does: through the cleanup.

Closing the window that runs the demo, or losing the SSH session, sends SIGHUP. Python's default
is to die on the spot, which leaves every app it started running (each sits in its own process
group, out of the terminal's reach). Turning SIGHUP into KeyboardInterrupt sends it down the
Ctrl-C path instead. One more thing matters: the terminal is gone, so the first line the
cleanup prints would fail with EIO and abort it halfway. The handler therefore points stdin,
stdout and stderr at /dev/null before anything else runs.

Usage:
    signal.signal(signal.SIGHUP, hang_up)
"""

from __future__ import annotations

import os
from types import FrameType

__all__ = ["hang_up", "detach_from_terminal"]


def detach_from_terminal() -> None:
    """Send everything later written to stdout/stderr (and read from stdin) to /dev/null."""
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def hang_up(signum: int, frame: FrameType | None) -> None:
    detach_from_terminal()
    raise KeyboardInterrupt
